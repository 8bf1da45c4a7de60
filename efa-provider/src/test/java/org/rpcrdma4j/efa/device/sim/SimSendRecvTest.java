package org.rpcrdma4j.efa.device.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.efa.device.sim.Sim.drain;
import static org.rpcrdma4j.efa.device.sim.Sim.gid;
import static org.rpcrdma4j.efa.device.sim.Sim.packet;
import static org.rpcrdma4j.efa.device.sim.Sim.text;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.SeedWatcher;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Opcode;

/**
 * What only the simulated device does with sends: its drop counters, a packet over the MTU refused
 * before the wire, a short receive buffer left posted, the packet read when the send executes. What
 * every device must do is the conformance kit's ({@link SimDeviceConformanceTest}).
 */
class SimSendRecvTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    private SimFabric fabric;
    private SimDevice a;
    private SimDevice b;
    private AddressHandle aToB;

    @BeforeEach
    void setUp() {
        fabric = new SimFabric(seed.seed());
        a = fabric.createDevice(gid(1), 7);
        b = fabric.createDevice(gid(2), 9);
        aToB = a.createAddressHandle(b.address().gid());
    }

    private boolean sendToB(ByteBuffer packet, long wrId) {
        return a.postSend(aToB, b.address().qpn(), b.address().qkey(), packet, wrId);
    }

    @Test
    void packetLongerThanTheMtuFailsAtTheSenderWithoutTouchingTheWire() {
        b.postRecv(packet(2 * a.attributes().mtu()), 100);
        assertThat(sendToB(packet(a.attributes().mtu() + 1), 1)).isTrue();

        assertThat(fabric.inFlight()).isZero();
        assertThat(drain(a)).containsExactly(
                Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.LOCAL_ERROR_BAD_LENGTH, 0));
        fabric.progress(0);
        assertThat(drain(b)).isEmpty();
    }

    @Test
    void packetLongerThanTheReceiveBufferFailsAtTheSenderAndLeavesTheBufferPosted() {
        b.postRecv(packet(4), 100);
        sendToB(packet("too long"), 1);
        fabric.progress(0);

        assertThat(drain(a).get(0).status()).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_LENGTH);
        assertThat(drain(b)).isEmpty();
        assertThat(b.dropped(DropReason.RECV_BUFFER_TOO_SHORT)).isEqualTo(1);

        sendToB(packet("fits"), 2);
        fabric.progress(0);
        assertThat(drain(b)).extracting(Completion::wrId).containsExactly(100L);
    }

    @Test
    void receiverNotReadyIsCountedByTheReceiver() {
        sendToB(packet("x"), 1);
        fabric.progress(0);

        assertThat(drain(a)).containsExactly(Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.REMOTE_ERROR_RNR, 0));
        assertThat(b.dropped(DropReason.RNR)).isEqualTo(1);
    }

    @Test
    void sendBufferIsReadWhenTheSendExecutesNotWhenItIsPosted() {
        final ByteBuffer sent = packet("abc");
        final ByteBuffer received = ByteBuffer.allocate(8);
        b.postRecv(received, 100);
        sendToB(sent, 1);
        sent.put(0, (byte) 'X'); // breaks the ownership rule: the device owns it until the completion
        fabric.progress(0);

        assertThat(text(received, 3)).isEqualTo("Xbc");
    }

    @Test
    void aSecondDeviceAtTheSameGidAndQpnIsMisuse() {
        assertThatThrownBy(() -> fabric.createDevice(gid(1), 7)).isInstanceOf(IllegalStateException.class);
    }
}
