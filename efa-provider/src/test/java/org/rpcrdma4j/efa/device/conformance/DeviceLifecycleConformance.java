package org.rpcrdma4j.efa.device.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
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
import org.rpcrdma4j.efa.device.DeviceAttributes;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * Closing a device ({@link Device#close()}): closing again does nothing; every later call but
 * {@code close} that changes or polls the device throws {@link IllegalStateException}; a peer's
 * operations towards it fail as towards a QPN that does not exist, its registrations unreachable
 * and untouched; a device closed with work in flight costs the others nothing: each of their
 * operations completes once and they go on.
 * {@code address()} and {@code attributes()} answer as before once closed.
 */
public abstract class DeviceLifecycleConformance extends DeviceConformance {

    private Device a;
    private Device b;
    private AddressHandle aToB;

    @BeforeEach
    final void twoDevices() {
        a = newDevice();
        b = newDevice();
        aToB = a.createAddressHandle(b.address().gid());
    }

    @Test
    void closingAgainDoesNothing() {
        b.close();
        b.close();
    }

    @Test
    void everyCallButCloseAddressAndAttributesThrowsOnceClosed() {
        final MemoryRegion region = Objects.requireNonNull(
                a.registerMemory(ByteBuffer.allocateDirect(16), EnumSet.of(Access.LOCAL_WRITE)));
        final RmaIov remote = new RmaIov(0, 4, 0);
        final DeviceAddress address = a.address();
        final DeviceAttributes attributes = a.attributes();
        a.close();

        assertThat(a.address()).isEqualTo(address);
        assertThat(a.attributes()).isEqualTo(attributes);

        assertThatThrownBy(() -> a.createAddressHandle(factory().unreachableGid()))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.destroyAddressHandle(aToB)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.registerMemory(ByteBuffer.allocateDirect(8), EnumSet.noneOf(Access.class)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.deregisterMemory(region)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.postSend(aToB, b.address().qpn(), b.address().qkey(), pattern(1, 8), 1))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.postRecv(ByteBuffer.allocateDirect(8), 2)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.postRead(aToB, b.address().qpn(), b.address().qkey(), region, 0, remote, 3))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.postWrite(aToB, b.address().qpn(), b.address().qkey(), region, 0, remote, 4))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.pollCompletions(c -> { }, 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void sendingToAClosedDeviceFailsAsToAnAbsentQpn() {
        final int absent = factory().absentQpn(b.address().gid());
        b.postRecv(ByteBuffer.allocateDirect(16), 100);
        b.close();

        a.postSend(aToB, b.address().qpn(), b.address().qkey(), pattern(1, 8), 1);
        final Completion toClosed = awaitOne(a);
        a.postSend(aToB, absent, b.address().qkey(), pattern(1, 8), 2);
        final Completion toAbsent = awaitOne(a);

        assertThat(toClosed.status()).isIn(CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN,
                CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE);
        assertThat(toClosed).isEqualTo(Completion.ofInitiated(1, Opcode.SEND, toAbsent.status(), 0));
        assertThat(toAbsent).isEqualTo(Completion.ofInitiated(2, Opcode.SEND, toClosed.status(), 0));
    }

    @Test
    void theRegistrationsOfAClosedDeviceAreOutOfReach() {
        final Guarded remoteMemory = new Guarded(1, 32);
        final Guarded localMemory = new Guarded(2, 32);
        final MemoryRegion remote = Objects.requireNonNull(b.registerMemory(remoteMemory.view(),
                EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE)));
        final MemoryRegion local = Objects.requireNonNull(a.registerMemory(localMemory.view(),
                EnumSet.of(Access.LOCAL_WRITE)));
        final boolean read = a.attributes().has(Capability.RDMA_READ) && b.attributes().has(Capability.RDMA_READ);
        final boolean write = a.attributes().has(Capability.RDMA_WRITE) && b.attributes().has(Capability.RDMA_WRITE);
        assumeTrue(read || write,
                () -> "the device under test has neither RDMA read nor RDMA write (" + a.attributes() + ")");
        b.close();

        if (read) {
            a.postRead(aToB, b.address().qpn(), b.address().qkey(), local, 0, remote.iov(0, 32), 1);
            final Completion completion = awaitOne(a);
            assertThat(completion.status()).isNotEqualTo(CompletionStatus.OK);
            assertThat(completion).isEqualTo(Completion.ofInitiated(1, Opcode.RDMA_READ, completion.status(), 0));
        }
        if (write) {
            a.postWrite(aToB, b.address().qpn(), b.address().qkey(), local, 0, remote.iov(0, 32), 2);
            final Completion completion = awaitOne(a);
            assertThat(completion.status()).isNotEqualTo(CompletionStatus.OK);
            assertThat(completion).isEqualTo(Completion.ofInitiated(2, Opcode.RDMA_WRITE, completion.status(), 0));
        }
        assertThat(localMemory.bytes()).isEqualTo(patternBytes(2, 32));
        assertThat(remoteMemory.bytes()).isEqualTo(patternBytes(1, 32));
        localMemory.assertGuardsIntact();
        remoteMemory.assertGuardsIntact();
    }

    @Test
    void aDeviceClosedWithWorkInFlightCostsTheOthersNothing() {
        final Device c = newDevice();
        final AddressHandle bToC = b.createAddressHandle(c.address().gid());
        final AddressHandle aToC = a.createAddressHandle(c.address().gid());
        for (int i = 0; i < 4; i++) {
            b.postRecv(ByteBuffer.allocateDirect(16), 100 + i);
            c.postRecv(ByteBuffer.allocateDirect(16), 200 + i);
        }
        for (int i = 0; i < 4; i++) {
            a.postSend(aToB, b.address().qpn(), b.address().qkey(), pattern(i, 8), i);
        }
        b.postSend(bToC, c.address().qpn(), c.address().qkey(), pattern(9, 8), 9);
        b.close();

        assertThat(await(a, 4)).as("each send to the closed device completes once")
                .extracting(Completion::wrId).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);

        // c may or may not have received b's packet; a and c talk on regardless.
        final ByteBuffer packet = pattern(5, 12);
        a.postSend(aToC, c.address().qpn(), c.address().qkey(), packet, 5);
        assertThat(awaitOne(a)).isEqualTo(Completion.ofInitiated(5, Opcode.SEND, CompletionStatus.OK, 12));
        Completion received;
        do {
            received = awaitOne(c);
            assertThat(received.status()).isEqualTo(CompletionStatus.OK);
        } while (received.sourceQpn() != a.address().qpn() || !received.sourceGid().equals(a.address().gid()));
        assertThat(received.byteLength()).isEqualTo(12);
    }
}
