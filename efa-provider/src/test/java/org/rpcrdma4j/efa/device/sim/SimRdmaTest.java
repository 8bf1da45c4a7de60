package org.rpcrdma4j.efa.device.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.efa.device.sim.Sim.drain;
import static org.rpcrdma4j.efa.device.sim.Sim.gid;
import static org.rpcrdma4j.efa.device.sim.Sim.text;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.SeedWatcher;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

class SimRdmaTest {

    private static final EnumSet<Access> ALL_REMOTE = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    private SimFabric fabric;
    private SimDevice a;
    private SimDevice b;
    private AddressHandle aToB;
    private ByteBuffer localMemory;
    private MemoryRegion local;
    private ByteBuffer remoteMemory;

    @BeforeEach
    void setUp() {
        fabric = new SimFabric(seed.seed());
        a = fabric.createDevice(gid(1), 1);
        b = fabric.createDevice(gid(2), 2);
        aToB = a.createAddressHandle(b.address().gid());
        localMemory = ByteBuffer.allocate(64);
        local = a.registerMemory(localMemory, EnumSet.of(Access.LOCAL_WRITE));
        remoteMemory = ByteBuffer.wrap("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    }

    private CompletionStatus read(MemoryRegion into, long offset, RmaIov remote) {
        assertThat(a.postRead(aToB, 2, b.address().qkey(), into, offset, remote, 1)).isTrue();
        fabric.progress(fabric.nowNs());
        final Completion completion = drain(a).get(0);
        assertThat(completion.opcode()).isEqualTo(Opcode.RDMA_READ);
        return completion.status();
    }

    private CompletionStatus write(MemoryRegion from, long offset, RmaIov remote) {
        assertThat(a.postWrite(aToB, 2, b.address().qkey(), from, offset, remote, 1)).isTrue();
        fabric.progress(fabric.nowNs());
        final Completion completion = drain(a).get(0);
        assertThat(completion.opcode()).isEqualTo(Opcode.RDMA_WRITE);
        return completion.status();
    }

    @Test
    void readCopiesTheRemoteBytesIntoTheLocalRegion() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, EnumSet.of(Access.REMOTE_READ));

        assertThat(a.postRead(aToB, 2, b.address().qkey(), local, 8, remote.iov(4, 6), 1)).isTrue();
        fabric.progress(0);

        assertThat(drain(a)).containsExactly(Completion.ofInitiated(1, Opcode.RDMA_READ, CompletionStatus.OK, 6));
        assertThat(text(localMemory.position(8), 6)).isEqualTo("456789");
        assertThat(drain(b)).as("one-sided: nothing completes at the target").isEmpty();
    }

