package org.rpcrdma4j.efa.device.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * What {@link EfaSrdDevice} does itself, beyond the conformance kit, over {@link FakeSrdNetwork}: naming a
 * receive's source from the AH number and QPN the NIC reports, EFA's statuses in the SPI's words, trusting
 * a completion no further than what is in flight, the bounds it takes from the NIC and its configuration,
 * capabilities only as the NIC reports them, and a peer that goes away.
 */
class EfaSrdDeviceTest {

    private static final EfaSrdDeviceConfig CONFIG = EfaSrdDeviceConfig.on("fake");

    private final FakeSrdNetwork network = new FakeSrdNetwork(1);

    private static Gid gid(int n) {
        return new Gid(0xfe80_0000_0000_0000L, n);
    }

    private FakeSrdNetwork.FakeNic nic(int host) {
        return network.nic(gid(host), FakeSrdNetwork.Caps.full());
    }

    private static EfaSrdDevice device(SrdNic nic, EfaSrdDeviceConfig config) {
        try {
            return EfaSrdDevice.open(nic, config);
        } catch (VerbsException e) {
            throw new IllegalStateException(e);
        }
    }

    private static EfaSrdDevice device(SrdNic nic) {
        return device(nic, CONFIG);
    }

    /** Carries out what is in flight and returns every completion the device has now. */
    private List<Completion> drain(EfaSrdDevice device) {
        network.progress();
        final List<Completion> got = new ArrayList<>();
        while (device.pollCompletions(got::add, 16) > 0) {
            // until none is left
        }
        return got;
    }

    private static ByteBuffer packet(int tag, int length) {
        final ByteBuffer packet = ByteBuffer.allocateDirect(length);
        for (int i = 0; i < length; i++) {
            packet.put(i, (byte) (tag + i));
        }
        return packet;
    }

    private static void send(EfaSrdDevice from, AddressHandle ah, EfaSrdDevice to, int tag, long wrId) {
        assertThat(from.postSend(ah, to.address().qpn(), to.address().qkey(), packet(tag, 8), wrId)).isTrue();
    }

    @Test
    void aReceiveNamesTheHandleTheNicNumbersItsSenderByAndTheSendersQpn() {
        final EfaSrdDevice receiver = device(nic(1));
        final EfaSrdDevice first = device(nic(2));
        final EfaSrdDevice second = device(nic(2));
        final AddressHandle toSenders = receiver.createAddressHandle(gid(2));
        receiver.postRecv(ByteBuffer.allocate(16), 100);
        receiver.postRecv(ByteBuffer.allocate(16), 101);

        send(first, first.createAddressHandle(gid(1)), receiver, 1, 1);
        send(second, second.createAddressHandle(gid(1)), receiver, 2, 2);
        drain(first);
        drain(second);

        assertThat(drain(receiver)).containsExactlyInAnyOrder(
                Completion.ofReceived(100, 8, toSenders, gid(2), first.address().qpn()),
                Completion.ofReceived(101, 8, toSenders, gid(2), second.address().qpn()));
    }

    @Test
    void aNumberTheNicReusesForAnotherGidDoesNotNameTheOldSender() {
        final FakeSrdNetwork.FakeNic receiverNic = nic(1);
        final EfaSrdDevice receiver = device(receiverNic);
        final EfaSrdDevice sender = device(nic(2));
        final AddressHandle old = receiver.createAddressHandle(gid(2));
        receiver.destroyAddressHandle(old);
        final AddressHandle other = receiver.createAddressHandle(gid(3));
        assertThat(other.ahn()).as("the fake, as EFA, hands the freed number out again").isEqualTo(old.ahn());
        receiver.postRecv(ByteBuffer.allocate(16), 100);

        send(sender, sender.createAddressHandle(gid(1)), receiver, 1, 1);
        drain(sender);

        assertThat(drain(receiver)).containsExactly(
                Completion.ofReceived(100, 8, null, gid(2), sender.address().qpn()));
    }

