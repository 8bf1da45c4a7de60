package org.rpcrdma4j.efa.device.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * Memory registration and one-sided RDMA ({@link Device#registerMemory}, {@link Device#postRead},
 * {@link Device#postWrite}), each check skipped unless both devices have the capability it needs
 * (EFA RDM protocol v4 §1.1, §4.1, §4.6): read and write move exactly the bytes named, at any offset
 * on either side, beyond the MTU too, and complete only at the initiator; a zero-length one moves
 * nothing; a remote range outside its registration (past the end, before the start, wrapping past
 * 2^64), an unknown or deregistered key, or a missing remote right is {@code
 * REMOTE_ERROR_BAD_ADDRESS}, and a local range outside its region, a local region deregistered or
 * without {@code LOCAL_WRITE} is {@code LOCAL_ERROR_INVALID_LKEY}, none of them touching memory;
 * a deregistered key is never handed out again; over the maximum RDMA size is {@code
 * LOCAL_ERROR_BAD_LENGTH}; a device without a capability refuses to post it, and a target without it
 * refuses it. No device ever writes outside the memory it was given.
 */
public abstract class DeviceRdmaConformance extends DeviceConformance {

    private static final Set<Access> LOCAL_WRITE = EnumSet.of(Access.LOCAL_WRITE);
    private static final Set<Access> REMOTE_READ = EnumSet.of(Access.REMOTE_READ);
    private static final Set<Access> REMOTE_WRITE = EnumSet.of(Access.REMOTE_WRITE);
    private static final Set<Access> REMOTE_BOTH = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);
    private static final Set<Access> NONE = EnumSet.noneOf(Access.class);
    private static final int SIZE = 64;

    private Device a;
    private Device b;
    private AddressHandle aToB;
    private long nextWrId = 1;

    @BeforeEach
    final void twoDevices() {
        a = newDevice();
        b = newDevice();
        aToB = a.createAddressHandle(b.address().gid());
    }

    private static MemoryRegion register(Device device, ByteBuffer memory, Set<Access> access) {
        return Objects.requireNonNull(device.registerMemory(memory, access),
                "the device could not register a few small regions");
    }

    private static MemoryRegion register(Device device, Guarded memory, Set<Access> access) {
        return register(device, memory.view(), access);
    }

    /** Reads from b into a and returns the completion, after checking its wr_id and opcode. */
    private Completion read(MemoryRegion local, long localOffset, RmaIov remote) {
        final long wrId = nextWrId++;
        assertThat(a.postRead(aToB, b.address().qpn(), b.address().qkey(), local, localOffset, remote, wrId))
                .isTrue();
        final Completion completion = awaitOne(a);
        assertThat(completion.wrId()).isEqualTo(wrId);
        assertThat(completion.opcode()).isEqualTo(Opcode.RDMA_READ);
        return completion;
    }

    /** Writes from a into b and returns the completion, after checking its wr_id and opcode. */
    private Completion write(MemoryRegion local, long localOffset, RmaIov remote) {
        final long wrId = nextWrId++;
        assertThat(a.postWrite(aToB, b.address().qpn(), b.address().qkey(), local, localOffset, remote, wrId))
                .isTrue();
        final Completion completion = awaitOne(a);
        assertThat(completion.wrId()).isEqualTo(wrId);
        assertThat(completion.opcode()).isEqualTo(Opcode.RDMA_WRITE);
        return completion;
    }

    private static Completion done(Completion completion, CompletionStatus status, int length) {
        return Completion.ofInitiated(completion.wrId(), completion.opcode(), status, length);
    }

    /** Asserts the completion ended with {@code status}, moved nothing, and names no source. */
    private static void assertFailed(Completion completion, CompletionStatus status) {
        assertThat(completion).isEqualTo(done(completion, status, 0));
    }

    private boolean canRead() {
        return a.attributes().has(Capability.RDMA_READ) && b.attributes().has(Capability.RDMA_READ);
    }

    private boolean canWrite() {
        return a.attributes().has(Capability.RDMA_WRITE) && b.attributes().has(Capability.RDMA_WRITE);
    }

    /** Skips the running test unless the devices can RDMA-read or RDMA-write. */
    private void assumeReadOrWrite() {
        assumeTrue(canRead() || canWrite(), () -> "the device under test has neither RDMA read nor RDMA write ("
                + a.attributes() + ")");
    }

    private void assumeRead() {
        assumeCapability(Capability.RDMA_READ, a, b);
    }

    private void assumeWrite() {
        assumeCapability(Capability.RDMA_WRITE, a, b);
    }

    @Test
    void readMovesTheNamedRemoteBytesToTheLocalOffsetAndCompletesOnlyAtTheInitiator() {
        assumeRead();
        final Guarded remoteMemory = new Guarded(1, SIZE);
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, remoteMemory, REMOTE_READ);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);

        final Completion completion = read(local, 30, remote.iov(10, 20));

        assertThat(completion).isEqualTo(done(completion, CompletionStatus.OK, 20));
        assertThat(localMemory.bytes(30, 20)).isEqualTo(bytes(pattern(1, SIZE), 10, 20));
        assertThat(localMemory.bytes(0, 30)).isEqualTo(bytes(pattern(2, SIZE), 0, 30));
        assertThat(localMemory.bytes(50, 14)).isEqualTo(bytes(pattern(2, SIZE), 50, 14));
        assertThat(remoteMemory.bytes()).isEqualTo(patternBytes(1, SIZE));
        localMemory.assertGuardsIntact();
        remoteMemory.assertGuardsIntact();
        assertNoCompletion(b);
    }

    @Test
    void writeMovesTheLocalBytesToTheNamedRemoteOffsetAndCompletesOnlyAtTheInitiator() {
        assumeWrite();
        final Guarded remoteMemory = new Guarded(1, SIZE);
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, remoteMemory, REMOTE_WRITE);
        final MemoryRegion local = register(a, localMemory, NONE);

        final Completion completion = write(local, 30, remote.iov(10, 20));

        assertThat(completion).isEqualTo(done(completion, CompletionStatus.OK, 20));
        assertThat(remoteMemory.bytes(10, 20)).isEqualTo(bytes(pattern(2, SIZE), 30, 20));
        assertThat(remoteMemory.bytes(0, 10)).isEqualTo(bytes(pattern(1, SIZE), 0, 10));
        assertThat(remoteMemory.bytes(30, 34)).isEqualTo(bytes(pattern(1, SIZE), 30, 34));
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
        localMemory.assertGuardsIntact();
        remoteMemory.assertGuardsIntact();
        assertNoCompletion(b);
    }

    @Test
    void readAndWriteLongerThanTheMtuMoveEveryByte() {
        final int length = (int) Math.min(3L * a.attributes().mtu() + 5, a.attributes().maxRdmaSize());
        final Guarded remoteMemory = new Guarded(1, length);
        final Guarded localMemory = new Guarded(2, length);
        final MemoryRegion remote = register(b, remoteMemory, REMOTE_BOTH);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);
        assumeReadOrWrite();
        if (canRead()) {
            final Completion completion = read(local, 0, remote.iov(0, length));
            assertThat(completion).isEqualTo(done(completion, CompletionStatus.OK, length));
            assertThat(localMemory.bytes()).isEqualTo(patternBytes(1, length));
            final ByteBuffer fresh = pattern(3, length);
            localMemory.view().put(fresh); // a new pattern to write back
        }
        if (canWrite()) {
            final byte[] sent = localMemory.bytes();
            final Completion completion = write(local, 0, remote.iov(0, length));
            assertThat(completion).isEqualTo(done(completion, CompletionStatus.OK, length));
            assertThat(remoteMemory.bytes()).isEqualTo(sent);
        }
        localMemory.assertGuardsIntact();
        remoteMemory.assertGuardsIntact();
    }

    @Test
    void zeroLengthReadAndWriteCompleteAndMoveNothing() {
        final Guarded remoteMemory = new Guarded(1, SIZE);
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, remoteMemory, REMOTE_BOTH);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);
        assumeReadOrWrite();
        if (canRead()) {
            final Completion completion = read(local, 8, remote.iov(8, 0));
            assertThat(completion).isEqualTo(done(completion, CompletionStatus.OK, 0));
        }
        if (canWrite()) {
            final Completion completion = write(local, 8, remote.iov(8, 0));
            assertThat(completion).isEqualTo(done(completion, CompletionStatus.OK, 0));
        }
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
        assertThat(remoteMemory.bytes()).isEqualTo(patternBytes(1, SIZE));
        localMemory.assertGuardsIntact();
        remoteMemory.assertGuardsIntact();
    }

    @Test
    void theLastByteOfARegionIsReachableAndTheOnePastItIsNot() {
        assumeRead();
        final Guarded remoteMemory = new Guarded(1, SIZE);
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, remoteMemory, REMOTE_READ);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);

        final Completion last = read(local, 0, remote.iov(SIZE - 1, 1));
        assertThat(last).isEqualTo(done(last, CompletionStatus.OK, 1));
        assertThat(localMemory.bytes(0, 1)).isEqualTo(bytes(pattern(1, SIZE), SIZE - 1, 1));

        assertFailed(read(local, 8, new RmaIov(remote.address() + SIZE - 1, 2, remote.key())),
                CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(localMemory.bytes(8, 8)).isEqualTo(bytes(pattern(2, SIZE), 8, 8));
        localMemory.assertGuardsIntact();
    }

    @Test
    void rangesBeforeTheRegionOrWrappingPast2To64AreRemoteAccessErrors() {
        assumeRead();
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, new Guarded(1, SIZE), REMOTE_READ);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);

        assertFailed(read(local, 0, new RmaIov(remote.address() - 1, 4, remote.key())),
                CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertFailed(read(local, 0, new RmaIov(-2L, 4, remote.key())), CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
        localMemory.assertGuardsIntact();
    }

    @Test
    void writePastTheEndOfTheRegionWritesNothing() {
        assumeWrite();
        final Guarded remoteMemory = new Guarded(1, SIZE);
        final MemoryRegion remote = register(b, remoteMemory, REMOTE_WRITE);
        final MemoryRegion local = register(a, new Guarded(2, SIZE), NONE);

        assertFailed(write(local, 0, new RmaIov(remote.address() + SIZE - 8, 16, remote.key())),
                CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(remoteMemory.bytes()).isEqualTo(patternBytes(1, SIZE));
        remoteMemory.assertGuardsIntact();
    }

    @Test
    void aKeyTheTargetNeverHandedOutIsARemoteAccessError() {
        assumeRead();
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, new Guarded(1, SIZE), REMOTE_BOTH);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);

        assertFailed(read(local, 0, new RmaIov(remote.address(), 4, ~remote.key())),
                CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
        localMemory.assertGuardsIntact();
    }

    @Test
    void readOfARegionWithoutRemoteReadIsARemoteAccessError() {
        assumeRead();
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, new Guarded(1, SIZE), REMOTE_WRITE);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);

        assertFailed(read(local, 0, remote.iov(0, 4)), CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
    }

    @Test
    void writeToARegionWithoutRemoteWriteIsARemoteAccessErrorAndWritesNothing() {
        assumeWrite();
        final Guarded remoteMemory = new Guarded(1, SIZE);
        final MemoryRegion remote = register(b, remoteMemory, REMOTE_READ);
        final MemoryRegion local = register(a, new Guarded(2, SIZE), NONE);

        assertFailed(write(local, 0, remote.iov(0, 4)), CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(remoteMemory.bytes()).isEqualTo(patternBytes(1, SIZE));
        remoteMemory.assertGuardsIntact();
    }

    @Test
    void readIntoALocalRegionWithoutLocalWriteIsALocalKeyError() {
        assumeRead();
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, new Guarded(1, SIZE), REMOTE_READ);
        final MemoryRegion local = register(a, localMemory, REMOTE_READ);

        assertFailed(read(local, 0, remote.iov(0, 4)), CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
    }

    @Test
    void aLocalRangeOutsideTheLocalRegionIsALocalKeyError() {
        assumeRead();
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, new Guarded(1, SIZE), REMOTE_BOTH);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);

        assertFailed(read(local, SIZE - 4, remote.iov(0, 8)), CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
        assertFailed(read(local, Long.MAX_VALUE, remote.iov(0, 8)), CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
        localMemory.assertGuardsIntact();
    }

    @Test
    void writeFromALocalRangeOutsideTheLocalRegionIsALocalKeyErrorAndWritesNothing() {
        assumeWrite();
        final Guarded remoteMemory = new Guarded(1, SIZE);
        final MemoryRegion remote = register(b, remoteMemory, REMOTE_WRITE);
        final MemoryRegion local = register(a, new Guarded(2, SIZE), NONE);

        assertFailed(write(local, SIZE - 4, remote.iov(0, 8)), CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
        assertThat(remoteMemory.bytes()).isEqualTo(patternBytes(1, SIZE));
        remoteMemory.assertGuardsIntact();
    }

    @Test
    void aDeregisteredLocalRegionIsALocalKeyError() {
        assumeRead();
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion remote = register(b, new Guarded(1, SIZE), REMOTE_READ);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);
        a.deregisterMemory(local);

        assertFailed(read(local, 0, remote.iov(0, 4)), CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
    }

    @Test
    void aDeregisteredRemoteRegionIsARemoteAccessErrorAndCannotBeDeregisteredAgain() {
        assumeRead();
        final MemoryRegion remote = register(b, new Guarded(1, SIZE), REMOTE_READ);
        final MemoryRegion local = register(a, new Guarded(2, SIZE), LOCAL_WRITE);
        final Completion before = read(local, 0, remote.iov(0, 4));
        assertThat(before).isEqualTo(done(before, CompletionStatus.OK, 4));

        b.deregisterMemory(remote);

        assertFailed(read(local, 0, remote.iov(0, 4)), CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThatThrownBy(() -> b.deregisterMemory(remote)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.deregisterMemory(register(b, new Guarded(3, 8), REMOTE_READ)))
                .as("a region of another device").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDeregisteredKeyIsNeverHandedOutAgain() {
        final Guarded memory = new Guarded(1, SIZE);
        final Set<Integer> keys = new HashSet<>();
        MemoryRegion first = null;
        for (int i = 0; i < 8; i++) {
            final MemoryRegion region = register(b, memory, REMOTE_BOTH);
            assertThat(keys.add(region.key())).as("key 0x%x handed out again", region.key()).isTrue();
            first = first == null ? region : first;
            b.deregisterMemory(region);
        }
        final MemoryRegion current = register(b, memory, REMOTE_BOTH);
        assertThat(keys).doesNotContain(current.key());
        if (canRead()) {
            final MemoryRegion local = register(a, new Guarded(2, SIZE), LOCAL_WRITE);
            assertFailed(read(local, 0, first.iov(0, 4)), CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        }
    }

    @Test
    void rdmaOverTheMaximumSizeIsALocalLengthError() {
        final long tooLong = a.attributes().maxRdmaSize() + 1;
        final MemoryRegion local = register(a, new Guarded(2, SIZE), LOCAL_WRITE);
        final RmaIov remote = new RmaIov(0, tooLong, 0);
        assumeReadOrWrite();
        if (canRead()) {
            assertFailed(read(local, 0, remote), CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
        }
        if (canWrite()) {
            assertFailed(write(local, 0, remote), CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
        }
    }

    @Test
    void aRegionCoversPositionToLimitAndMovesNeither() {
        final Guarded memory = new Guarded(1, SIZE);
        final ByteBuffer view = memory.view();
        final MemoryRegion region = register(b, view, REMOTE_READ);

        assertThat(region.length()).isEqualTo(SIZE);
        assertThat(region.access()).isEqualTo(REMOTE_READ);
        assertThat(view.position()).isEqualTo(GUARD);
        assertThat(view.limit()).isEqualTo(GUARD + SIZE);
        if (canRead()) {
            final Guarded localMemory = new Guarded(2, SIZE);
            final Completion completion = read(register(a, localMemory, LOCAL_WRITE), 0, region.iov(0, SIZE));
            assertThat(completion).isEqualTo(done(completion, CompletionStatus.OK, SIZE));
            assertThat(localMemory.bytes()).as("the bytes from the buffer's position on")
                    .isEqualTo(patternBytes(1, SIZE));
        }
    }

    @Test
    void writeAccessToAReadOnlyBufferIsMisuse() {
        final ByteBuffer readOnly = pattern(1, SIZE).asReadOnlyBuffer();

        assertThatThrownBy(() -> b.registerMemory(readOnly, REMOTE_WRITE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.registerMemory(readOnly, LOCAL_WRITE)).isInstanceOf(IllegalArgumentException.class);
        final MemoryRegion region = register(b, readOnly, REMOTE_READ);
        if (canRead()) {
            final Guarded localMemory = new Guarded(2, SIZE);
            final Completion completion = read(register(a, localMemory, LOCAL_WRITE), 0, region.iov(0, SIZE));
            assertThat(completion).isEqualTo(done(completion, CompletionStatus.OK, SIZE));
            assertThat(localMemory.bytes()).isEqualTo(patternBytes(1, SIZE));
        }
    }

    @Test
    void aNegativeLocalOffsetIsMisuse() {
        assumeRead();
        final MemoryRegion local = register(a, new Guarded(2, SIZE), LOCAL_WRITE);

        assertThatThrownBy(() -> a.postRead(aToB, b.address().qpn(), b.address().qkey(), local, -1,
                new RmaIov(0, 4, 0), 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDeviceWithoutRdmaReadRefusesToPostOne() {
        final Device initiator = withoutCapability(Capability.RDMA_READ);
        final AddressHandle ah = initiator == a ? aToB : initiator.createAddressHandle(b.address().gid());
        final MemoryRegion local = register(initiator, new Guarded(2, SIZE), LOCAL_WRITE);

        assertThatThrownBy(() -> initiator.postRead(ah, b.address().qpn(), b.address().qkey(), local, 0,
                new RmaIov(0, 4, 0), 1)).isInstanceOf(IllegalStateException.class);
        assertNoCompletion(initiator);
    }

    @Test
    void aDeviceWithoutRdmaWriteRefusesToPostOne() {
        final Device initiator = withoutCapability(Capability.RDMA_WRITE);
        final AddressHandle ah = initiator == a ? aToB : initiator.createAddressHandle(b.address().gid());
        final MemoryRegion local = register(initiator, new Guarded(2, SIZE), NONE);

        assertThatThrownBy(() -> initiator.postWrite(ah, b.address().qpn(), b.address().qkey(), local, 0,
                new RmaIov(0, 4, 0), 1)).isInstanceOf(IllegalStateException.class);
        assertNoCompletion(initiator);
    }

    @Test
    void aTargetWithoutRdmaReadRefusesOne() {
        assumeCapability(Capability.RDMA_READ, a);
        final Device target = option(ReducedCapabilities.class).newDevice(without(Capability.RDMA_READ));
        final MemoryRegion remote = register(target, new Guarded(1, SIZE), REMOTE_READ);
        final Guarded localMemory = new Guarded(2, SIZE);
        final MemoryRegion local = register(a, localMemory, LOCAL_WRITE);
        final AddressHandle ah = a.createAddressHandle(target.address().gid());

        a.postRead(ah, target.address().qpn(), target.address().qkey(), local, 0, remote.iov(0, 4), 7);
        assertThat(awaitOne(a)).isEqualTo(Completion.ofInitiated(7, Opcode.RDMA_READ,
                CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH, 0));
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, SIZE));
    }

    @Test
    void aTargetWithoutRdmaWriteRefusesOneAndWritesNothing() {
        assumeCapability(Capability.RDMA_WRITE, a);
        final Device target = option(ReducedCapabilities.class).newDevice(without(Capability.RDMA_WRITE));
        final Guarded remoteMemory = new Guarded(1, SIZE);
        final MemoryRegion remote = register(target, remoteMemory, REMOTE_WRITE);
        final MemoryRegion local = register(a, new Guarded(2, SIZE), NONE);
        final AddressHandle ah = a.createAddressHandle(target.address().gid());

        a.postWrite(ah, target.address().qpn(), target.address().qkey(), local, 0, remote.iov(0, 4), 7);
        assertThat(awaitOne(a)).isEqualTo(Completion.ofInitiated(7, Opcode.RDMA_WRITE,
                CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH, 0));
        assertThat(remoteMemory.bytes()).isEqualTo(patternBytes(1, SIZE));
        remoteMemory.assertGuardsIntact();
    }

    private Set<Capability> without(Capability capability) {
        final Set<Capability> capabilities = EnumSet.noneOf(Capability.class);
        capabilities.addAll(a.attributes().capabilities());
        capabilities.remove(capability);
        return capabilities;
    }

    /** @return a device of the factory lacking {@code capability}: its own, or a reduced one */
    private Device withoutCapability(Capability capability) {
        if (!a.attributes().has(capability)) {
            return a;
        }
        return option(ReducedCapabilities.class).newDevice(without(capability));
    }
}
