package org.rpcrdma4j.efa.device.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.efa.device.sim.Sim.drain;
import static org.rpcrdma4j.efa.device.sim.Sim.gid;
import static org.rpcrdma4j.efa.device.sim.Sim.packet;
import static org.rpcrdma4j.efa.device.sim.Sim.text;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.SeedWatcher;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Opcode;

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
    void sendIsReceivedIntoThePostedBufferAndBothSidesComplete() {
        final ByteBuffer buffer = ByteBuffer.allocate(64).position(8);
        assertThat(b.postRecv(buffer, 100)).isTrue();
        assertThat(sendToB(packet("hello"), 1)).isTrue();

        assertThat(fabric.progress(0)).isEqualTo(1);

        assertThat(drain(a)).containsExactly(Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.OK, 5));
        final List<Completion> received = drain(b);
        assertThat(received).hasSize(1);
        assertThat(received.get(0).wrId()).isEqualTo(100);
        assertThat(received.get(0).opcode()).isEqualTo(Opcode.RECV);
        assertThat(received.get(0).status()).isEqualTo(CompletionStatus.OK);
        assertThat(received.get(0).byteLength()).isEqualTo(5);
        assertThat(text(buffer, 5)).isEqualTo("hello");
        assertThat(buffer.position()).as("the device moves no position").isEqualTo(8);
    }

    @Test
    void receiveFromAnUnknownSenderCarriesNoAddressHandleButItsGidAndQpn() {
        b.postRecv(packet(64), 100);
        sendToB(packet("x"), 1);
        fabric.progress(0);

        final Completion received = drain(b).get(0);
        assertThat(received.sourceAh()).isNull();
        assertThat(received.sourceGid()).isEqualTo(a.address().gid());
        assertThat(received.sourceQpn()).isEqualTo(7);
    }

    @Test
    void receiveCarriesTheAddressHandleOnceTheReceiverHasOne() {
        final AddressHandle bToA = b.createAddressHandle(a.address().gid());
        b.postRecv(packet(64), 100);
        sendToB(packet("x"), 1);
        fabric.progress(0);

        assertThat(drain(b).get(0).sourceAh()).isEqualTo(bToA);
    }

    @Test
    void receiveAfterTheHandleIsDestroyedCarriesNoneAgain() {
        b.destroyAddressHandle(b.createAddressHandle(a.address().gid()));
        b.postRecv(packet(64), 100);
        sendToB(packet("x"), 1);
        fabric.progress(0);

        assertThat(drain(b).get(0).sourceAh()).isNull();
    }

    @Test
    void packetOfExactlyTheMtuIsSent() {
        b.postRecv(packet(a.attributes().mtu()), 100);
        sendToB(packet(a.attributes().mtu()), 1);
        fabric.progress(0);

        assertThat(drain(a).get(0).status()).isEqualTo(CompletionStatus.OK);
        assertThat(drain(b).get(0).byteLength()).isEqualTo(a.attributes().mtu());
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
    void receiverNotReadyWhenNoReceiveIsPostedThenDeliveredOnceOneIs() {
        sendToB(packet("x"), 1);
        fabric.progress(0);

        assertThat(drain(a)).containsExactly(Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.REMOTE_ERROR_RNR, 0));
        assertThat(b.dropped(DropReason.RNR)).isEqualTo(1);

        b.postRecv(packet(8), 100);
        sendToB(packet("x"), 2);
        fabric.progress(0);
        assertThat(drain(a).get(0).status()).isEqualTo(CompletionStatus.OK);
        assertThat(drain(b)).hasSize(1);
    }

    @Test
    void injectedRnrRefusesAPacketEvenWithAReceivePosted() {
        fabric.setLinkFaults(a, b, FaultPlan.NONE.withRnr(1.0));
        b.postRecv(packet(8), 100);
        sendToB(packet("x"), 1);
        fabric.progress(0);

        assertThat(drain(a).get(0).status()).isEqualTo(CompletionStatus.REMOTE_ERROR_RNR);
        assertThat(drain(b)).isEmpty();
    }

    @Test
    void fullSendQueueRefusesPostsUntilCompletionsArePolled() {
        final SimDevice small = fabric.createDevice(gid(3), 1, SimDeviceConfig.DEFAULT.withSendQueueDepth(2));
        final AddressHandle ah = small.createAddressHandle(b.address().gid());
        b.postRecv(packet(8), 100);
        b.postRecv(packet(8), 101);

        assertThat(small.postSend(ah, 9, b.address().qkey(), packet("1"), 1)).isTrue();
        assertThat(small.postSend(ah, 9, b.address().qkey(), packet("2"), 2)).isTrue();
        assertThat(small.postSend(ah, 9, b.address().qkey(), packet("3"), 3)).as("EAGAIN").isFalse();

        fabric.progress(0);
        assertThat(small.postSend(ah, 9, b.address().qkey(), packet("3"), 3))
                .as("executed but not yet polled: the entries are still taken").isFalse();

        assertThat(small.pollCompletions(c -> { }, 1)).isEqualTo(1);
        assertThat(small.postSend(ah, 9, b.address().qkey(), packet("3"), 3)).isTrue();
        assertThat(fabric.inFlight()).isEqualTo(1);
    }

    @Test
    void fullReceiveQueueRefusesPostsUntilCompletionsArePolled() {
        final SimDevice small = fabric.createDevice(gid(3), 1, SimDeviceConfig.DEFAULT.withRecvQueueDepth(1));
        final AddressHandle ah = a.createAddressHandle(small.address().gid());
        assertThat(small.postRecv(packet(8), 100)).isTrue();
        assertThat(small.postRecv(packet(8), 101)).isFalse();

        a.postSend(ah, 1, small.address().qkey(), packet("x"), 1);
        fabric.progress(0);
        assertThat(small.postRecv(packet(8), 101)).isFalse();
        assertThat(drain(small)).hasSize(1);
        assertThat(small.postRecv(packet(8), 101)).isTrue();
    }

    @Test
    void sendToAnAbsentQpnOrGidFailsWithTheDevicesStatus() {
        final AddressHandle nowhere = a.createAddressHandle(gid(99));
        a.postSend(aToB, 1234, 0, packet("x"), 1);
        a.postSend(nowhere, 9, 0, packet("x"), 2);
        fabric.progress(0);

        assertThat(drain(a)).extracting(Completion::status).containsExactly(
                CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE);
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
    void aHandleThisDeviceDidNotMakeOrHasDestroyedIsMisuse() {
        final AddressHandle bToA = b.createAddressHandle(a.address().gid());
        assertThatThrownBy(() -> a.postSend(bToA, 7, 0, packet("x"), 1)).isInstanceOf(IllegalArgumentException.class);
        final SimDevice c = fabric.createDevice(gid(3), 3);
        final AddressHandle cToB = c.createAddressHandle(b.address().gid());
        assertThat(cToB).as("handle numbers are per device").isEqualTo(aToB);
        assertThatThrownBy(() -> a.postSend(cToB, 9, 0, packet("x"), 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.destroyAddressHandle(cToB)).isInstanceOf(IllegalArgumentException.class);

        a.destroyAddressHandle(aToB);
        assertThatThrownBy(() -> sendToB(packet("x"), 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.destroyAddressHandle(aToB)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSecondHandleForTheSameGidIsMisuse() {
        assertThatThrownBy(() -> a.createAddressHandle(b.address().gid())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void argumentsAreCheckedAsMisuse() {
        assertThatThrownBy(() -> a.postSend(aToB, 65536, 0, packet("x"), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.postRecv(packet(8).asReadOnlyBuffer(), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.pollCompletions(c -> { }, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fabric.createDevice(gid(1), 7)).isInstanceOf(IllegalStateException.class);
    }
}