    @Test
    void withoutSourceGidsAReceiveFromASenderWithoutAHandleComesWithoutAGid() {
        final EfaSrdDevice receiver = device(network.nic(gid(1), withoutSourceGids()));
        final EfaSrdDevice sender = device(nic(2));
        final AddressHandle toReceiver = sender.createAddressHandle(gid(1));
        final ByteBuffer buffer = ByteBuffer.allocate(16);
        receiver.postRecv(buffer, 100);

        send(sender, toReceiver, receiver, 1, 1);
        assertThat(drain(sender)).containsExactly(Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.OK, 8));
        assertThat(drain(receiver)).as("the endpoint names the sender from the packet")
                .containsExactly(Completion.ofReceived(100, 8, null, null, sender.address().qpn()));
        assertThat(buffer.get(0)).as("the packet copied").isEqualTo((byte) 1);
        assertThat(receiver.count(SrdCounter.RECEIVES_UNNAMED)).isEqualTo(1);

        final AddressHandle toSender = receiver.createAddressHandle(gid(2));
        receiver.postRecv(buffer, 101);
        send(sender, toReceiver, receiver, 2, 2);
        drain(sender);
        assertThat(drain(receiver)).containsExactly(
                Completion.ofReceived(101, 8, toSender, gid(2), sender.address().qpn()));
    }

    private static FakeSrdNetwork.Caps withoutSourceGids() {
        final FakeSrdNetwork.Caps full = FakeSrdNetwork.Caps.full();
        return new FakeSrdNetwork.Caps(full.mtu(), full.sendDepth(), full.recvDepth(), full.maxRdmaSize(), true,
                false, false);
    }

    @Test
    void aReceiveOfMoreBytesThanItsBufferCopiesNothingAndFails() {
        final FakeSrdNetwork.FakeNic nic = nic(1);
        final EfaSrdDevice device = device(nic);
        final AddressHandle ah = device.createAddressHandle(gid(2));
        final ByteBuffer buffer = ByteBuffer.allocate(16);
        device.postRecv(buffer, 100);

        network.forgeReceive(nic, 0, 17, 5, ah.ahn(), null);

        assertThat(drain(device)).containsExactly(
                new Completion(100, Opcode.RECV, CompletionStatus.LOCAL_ERROR_BAD_LENGTH, 0, null, null, -1));
        assertThat(device.count(SrdCounter.RECEIVES_MALFORMED)).isEqualTo(1);
        assertThat(device.postRecv(buffer, 101)).as("the receive's entry is free again").isTrue();
    }

    @Test
    void aSourceQpnBeyondSixteenBitsCannotBeNamed() {
        final FakeSrdNetwork.FakeNic nic = nic(1);
        final EfaSrdDevice device = device(nic);
        final AddressHandle ah = device.createAddressHandle(gid(2));
        device.postRecv(ByteBuffer.allocate(16), 100);

        network.forgeReceive(nic, 0, 8, 0x10000, ah.ahn(), null);

        assertThat(drain(device)).containsExactly(
                new Completion(100, Opcode.RECV, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0, null, null, -1));
        assertThat(device.count(SrdCounter.RECEIVES_MALFORMED)).isEqualTo(1);
    }

    @Test
    void aCompletionForNothingInFlightIsDroppedAndCounted() {
        final FakeSrdNetwork.FakeNic nic = nic(1);
        final EfaSrdDevice device = device(nic);
        final EfaSrdDevice peer = device(nic(2));
        final AddressHandle ah = device.createAddressHandle(gid(2));
        device.postRecv(ByteBuffer.allocate(16), 100);

        for (long wrId : new long[] {0, 1L << 60, (1L << 60) | 7, (2L << 60) | 1, (2L << 60) | 9999, -1}) {
            network.forge(nic, new FakeSrdNetwork.Cqe(wrId, 0, 8, 5, ah.ahn(), null, FakeSrdNetwork.Queue.NONE));
        }
        assertThat(drain(device)).isEmpty();
        assertThat(device.count(SrdCounter.STRAY_COMPLETIONS)).isEqualTo(6);

        send(peer, peer.createAddressHandle(gid(1)), device, 1, 1);
        drain(peer);
        assertThat(drain(device)).as("the receive posted still takes a packet").containsExactly(
                Completion.ofReceived(100, 8, ah, gid(2), peer.address().qpn()));
    }

    @Test
    void theQueuesAreWhatTheNicGrantsWhenThatIsLessAndAFullOneRefusesPosts() {
        final FakeSrdNetwork.Caps full = FakeSrdNetwork.Caps.full();
        final EfaSrdDevice device = device(network.nic(gid(1), new FakeSrdNetwork.Caps(full.mtu(), 2, 3,
                full.maxRdmaSize(), true, true, true)));
        final EfaSrdDevice peer = device(nic(2));
        final AddressHandle ah = device.createAddressHandle(gid(2));
        assertThat(device.attributes().maxSendQueueDepth()).isEqualTo(2);
        assertThat(device.attributes().maxRecvQueueDepth()).isEqualTo(3);

        for (int i = 0; i < 3; i++) {
            assertThat(device.postRecv(ByteBuffer.allocate(16), i)).isTrue();
        }
        assertThat(device.postRecv(ByteBuffer.allocate(16), 3)).isFalse();
        send(device, ah, peer, 1, 1);
        send(device, ah, peer, 2, 2);
        assertThat(device.postSend(ah, peer.address().qpn(), peer.address().qkey(), packet(3, 8), 3)).isFalse();
        assertThat(device.postSend(ah, peer.address().qpn(), peer.address().qkey(), packet(3, 8192), 3))
                .as("refused before its length is looked at").isFalse();

        final List<Completion> sent = new ArrayList<>();
        network.progress();
        device.pollCompletions(sent::add, 1);
        assertThat(sent).extracting(Completion::wrId).containsExactly(1L);
        assertThat(device.postSend(ah, peer.address().qpn(), peer.address().qkey(), packet(3, 8), 3)).isTrue();
    }

    @Test
    void aSendWithNoReceivePostedIsReceiverNotReadyAndGoesThroughOnceOneIs() {
        final EfaSrdDevice sender = device(nic(1));
        final EfaSrdDevice receiver = device(nic(2));
        final AddressHandle ah = sender.createAddressHandle(gid(2));

        send(sender, ah, receiver, 1, 1);
        assertThat(drain(sender)).containsExactly(
                Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.REMOTE_ERROR_RNR, 0));
        assertThat(drain(receiver)).isEmpty();

        receiver.postRecv(ByteBuffer.allocate(16), 100);
        send(sender, ah, receiver, 1, 2);
        assertThat(drain(sender)).containsExactly(Completion.ofInitiated(2, Opcode.SEND, CompletionStatus.OK, 8));
        assertThat(drain(receiver)).containsExactly(
                Completion.ofReceived(100, 8, null, gid(1), sender.address().qpn()));
    }

    @Test
    void addressHandlesAreBoundedAndFreedByDestroying() {
        final FakeSrdNetwork.FakeNic nic = nic(1);
        final EfaSrdDevice device = device(nic, CONFIG.withMaxAddressHandles(2));
        final AddressHandle first = device.createAddressHandle(gid(2));
        device.createAddressHandle(gid(3));

        assertThatThrownBy(() -> device.createAddressHandle(gid(4))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bound");
        assertThat(nic.addressHandles()).isEqualTo(2);
        device.destroyAddressHandle(first);
        assertThat(nic.addressHandles()).isEqualTo(1);
        assertThat(device.createAddressHandle(gid(4)).gid()).isEqualTo(gid(4));
    }

    @Test
    void registrationsAreBoundedAndHeapMemoryGoesThroughACopyWrittenBack() {
        final FakeSrdNetwork.FakeNic nic = nic(1);
        final EfaSrdDevice target = device(nic, CONFIG.withMaxRegistrations(1));
        final EfaSrdDevice initiator = device(nic(2));
        final ByteBuffer heap = ByteBuffer.allocate(32);
        final MemoryRegion remote = target.registerMemory(heap, EnumSet.of(Access.REMOTE_WRITE));
        assertThat(target.registerMemory(ByteBuffer.allocateDirect(8), Set.of())).as("over the bound").isNull();
        final MemoryRegion local = initiator.registerMemory(packet(7, 32), Set.of());

        initiator.postWrite(initiator.createAddressHandle(gid(1)), target.address().qpn(), target.address().qkey(),
                local, 0, remote.iov(0, 32), 1);
        assertThat(drain(initiator)).containsExactly(
                Completion.ofInitiated(1, Opcode.RDMA_WRITE, CompletionStatus.OK, 32));
        assertThat(heap.get(0)).as("not before deregistration").isZero();

        target.deregisterMemory(remote);
        assertThat(heap.array()).isEqualTo(bytes(packet(7, 32)));
        assertThat(target.count(SrdCounter.BYTES_COPIED)).isEqualTo(64);
        assertThat(nic.registrations()).as("the device's own slots only").isEqualTo(1);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(buffer.position(), bytes);
        return bytes;
    }

    @Test
    void capabilitiesAreAnnouncedOnlyWhereTheNicHasThemAndTheConfigurationAllows() {
        final FakeSrdNetwork.Caps full = FakeSrdNetwork.Caps.full();
        final FakeSrdNetwork.Caps likeRdmaCore44 = new FakeSrdNetwork.Caps(full.mtu(), full.sendDepth(),
                full.recvDepth(), full.maxRdmaSize(), true, false, true);

        assertThat(device(network.nic(gid(1), likeRdmaCore44)).attributes().capabilities())
                .containsExactly(Capability.RDMA_READ);
        assertThat(device(nic(2), CONFIG.withCapabilities(EnumSet.of(Capability.RDMA_WRITE))).attributes()
                .capabilities()).containsExactly(Capability.RDMA_WRITE);
        assertThat(device(network.nic(gid(3), new FakeSrdNetwork.Caps(full.mtu(), full.sendDepth(), full.recvDepth(),
                full.maxRdmaSize(), false, false, true))).attributes().capabilities()).isEmpty();
    }

    @Test
    void theLargestRdmaIsTheSmallerOfTheNicsAndTheConfiguredAndBeyondItNothingIsPosted() {
        final FakeSrdNetwork.Caps full = FakeSrdNetwork.Caps.full();
        final EfaSrdDevice device = device(network.nic(gid(1), new FakeSrdNetwork.Caps(full.mtu(), full.sendDepth(),
                full.recvDepth(), 64, true, true, true)));
        final EfaSrdDevice peer = device(nic(2), CONFIG.withMaxRdmaSize(16));
        assertThat(device.attributes().maxRdmaSize()).isEqualTo(64);
        assertThat(peer.attributes().maxRdmaSize()).isEqualTo(16);
        final MemoryRegion local = device.registerMemory(ByteBuffer.allocateDirect(128), EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion remote = peer.registerMemory(ByteBuffer.allocateDirect(128), EnumSet.of(Access.REMOTE_READ));

        device.postRead(device.createAddressHandle(gid(2)), peer.address().qpn(), peer.address().qkey(), local, 0,
                remote.iov(0, 65), 1);
        assertThat(network.progress()).as("nothing posted").isZero();
        assertThat(drain(device)).containsExactly(
                Completion.ofInitiated(1, Opcode.RDMA_READ, CompletionStatus.LOCAL_ERROR_BAD_LENGTH, 0));
    }

    @Test
    void aPeerThatWentAwayIsAnAbsentQueuePairToWhatWasInFlightAndWhatComesAfter() {
        final EfaSrdDevice device = device(nic(1));
        final EfaSrdDevice peer = device(nic(2));
        final AddressHandle ah = device.createAddressHandle(gid(2));
        final MemoryRegion remote = peer.registerMemory(ByteBuffer.allocateDirect(16), EnumSet.of(Access.REMOTE_READ));
        final MemoryRegion local = device.registerMemory(ByteBuffer.allocateDirect(16), EnumSet.of(Access.LOCAL_WRITE));
        peer.postRecv(ByteBuffer.allocate(16), 100);
        send(device, ah, peer, 1, 1);

        peer.close();
        send(device, ah, peer, 2, 2);
        device.postRead(ah, peer.address().qpn(), peer.address().qkey(), local, 0, remote.iov(0, 16), 3);

        assertThat(drain(device)).containsExactly(
                Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, 0),
                Completion.ofInitiated(2, Opcode.SEND, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, 0),
                Completion.ofInitiated(3, Opcode.RDMA_READ, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, 0));
    }

    @Test
    void closingGivesTheNicBackEverythingAndLeavesTheCountersReadable() {
        final FakeSrdNetwork.FakeNic nic = nic(1);
        final EfaSrdDevice device = device(nic);
        device.createAddressHandle(gid(2));
        device.registerMemory(ByteBuffer.allocateDirect(16), Set.of());
        device.postRecv(ByteBuffer.allocate(16), 100);

        device.close();

        assertThat(nic.closed()).isTrue();
        assertThat(nic.addressHandles()).isZero();
        assertThat(nic.registrations()).isZero();
        assertThat(device.counters()).containsEntry(SrdCounter.STRAY_COMPLETIONS.name(), 0L);
        assertThatThrownBy(() -> device.postRecv(ByteBuffer.allocate(16), 101)).isInstanceOf(IllegalStateException.class);
    }
}