    @Test
    void writeCopiesTheLocalBytesIntoTheRemoteRegion() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, EnumSet.of(Access.REMOTE_WRITE));
        localMemory.put(0, "WXYZ".getBytes(StandardCharsets.US_ASCII));

        assertThat(write(local, 0, remote.iov(10, 4))).isEqualTo(CompletionStatus.OK);
        assertThat(text(remoteMemory, 16)).isEqualTo("0123456789WXYZef");
    }

    @Test
    void readWithAnUnknownKeyIsARemoteAccessError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);
        final RmaIov wrongKey = new RmaIov(remote.address(), 4, remote.key() + 1);

        assertThat(read(local, 0, wrongKey)).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(localMemory.getInt(0)).as("local memory untouched").isZero();
        assertThat(b.dropped(DropReason.REMOTE_ACCESS_DENIED)).isEqualTo(1);
    }

    @Test
    void readPastTheEndOfTheRegionIsARemoteAccessError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);

        assertThat(read(local, 0, new RmaIov(remote.address() + 12, 5, remote.key())))
                .isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(localMemory.getInt(0)).isZero();
    }

    @Test
    void readBeforeTheStartOfTheRegionIsARemoteAccessError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);

        assertThat(read(local, 0, new RmaIov(remote.address() - 1, 4, remote.key())))
                .isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
    }

    @Test
    void readWhoseEndWouldWrapPast2To64IsARemoteAccessError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);

        assertThat(read(local, 0, new RmaIov(-2L, 4, remote.key()))).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
    }

    @Test
    void readWithoutTheRemoteReadRightIsARemoteAccessError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, EnumSet.of(Access.REMOTE_WRITE));

        assertThat(read(local, 0, remote.iov(0, 4))).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
    }

    @Test
    void writeWithoutTheRemoteWriteRightIsARemoteAccessErrorAndWritesNothing() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, EnumSet.of(Access.REMOTE_READ));
        localMemory.put(0, "WXYZ".getBytes(StandardCharsets.US_ASCII));

        assertThat(write(local, 0, remote.iov(0, 4))).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(text(remoteMemory, 4)).isEqualTo("0123");
    }

    @Test
    void readIntoARegionWithoutTheLocalWriteRightIsALocalKeyError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);
        final MemoryRegion readOnly = a.registerMemory(ByteBuffer.allocate(16), EnumSet.noneOf(Access.class));

        assertThat(read(readOnly, 0, remote.iov(0, 4))).isEqualTo(CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
    }

    @Test
    void localRangeOutsideTheLocalRegionIsALocalKeyError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);

        assertThat(read(local, 60, remote.iov(0, 8))).isEqualTo(CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
        assertThat(read(local, Long.MAX_VALUE, remote.iov(0, 8))).isEqualTo(CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
    }

    @Test
    void rdmaOverOneGibIsALocalLengthErrorWithoutTouchingTheWire() {
        final RmaIov tooLong = new RmaIov(0, SimDeviceConfig.MAX_RDMA_SIZE + 1, 0);

        assertThat(a.postRead(aToB, 2, b.address().qkey(), local, 0, tooLong, 1)).isTrue();
        assertThat(a.postWrite(aToB, 2, b.address().qkey(), local, 0, tooLong, 2)).isTrue();

        assertThat(fabric.inFlight()).isZero();
        assertThat(drain(a)).extracting(Completion::status).containsOnly(CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
    }

    @Test
    void rdmaOfExactlyOneGibPassesTheLengthCheck() {
        final RmaIov oneGib = new RmaIov(0, SimDeviceConfig.MAX_RDMA_SIZE, 0);

        assertThat(a.attributes().maxRdmaSize()).isEqualTo(1L << 30);
        assertThat(read(local, 0, oneGib)).as("refused later, by the 64-byte local region")
                .isEqualTo(CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
    }

    @Test
    void writeIsRefusedWhenTheDeviceHasNoRdmaWrite() {
        final SimDevice readOnly = fabric.createDevice(gid(3), 3,
                SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.of(Capability.RDMA_READ)));
        final AddressHandle ah = readOnly.createAddressHandle(b.address().gid());
        final MemoryRegion from = readOnly.registerMemory(ByteBuffer.allocate(8), EnumSet.noneOf(Access.class));
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);

        assertThat(readOnly.attributes().has(Capability.RDMA_WRITE)).isFalse();
        assertThatThrownBy(() -> readOnly.postWrite(ah, 2, b.address().qkey(), from, 0, remote.iov(0, 4), 1))
                .isInstanceOf(IllegalStateException.class);
        assertThat(fabric.inFlight()).isZero();
    }

    @Test
    void writeIsRefusedWhenTheTargetHasNoRdmaWrite() {
        final SimDevice target = fabric.createDevice(gid(3), 3,
                SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.of(Capability.RDMA_READ)));
        final MemoryRegion remote = target.registerMemory(remoteMemory, ALL_REMOTE);
        final AddressHandle ah = a.createAddressHandle(target.address().gid());

        a.postWrite(ah, 3, target.address().qkey(), local, 0, remote.iov(0, 4), 1);
        fabric.progress(0);

        assertThat(drain(a)).extracting(Completion::status).containsExactly(CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH);
        assertThat(text(remoteMemory, 4)).isEqualTo("0123");
        assertThat(target.dropped(DropReason.CAPABILITY_OFF)).isEqualTo(1);
    }

    @Test
    void readIsRefusedWhenTheDeviceHasNoRdmaRead() {
        final SimDevice noRdma = fabric.createDevice(gid(3), 3,
                SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.noneOf(Capability.class)));
        final AddressHandle ah = noRdma.createAddressHandle(b.address().gid());
        final MemoryRegion into = noRdma.registerMemory(ByteBuffer.allocate(8), EnumSet.of(Access.LOCAL_WRITE));

        assertThatThrownBy(() -> noRdma.postRead(ah, 2, b.address().qkey(), into, 0, new RmaIov(0, 4, 0), 1))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void accessAfterDeregistrationFails() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);
        assertThat(read(local, 0, remote.iov(0, 4))).isEqualTo(CompletionStatus.OK);

        b.deregisterMemory(remote);

        assertThat(read(local, 0, remote.iov(0, 4))).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThatThrownBy(() -> b.deregisterMemory(remote)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNewRegistrationGetsANewKeySoAnOldKeyStaysInvalid() {
        final MemoryRegion first = b.registerMemory(remoteMemory, ALL_REMOTE);
        b.deregisterMemory(first);
        final MemoryRegion second = b.registerMemory(remoteMemory, ALL_REMOTE);

        assertThat(second.key()).isNotEqualTo(first.key());
        assertThat(read(local, 0, first.iov(0, 4))).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
    }

    @Test
    void localRegionDeregisteredBeforeTheReadExecutesIsALocalKeyError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);
        a.postRead(aToB, 2, b.address().qkey(), local, 0, remote.iov(0, 4), 1);
        a.deregisterMemory(local);
        fabric.progress(0);

        assertThat(drain(a)).extracting(Completion::status).containsExactly(CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
        assertThat(localMemory.getInt(0)).isZero();
    }

    @Test
    void registrationsCoverPositionToLimitAtDistinctAddressesAbove2To63() {
        final MemoryRegion first = b.registerMemory(remoteMemory.position(4), ALL_REMOTE);
        final MemoryRegion second = b.registerMemory(ByteBuffer.allocate(8192), ALL_REMOTE);

        assertThat(first.length()).isEqualTo(12);
        assertThat(first.address()).isNegative();
        assertThat(second.contains(first.address(), 1)).isFalse();
        assertThat(Long.compareUnsigned(second.address(), first.address() + first.length())).isPositive();
        assertThat(read(local, 0, first.iov(0, 2))).isEqualTo(CompletionStatus.OK);
        assertThat(text(localMemory.position(0), 2)).isEqualTo("45");
    }

    @Test
    void writeAccessOnAReadOnlyBufferIsMisuse() {
        assertThatThrownBy(() -> b.registerMemory(remoteMemory.asReadOnlyBuffer(), EnumSet.of(Access.REMOTE_WRITE)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(b.registerMemory(remoteMemory.asReadOnlyBuffer(), EnumSet.of(Access.REMOTE_READ))).isNotNull();
    }

    @Test
    void negativeLocalOffsetIsMisuse() {
        assertThatThrownBy(() -> a.postRead(aToB, 2, 0, local, -1, new RmaIov(0, 4, 0), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
