package org.rpcrdma4j.efa.device.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * Peers and address handles ({@link Device#address()}, {@link Device#createAddressHandle},
 * {@link Device#destroyAddressHandle}): a peer is named by GID and QPN and reached with its Q-Key
 * (EFA RDM protocol v4 §1.4, §4.4); a receive names its sender's GID and QPN, and the receiver's
 * handle for that GID only if it has one (§2.2); one handle per GID, accepted only by the device
 * that made it and only until destroyed, though what was posted through it still completes; a
 * packet with another Q-Key is dropped by the receiver; an RDMA request with another Q-Key fails and
 * touches nothing; an unreachable GID is {@code LOCAL_ERROR_UNREACH_REMOTE}, an absent QPN
 * {@code REMOTE_ERROR_BAD_DEST_QPN}; a QPN outside 16 bits is misuse.
 */
public abstract class DeviceAddressingConformance extends DeviceConformance {

    private static final ByteBuffer MARKER_TEXT = pattern(0x4D, 8);

    private Device a;
    private Device b;
    private Device c;
    private AddressHandle aToB;

    @BeforeEach
    final void threeDevices() {
        a = newDevice();
        b = newDevice();
        c = newDevice();
        aToB = a.createAddressHandle(b.address().gid());
    }

    private boolean sendToB(ByteBuffer packet, long wrId) {
        return a.postSend(aToB, b.address().qpn(), b.address().qkey(), packet, wrId);
    }

    private static Completion sent(long wrId, CompletionStatus status, int length) {
        return Completion.ofInitiated(wrId, Opcode.SEND, status, length);
    }

    @Test
    void devicesHaveAddressesOfTheirOwn() {
        final List<DeviceAddress> addresses = List.of(a.address(), b.address(), c.address());
        assertThat(addresses).extracting(address -> List.of(address.gid(), address.qpn()))
                .as("GID and QPN name one queue pair").doesNotHaveDuplicates();
        assertThat(aToB.gid()).isEqualTo(b.address().gid());
    }

    @Test
    void aReceiveFromASenderWithoutAHandleNamesItsGidAndQpnOnly() {
        b.postRecv(ByteBuffer.allocateDirect(16), 100);
        sendToB(pattern(1, 8), 1);

        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 8));
        assertThat(awaitOne(b)).isEqualTo(Completion.ofReceived(100, 8, null, a.address().gid(), a.address().qpn()));
    }

    @Test
    void aReceiveNamesTheReceiversHandleForTheSenderUntilItIsDestroyed() {
        final AddressHandle bToA = b.createAddressHandle(a.address().gid());
        b.postRecv(ByteBuffer.allocateDirect(16), 100);
        sendToB(pattern(1, 8), 1);
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 8));
        assertThat(awaitOne(b)).isEqualTo(Completion.ofReceived(100, 8, bToA, a.address().gid(), a.address().qpn()));

        b.destroyAddressHandle(bToA);
        b.postRecv(ByteBuffer.allocateDirect(16), 101);
        sendToB(pattern(2, 8), 2);
        assertThat(awaitOne(a)).isEqualTo(sent(2, CompletionStatus.OK, 8));
        assertThat(awaitOne(b)).isEqualTo(Completion.ofReceived(101, 8, null, a.address().gid(), a.address().qpn()));
    }

    @Test
    void receivesFromTwoSendersAreToldApartByTheirSource() {
        final AddressHandle cToB = c.createAddressHandle(b.address().gid());
        final ByteBuffer first = ByteBuffer.allocateDirect(16);
        final ByteBuffer second = ByteBuffer.allocateDirect(16);
        b.postRecv(first, 100);
        b.postRecv(second, 101);

        sendToB(pattern(1, 8), 1);
        c.postSend(cToB, b.address().qpn(), b.address().qkey(), pattern(2, 12), 2);
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 8));
        assertThat(awaitOne(c)).isEqualTo(sent(2, CompletionStatus.OK, 12));

        for (Completion received : await(b, 2)) {
            final ByteBuffer buffer = received.wrId() == 100 ? first : second;
            if (received.sourceQpn() == a.address().qpn() && received.sourceGid().equals(a.address().gid())) {
                assertThat(received).isEqualTo(Completion.ofReceived(received.wrId(), 8, null, a.address().gid(),
                        a.address().qpn()));
                assertThat(bytes(buffer, 0, 8)).isEqualTo(patternBytes(1, 8));
            } else {
                assertThat(received).isEqualTo(Completion.ofReceived(received.wrId(), 12, null, c.address().gid(),
                        c.address().qpn()));
                assertThat(bytes(buffer, 0, 12)).isEqualTo(patternBytes(2, 12));
            }
        }
    }

    @Test
    void aSecondHandleForAGidIsMisuseUntilTheFirstIsDestroyed() {
        assertThatThrownBy(() -> a.createAddressHandle(b.address().gid())).isInstanceOf(IllegalStateException.class);

        a.destroyAddressHandle(aToB);
        final AddressHandle again = a.createAddressHandle(b.address().gid());
        b.postRecv(ByteBuffer.allocateDirect(16), 100);
        a.postSend(again, b.address().qpn(), b.address().qkey(), pattern(1, 8), 1);

        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 8));
        assertThat(awaitOne(b).status()).isEqualTo(CompletionStatus.OK);
    }

    @Test
    void aHandleAnotherDeviceMadeIsMisuseEvenForTheSameGid() {
        final AddressHandle cToB = c.createAddressHandle(b.address().gid());
        final AddressHandle bToA = b.createAddressHandle(a.address().gid());

        assertThatThrownBy(() -> a.postSend(cToB, b.address().qpn(), b.address().qkey(), pattern(1, 8), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.postSend(bToA, a.address().qpn(), a.address().qkey(), pattern(1, 8), 2))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.destroyAddressHandle(cToB)).isInstanceOf(IllegalArgumentException.class);
        assertThat(c.pollCompletions(x -> { }, 1)).isZero();
        c.destroyAddressHandle(cToB);
    }

    @Test
    void aDestroyedHandleIsMisuse() {
        a.destroyAddressHandle(aToB);

        assertThatThrownBy(() -> sendToB(pattern(1, 8), 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.destroyAddressHandle(aToB)).isInstanceOf(IllegalArgumentException.class);
        if (a.attributes().has(Capability.RDMA_READ)) {
            final MemoryRegion local = Objects.requireNonNull(
                    a.registerMemory(ByteBuffer.allocateDirect(8), EnumSet.of(Access.LOCAL_WRITE)));
            assertThatThrownBy(() -> a.postRead(aToB, b.address().qpn(), b.address().qkey(), local, 0,
                    new RmaIov(0, 4, 0), 2)).isInstanceOf(IllegalArgumentException.class);
        }
        assertNoCompletion(a);
    }

    @Test
    void whatWasPostedThroughAHandleCompletesAfterItIsDestroyed() {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(16);
        b.postRecv(buffer, 100);
        sendToB(pattern(1, 8), 1);
        a.destroyAddressHandle(aToB);

        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 8));
        assertThat(awaitOne(b)).isEqualTo(Completion.ofReceived(100, 8, null, a.address().gid(), a.address().qpn()));
        assertThat(bytes(buffer, 0, 8)).isEqualTo(patternBytes(1, 8));
    }

    @Test
    void aPacketWithAnotherQkeyIsDroppedByTheReceiver() {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(16);
        b.postRecv(buffer, 100);

        a.postSend(aToB, b.address().qpn(), b.address().qkey() ^ 0x5A5A5A5A, pattern(1, 8), 1);
        // The SPI says the destination drops it; what the sender's completion says it leaves open.
        final Completion dropped = awaitOne(a);
        assertThat(dropped.wrId()).isEqualTo(1);
        assertThat(dropped.opcode()).isEqualTo(Opcode.SEND);

        sendToB(MARKER_TEXT.duplicate(), 2);
        assertThat(awaitOne(a)).isEqualTo(sent(2, CompletionStatus.OK, 8));
        assertThat(awaitOne(b)).as("the marker, in the buffer the dropped packet left posted")
                .isEqualTo(Completion.ofReceived(100, 8, null, a.address().gid(), a.address().qpn()));
        assertThat(bytes(buffer, 0, 8)).isEqualTo(bytes(MARKER_TEXT, 0, 8));
    }

    @Test
    void rdmaWithAnotherQkeyFailsAndTouchesNothing() {
        assumeCapability(Capability.RDMA_READ, a, b);
        final Guarded remoteMemory = new Guarded(1, 16);
        final Guarded localMemory = new Guarded(2, 16);
        final MemoryRegion remote = Objects.requireNonNull(b.registerMemory(remoteMemory.view(),
                EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE)));
        final MemoryRegion local = Objects.requireNonNull(a.registerMemory(localMemory.view(),
                EnumSet.of(Access.LOCAL_WRITE)));
        final int otherQkey = b.address().qkey() ^ 0x5A5A5A5A;

        a.postRead(aToB, b.address().qpn(), otherQkey, local, 0, remote.iov(0, 16), 1);
        assertRefused(awaitOne(a), 1, Opcode.RDMA_READ);
        if (a.attributes().has(Capability.RDMA_WRITE) && b.attributes().has(Capability.RDMA_WRITE)) {
            a.postWrite(aToB, b.address().qpn(), otherQkey, local, 0, remote.iov(0, 16), 2);
            assertRefused(awaitOne(a), 2, Opcode.RDMA_WRITE);
        }
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, 16));
        assertThat(remoteMemory.bytes()).isEqualTo(patternBytes(1, 16));
        localMemory.assertGuardsIntact();
        remoteMemory.assertGuardsIntact();
    }

    private static void assertRefused(Completion completion, long wrId, Opcode opcode) {
        assertThat(completion.wrId()).isEqualTo(wrId);
        assertThat(completion.opcode()).isEqualTo(opcode);
        assertThat(completion.status()).isNotEqualTo(CompletionStatus.OK);
        assertThat(completion).isEqualTo(Completion.ofInitiated(wrId, opcode, completion.status(), 0));
    }

    @Test
    void anUnreachableGidIsLocalErrorUnreachRemote() {
        final Gid nowhere = factory().unreachableGid();
        final AddressHandle ah = a.createAddressHandle(nowhere);

        a.postSend(ah, 1, 0, pattern(1, 8), 1);
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0));
        if (a.attributes().has(Capability.RDMA_READ)) {
            final MemoryRegion local = Objects.requireNonNull(
                    a.registerMemory(ByteBuffer.allocateDirect(8), EnumSet.of(Access.LOCAL_WRITE)));
            a.postRead(ah, 1, 0, local, 0, new RmaIov(0, 4, 0), 2);
            assertThat(awaitOne(a)).isEqualTo(Completion.ofInitiated(2, Opcode.RDMA_READ,
                    CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0));
        }
    }

    @Test
    void anAbsentQpnIsRemoteErrorBadDestQpn() {
        final int absent = factory().absentQpn(b.address().gid());
        b.postRecv(ByteBuffer.allocateDirect(16), 100);

        a.postSend(aToB, absent, b.address().qkey(), pattern(1, 8), 1);
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, 0));
        if (a.attributes().has(Capability.RDMA_READ)) {
            final MemoryRegion local = Objects.requireNonNull(
                    a.registerMemory(ByteBuffer.allocateDirect(8), EnumSet.of(Access.LOCAL_WRITE)));
            a.postRead(aToB, absent, b.address().qkey(), local, 0, new RmaIov(0, 4, 0), 2);
            assertThat(awaitOne(a)).isEqualTo(Completion.ofInitiated(2, Opcode.RDMA_READ,
                    CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, 0));
        }
        assertNoCompletion(b);
    }

    @Test
    void aQpnOutsideSixteenBitsIsMisuse() {
        final int qkey = b.address().qkey();
        assertThatThrownBy(() -> a.postSend(aToB, DeviceAddress.MAX_QPN + 1, qkey, pattern(1, 8), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.postSend(aToB, -1, qkey, pattern(1, 8), 1))
                .isInstanceOf(IllegalArgumentException.class);
        final MemoryRegion local = Objects.requireNonNull(
                a.registerMemory(ByteBuffer.allocateDirect(8), EnumSet.of(Access.LOCAL_WRITE)));
        if (a.attributes().has(Capability.RDMA_READ)) {
            assertThatThrownBy(() -> a.postRead(aToB, DeviceAddress.MAX_QPN + 1, qkey, local, 0, new RmaIov(0, 4, 0), 2))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        if (a.attributes().has(Capability.RDMA_WRITE)) {
            assertThatThrownBy(() -> a.postWrite(aToB, DeviceAddress.MAX_QPN + 1, qkey, local, 0, new RmaIov(0, 4, 0), 3))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertNoCompletion(a);
    }
}
