package org.rpcrdma4j.efa.device.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;

/**
 * What the verbs device does with its connections that the conformance kit does not see (issue 24
 * §3): receiver-not-ready as the receiver's verdict, flushed work after a lost connection, a peer that
 * restarts, bounded queues and peers, a remote access error, crossing connects, and what a peer's
 * private data may not do. Over {@link FakeRcNetwork}; every wait is a bounded number of progress
 * rounds, nothing depends on time.
 */
class VerbsDeviceTest {

    private final FakeRcNetwork network = new FakeRcNetwork();
    private final List<VerbsDevice> devices = new ArrayList<>();
    private final List<FakeRcNetwork.FakeNic> nics = new ArrayList<>();

    @AfterEach
    void closeDevices() {
        devices.forEach(VerbsDevice::close);
    }

    private VerbsDevice open(int host, int port, VerbsDeviceConfig config) throws Exception {
        final InetAddress ip = InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) host});
        final FakeRcNetwork.FakeNic nic = network.nic(ip);
        final VerbsDevice device = VerbsDevice.open(nic, config.withBindAddress(new InetSocketAddress(ip, port)));
        devices.add(device);
        nics.add(nic);
        return device;
    }

    private VerbsDevice open(int host) throws Exception {
        return open(host, 0, VerbsDeviceConfig.on(new InetSocketAddress(0)));
    }

    /** Progresses every device until nothing more happens, and returns what {@code device} completed. */
    private List<Completion> settle(VerbsDevice device) {
        for (int round = 0; round < 20; round++) {
            devices.forEach(VerbsDevice::progress);
        }
        final List<Completion> completions = new ArrayList<>();
        device.pollCompletions(completions::add, 1024);
        return completions;
    }

    private static ByteBuffer packet(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static AddressHandle handle(VerbsDevice from, VerbsDevice to) {
        return from.createAddressHandle(to.address().gid());
    }

    private static boolean send(VerbsDevice from, AddressHandle ah, VerbsDevice to, int qkey, String text, long wrId) {
        return from.postSend(ah, to.address().qpn(), qkey, packet(text), wrId);
    }

    private static String text(ByteBuffer buffer, Completion completion) {
        final byte[] bytes = new byte[completion.byteLength()];
        buffer.get(buffer.position(), bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    @Test
    void aDeviceWhoseProgressThreadSleepsUntilWokenStillConnectsAndReceives() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        b.postRecv(buffer, 7);
        final Semaphore woken = new Semaphore(0);
        assertThat(b.armCompletionNotification(woken::release)).as("nothing to poll yet: armed").isTrue();

        send(a, handle(a, b), b, b.address().qkey(), "wakes", 1);
        // b runs only when its notifier wakes it: the connect request, then the message, each wake b up.
        final List<Completion> atB = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (atB.isEmpty() && System.nanoTime() - deadline < 0) {
            a.progress();
            if (woken.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                while (!b.armCompletionNotification(woken::release)) {
                    b.pollCompletions(atB::add, 16);
                }
            }
        }

        assertThat(atB).singleElement().satisfies(c -> {
            assertThat(c.wrId()).isEqualTo(7);
            assertThat(text(buffer, c)).isEqualTo("wakes");
        });
        assertThat(settle(a)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
    }

    @Test
    void armingWhileACompletionWaitsIsRefusedSoTheCallerPolls() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        b.postRecv(ByteBuffer.allocateDirect(64), 7);
        send(a, handle(a, b), b, b.address().qkey(), "waiting", 1);
        for (int round = 0; round < 20; round++) {
            a.progress();
            b.progress();
        }

        assertThat(b.armCompletionNotification(() -> { })).as("the receive is there to poll").isFalse();
        assertThat(settle(b)).singleElement().satisfies(c -> assertThat(c.wrId()).isEqualTo(7));
    }

    @Test
    void closingEndsTheNotifiersThread() throws Exception {
        final VerbsDevice device = open(1);
        assertThat(device.armCompletionNotification(() -> { })).isTrue();

        device.close();

        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .doesNotContain("verbs-device-notifier 10.0.0.1:" + device.address().qpn());
    }

    @Test
    void receiverNotReadyIsTheReceiversVerdictAndTakesNoBufferNorTheConnection() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        final AddressHandle ah = handle(a, b);

        send(a, ah, b, b.address().qkey(), "refused", 1);
        assertThat(settle(a)).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(CompletionStatus.REMOTE_ERROR_RNR);
            assertThat(c.opcode()).isEqualTo(Opcode.SEND);
        });
        assertThat(b.count(VerbsCounter.RNR_ANSWERED)).isEqualTo(1);

        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        b.postRecv(buffer, 7);
        send(a, ah, b, b.address().qkey(), "taken", 2);
        assertThat(settle(a)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        assertThat(settle(b)).singleElement().satisfies(c -> {
            assertThat(c.wrId()).isEqualTo(7);
            assertThat(text(buffer, c)).isEqualTo("taken");
        });
        assertThat(a.count(VerbsCounter.CONNECTIONS_MADE)).isEqualTo(1);
        assertThat(a.count(VerbsCounter.CONNECTIONS_LOST)).isZero();
    }

    @Test
    void sendsInFlightWhenTheConnectionBreaksEndUnreachableAndTheNextSendConnectsAgain() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        final AddressHandle ah = handle(a, b);
        b.postRecv(ByteBuffer.allocateDirect(64), 1);
        send(a, ah, b, b.address().qkey(), "first", 1);
        settle(a);
        settle(b);

        network.holdSends();
        for (int i = 0; i < 3; i++) {
            send(a, ah, b, b.address().qkey(), "lost " + i, 10 + i);
        }
        settle(a);
        network.breakLinks(nics.get(0));
        final List<Completion> flushed = settle(a);
        assertThat(flushed).extracting(Completion::wrId).containsExactlyInAnyOrder(10L, 11L, 12L);
        assertThat(flushed).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE));
        network.releaseSends();
        assertThat(settle(b)).isEmpty();

        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        b.postRecv(buffer, 2);
        send(a, ah, b, b.address().qkey(), "again", 20);
        assertThat(settle(a)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        assertThat(settle(b)).singleElement().satisfies(c -> assertThat(text(buffer, c)).isEqualTo("again"));
        assertThat(a.count(VerbsCounter.CONNECTIONS_MADE)).isEqualTo(2);
        assertThat(nics.get(0).ids()).isEqualTo(1);
    }

    @Test
    void aPeerThatRestartsOnItsPortIsToldApartByItsQkey() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        final AddressHandle ah = handle(a, b);
        final int oldQkey = b.address().qkey();
        final int port = b.address().qpn();
        b.postRecv(ByteBuffer.allocateDirect(64), 1);
        send(a, ah, b, oldQkey, "before", 1);
        settle(a);
        b.close();
        assertThat(settle(a)).isEmpty();
        assertThat(a.connections()).as("the DISCONNECTED of the old incarnation is in").isZero();

        final VerbsDevice restarted = open(2, port, VerbsDeviceConfig.on(new InetSocketAddress(0)));
        assertThat(restarted.address().qpn()).isEqualTo(port);
        assertThat(restarted.address().qkey()).isNotEqualTo(oldQkey);
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        restarted.postRecv(buffer, 5);

        // A packet for the old incarnation is dropped by the new one, unseen, as an EFA queue pair drops it.
        send(a, ah, restarted, oldQkey, "stale", 2);
        assertThat(settle(a)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        assertThat(settle(restarted)).isEmpty();
        assertThat(restarted.count(VerbsCounter.QKEY_DROPS)).isEqualTo(1);

        // RDMA towards the old incarnation is refused before it reaches the new one's memory.
        final MemoryRegion local = a.registerMemory(ByteBuffer.allocateDirect(16), EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion remote = restarted.registerMemory(ByteBuffer.allocateDirect(16), EnumSet.of(Access.REMOTE_READ));
        a.postRead(ah, port, oldQkey, local, 0, remote.iov(0, 16), 3);
        assertThat(settle(a)).singleElement().satisfies(
                c -> assertThat(c.status()).isEqualTo(CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE));

        send(a, ah, restarted, restarted.address().qkey(), "current", 4);
        assertThat(settle(a)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        assertThat(settle(restarted)).singleElement().satisfies(c -> assertThat(text(buffer, c)).isEqualTo("current"));
    }

    @Test
    void aPeerThatCrashedAndConnectsFromANewIncarnationReplacesItsOldConnection() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        final int port = b.address().qpn();
        a.postRecv(ByteBuffer.allocateDirect(64), 1);
        send(b, handle(b, a), a, a.address().qkey(), "old", 1);
        settle(b);
        settle(a);
        network.crash(nics.get(1));
        b.close();

        final VerbsDevice restarted = open(2, port, VerbsDeviceConfig.on(new InetSocketAddress(0)));
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        a.postRecv(buffer, 2);
        send(restarted, handle(restarted, a), a, a.address().qkey(), "new", 2);
        assertThat(settle(restarted)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        assertThat(settle(a)).singleElement().satisfies(c -> {
            assertThat(text(buffer, c)).isEqualTo("new");
            assertThat(c.sourceQpn()).isEqualTo(port);
        });
        assertThat(a.count(VerbsCounter.PEER_RESTARTS)).isEqualTo(1);
        assertThat(a.connections()).isEqualTo(1);
    }

    @Test
    void fullQueuesRefusePostsUntilACompletionIsPolled() throws Exception {
        final VerbsDevice a = open(1, 0, VerbsDeviceConfig.on(new InetSocketAddress(0)).withQueueDepths(2, 2));
        final VerbsDevice b = open(2);
        final AddressHandle ah = handle(a, b);
        assertThat(send(a, ah, b, b.address().qkey(), "1", 1)).isTrue();
        assertThat(send(a, ah, b, b.address().qkey(), "2", 2)).isTrue();
        assertThat(send(a, ah, b, b.address().qkey(), "3", 3)).isFalse();
        assertThat(a.postRecv(ByteBuffer.allocateDirect(8), 1)).isTrue();
        assertThat(a.postRecv(ByteBuffer.allocateDirect(8), 2)).isTrue();
        assertThat(a.postRecv(ByteBuffer.allocateDirect(8), 3)).isFalse();

        for (int round = 0; round < 20; round++) {
            devices.forEach(VerbsDevice::progress);
        }
        // Completions are made, but the entries stay taken until they are polled.
        assertThat(send(a, ah, b, b.address().qkey(), "3", 3)).isFalse();
        final List<Completion> one = new ArrayList<>();
        a.pollCompletions(one::add, 1);
        assertThat(one).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.REMOTE_ERROR_RNR));
        assertThat(send(a, ah, b, b.address().qkey(), "3", 3)).isTrue();
    }

    @Test
    void peersAndRegistrationsAreBounded() throws Exception {
        final VerbsDevice a = open(1, 0, VerbsDeviceConfig.on(new InetSocketAddress(0)).withMaxPeers(1));
        final VerbsDevice b = open(2);
        final VerbsDevice c = open(3);
        b.postRecv(ByteBuffer.allocateDirect(8), 1);
        send(a, handle(a, b), b, b.address().qkey(), "b", 1);
        send(a, handle(a, c), c, c.address().qkey(), "c", 2);
        assertThat(settle(a)).extracting(Completion::wrId, Completion::status).containsExactlyInAnyOrder(
                tuple(1L, CompletionStatus.OK),
                tuple(2L, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE));

        // A request from a peer beyond the bound is refused, and its sender hears an absent QPN.
        send(c, handle(c, a), a, a.address().qkey(), "c to a", 3);
        assertThat(settle(c)).singleElement().satisfies(
                done -> assertThat(done.status()).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN));
        assertThat(a.count(VerbsCounter.REQUESTS_REJECTED)).isEqualTo(1);

        nics.get(0).limitRegistrations(nics.get(0).registrations());
        assertThat(a.registerMemory(ByteBuffer.allocateDirect(8), EnumSet.of(Access.REMOTE_READ))).isNull();
        assertThat(a.registerMemory(ByteBuffer.allocate(8), EnumSet.of(Access.REMOTE_READ)))
                .as("nor its direct copy").isNull();
    }

    @Test
    void regionsNoPeerMayReachAreToldApartThoughTheNicGivesThemAllRkeyZero() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        final AddressHandle ah = handle(a, b);
        final ByteBuffer first = ByteBuffer.allocateDirect(8);
        final ByteBuffer second = ByteBuffer.allocateDirect(8);
        final MemoryRegion one = a.registerMemory(first, EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion two = a.registerMemory(second, EnumSet.of(Access.LOCAL_WRITE));
        final ByteBuffer source = ByteBuffer.allocateDirect(8).putLong(0, 0x0102030405060708L);
        final MemoryRegion remote = b.registerMemory(source, EnumSet.of(Access.REMOTE_READ));
        assertThat(one.key()).isNotEqualTo(two.key());

        a.postRead(ah, b.address().qpn(), b.address().qkey(), one, 0, remote.iov(0, 8), 1);
        assertThat(settle(a)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        a.deregisterMemory(one);
        a.postRead(ah, b.address().qpn(), b.address().qkey(), two, 0, remote.iov(0, 8), 2);
        assertThat(settle(a)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));

        assertThat(first.getLong(0)).isEqualTo(0x0102030405060708L);
        assertThat(second.getLong(0)).isEqualTo(0x0102030405060708L);
        a.deregisterMemory(two);
    }

    @Test
    void heapMemoryIsRegisteredThroughADirectCopyFilledAtRegistrationAndCopiedBackAtDeregistration()
            throws Exception {
        final VerbsDevice a = open(1, 0, VerbsDeviceConfig.on(new InetSocketAddress(0)).withMaxCopiedBytes(32));
        final VerbsDevice b = open(2);
        final AddressHandle ah = handle(b, a);
        final ByteBuffer source = ByteBuffer.wrap("sixteen bytes ok".getBytes(StandardCharsets.US_ASCII));
        final ByteBuffer target = ByteBuffer.allocate(16);
        final MemoryRegion readable = a.registerMemory(source, EnumSet.of(Access.REMOTE_READ));
        final MemoryRegion writable = a.registerMemory(target, EnumSet.of(Access.REMOTE_WRITE));
        assertThat(a.registerMemory(ByteBuffer.allocate(1), EnumSet.of(Access.REMOTE_READ)))
                .as("32 bytes of heap memory registered already").isNull();
        final ByteBuffer local = ByteBuffer.allocateDirect(16);
        final MemoryRegion mine = b.registerMemory(local, EnumSet.of(Access.LOCAL_WRITE));

        b.postRead(ah, a.address().qpn(), a.address().qkey(), mine, 0, readable.iov(0, 16), 1);
        b.postWrite(ah, a.address().qpn(), a.address().qkey(), mine, 0, writable.iov(0, 16), 2);
        assertThat(settle(b)).extracting(Completion::status).containsOnly(CompletionStatus.OK);
        assertThat(StandardCharsets.US_ASCII.decode(local.duplicate()).toString()).isEqualTo("sixteen bytes ok");
        assertThat(target.get(0)).as("the heap buffer changes only at deregistration").isZero();

        a.deregisterMemory(writable);
        a.deregisterMemory(readable);
        assertThat(StandardCharsets.US_ASCII.decode(target.duplicate()).toString()).isEqualTo("sixteen bytes ok");
        assertThat(a.count(VerbsCounter.BYTES_COPIED)).as("both copied in, the writable one back").isEqualTo(48);
        assertThat(a.registerMemory(ByteBuffer.allocate(32), EnumSet.of(Access.REMOTE_READ))).isNotNull();
    }

    @Test
    void aRemoteAccessErrorEndsTheConnectionAtBothEndsAndTheNextOperationConnectsAgain() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        final AddressHandle ah = handle(a, b);
        final MemoryRegion local = a.registerMemory(ByteBuffer.allocateDirect(16), EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion remote = b.registerMemory(ByteBuffer.allocateDirect(16), EnumSet.of(Access.REMOTE_WRITE));

        a.postRead(ah, b.address().qpn(), b.address().qkey(), local, 0, remote.iov(0, 16), 1);
        assertThat(settle(a)).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
            assertThat(c.opcode()).isEqualTo(Opcode.RDMA_READ);
        });
        settle(b);
        assertThat(a.count(VerbsCounter.CONNECTIONS_LOST)).isEqualTo(1);
        assertThat(b.count(VerbsCounter.CONNECTIONS_LOST)).isEqualTo(1);

        final ByteBuffer target = ByteBuffer.allocateDirect(16);
        final MemoryRegion writable = b.registerMemory(target, EnumSet.of(Access.REMOTE_WRITE));
        a.postWrite(ah, b.address().qpn(), b.address().qkey(), local, 0, new RmaIov(writable.address(), 16,
                writable.key()), 2);
        assertThat(settle(a)).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        assertThat(a.count(VerbsCounter.CONNECTIONS_MADE)).isEqualTo(2);
    }

    @Test
    void crossingConnectsKeepOneConnectionAndLoseNoPacket() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        final ByteBuffer toA = ByteBuffer.allocateDirect(64);
        final ByteBuffer toB = ByteBuffer.allocateDirect(64);
        a.postRecv(toA, 1);
        b.postRecv(toB, 1);
        send(a, handle(a, b), b, b.address().qkey(), "from a", 1);
        send(b, handle(b, a), a, a.address().qkey(), "from b", 1);

        assertThat(settle(a)).extracting(Completion::opcode, Completion::status).containsExactlyInAnyOrder(
                tuple(Opcode.SEND, CompletionStatus.OK),
                tuple(Opcode.RECV, CompletionStatus.OK));
        assertThat(settle(b)).extracting(Completion::opcode, Completion::status).containsExactlyInAnyOrder(
                tuple(Opcode.SEND, CompletionStatus.OK),
                tuple(Opcode.RECV, CompletionStatus.OK));
        assertThat(toA.get(0)).isEqualTo((byte) 'f');
        assertThat(toB.get(0)).isEqualTo((byte) 'f');
        assertThat(a.connections()).isEqualTo(1);
        assertThat(b.connections()).isEqualTo(1);
        assertThat(nics.get(0).ids() + nics.get(1).ids()).as("one connection, an id at each end").isEqualTo(2);
        // 10.0.0.1 is the lower address: it refuses the higher's request and keeps its own.
        assertThat(a.count(VerbsCounter.REQUESTS_REJECTED)).isEqualTo(1);
        assertThat(b.count(VerbsCounter.CONNECTIONS_ACCEPTED)).isEqualTo(1);
    }

    @Test
    void aRequestWithoutOurPrivateDataIsRejected() throws Exception {
        final VerbsDevice a = open(1);
        final FakeRcNetwork.FakeNic stranger = network.nic(InetAddress.getByAddress(new byte[] {10, 0, 0, 9}));
        final long id = stranger.createId();
        stranger.resolveAddress(id, new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, 0, 1}),
                a.address().qpn()), 100);
        stranger.resolveRoute(id, 100);
        stranger.createQueuePair(id, 4);
        stranger.connect(id, new byte[] {1, 2, 3, 4}, 7);
        a.progress();
        final List<CmEventType> events = new ArrayList<>();
        stranger.poll(new RcNic.Events() {
            @Override
            public void cmEvent(long eventId, CmEventType type, byte[] privateData) {
                events.add(type);
            }

            @Override
            public void completion(int qpNum, long wrId, WcStatus status, int byteLength) {
            }

            @Override
            public void queuePairFailed(int qpNum) {
            }
        });
        assertThat(events).endsWith(CmEventType.REJECTED);
        assertThat(a.count(VerbsCounter.REQUESTS_REJECTED)).isEqualTo(1);
        assertThat(a.connections()).isZero();
    }

    @Test
    void aClosedDeviceLeavesNoIdNorRegistrationOnItsNic() throws Exception {
        final VerbsDevice a = open(1);
        final VerbsDevice b = open(2);
        b.postRecv(ByteBuffer.allocateDirect(8), 1);
        send(a, handle(a, b), b, b.address().qkey(), "x", 1);
        a.registerMemory(ByteBuffer.allocateDirect(8), EnumSet.of(Access.REMOTE_READ));
        settle(a);
        a.close();
        assertThat(nics.get(0).ids()).isZero();
        assertThat(nics.get(0).registrations()).isZero();
        settle(b);
        assertThat(b.connections()).isZero();
        assertThat(nics.get(1).ids()).isZero();
    }

    @Test
    void framesAndPrivateDataNotOursAreRecognisedBeforeAnythingIsRead() {
        assertThat(Frame.check(ByteBuffer.allocate(8), 8)).isZero();
        final ByteBuffer result = ByteBuffer.allocate(32);
        Frame.writeResult(result, 0, 1);
        assertThat(Frame.check(result, 16)).isEqualTo(Frame.TYPE_RESULT);
        assertThat(Frame.check(result, 17)).as("a RESULT carries nothing after its header").isZero();
        result.put(Frame.VERSION_OFFSET, (byte) 2);
        assertThat(Frame.check(result, 16)).isZero();
        assertThat(ConnectData.decodeAddress(new byte[56])).isNull();
        assertThat(ConnectData.isCollision(ConnectData.collision())).isTrue();
    }
}
