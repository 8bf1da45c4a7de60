package org.rpcrdma4j.fabric.rc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.on;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.receives;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.fabric.conformance.EventRecorder;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.MemoryWindow;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;

/**
 * The RC fabric's logic over {@link SimulatedRc}: connections, routing, flushes and ends, as far as
 * they are verbs RC's own; what every fabric must do is the conformance kit's
 * ({@link RcFabricConformanceTest}).
 */
class RcFabricTest {

    private static final RcFabric.Config CONFIG = new RcFabric.Config(16, 1024, 20L << 20);
    private static final ConnectPrivateData CLIENT_DATA = new ConnectPrivateData(true, 2048, 3072);
    private static final ConnectPrivateData SERVER_DATA = new ConnectPrivateData(false, 4096, 1024);

    private final SimulatedRc network = new SimulatedRc();
    private final InetAddress serverIp = ip(10, 0, 0, 1);
    private final InetAddress clientIp = ip(10, 0, 0, 2);
    private final InetAddress otherIp = ip(10, 0, 0, 3);
    private SimulatedRc.Device serverDevice;
    private SimulatedRc.Device clientDevice;
    private RcFabric server;
    private RcFabric client;
    private final LinkedBlockingQueue<Accepted> accepted = new LinkedBlockingQueue<>();

    /** What the server's acceptor saw and made of a request. */
    private record Accepted(FabricAddress peer, ConnectPrivateData data, FabricConnection connection,
                            EventRecorder recorder) {
    }

    @BeforeEach
    void setUp() {
        serverDevice = network.device(serverIp);
        clientDevice = network.device(clientIp);
        server = new RcFabric(serverDevice, new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT), CONFIG);
        client = new RcFabric(clientDevice, new InetSocketAddress(clientIp, 0), CONFIG);
    }

    @AfterEach
    void tearDown() {
        client.close();
        server.close();
        // Every id, queue pair and registration was released before the device was closed.
        assertTrue(clientDevice.closed(), "the client's device was not released cleanly");
        assertTrue(serverDevice.closed(), "the server's device was not released cleanly");
    }

    private static InetAddress ip(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private void acceptAll(int receives) throws Exception {
        acceptAll(receives, 1024);
    }

    private void acceptAll(int receives, int size) throws Exception {
        on(server, () -> {
            server.listen(request -> {
                EventRecorder recorder = new EventRecorder();
                FabricConnection connection = request.accept(SERVER_DATA, receives(receives, size), recorder);
                accepted.add(new Accepted(request.peer(), request.privateData(), connection, recorder));
            });
            return null;
        });
    }

    private Accepted nextAccepted() throws InterruptedException {
        Accepted next = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull(next, "no connection was accepted");
        return next;
    }

    private FabricConnection connect(RcFabric from, EventRecorder recorder, int receives) throws Exception {
        FabricAddress peer = RcFabric.addressOf(new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT));
        return on(from, () -> from.connect(peer, CLIENT_DATA, receives(receives, 1024), recorder));
    }

    /** Accepts with {@code serverReceives} and connects the client with {@code clientReceives}; both up. */
    private Accepted connectedPair(int serverReceives, EventRecorder clientEvents, int clientReceives) throws Exception {
        acceptAll(serverReceives);
        connect(client, clientEvents, clientReceives);
        Accepted accepted = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        return accepted;
    }

    private static ByteBuffer message(String text) {
        return ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Test
    void aSendHandedOverWhileTheFabricSleepsIsPostedByTheCallerWithoutWakingTheProgressThread() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Sides sides = connectedSides(clientEvents);
        FabricConnection clientSide = sides.client();
        int sleeps = clientDevice.awaits();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (clientDevice.awaits() == sleeps && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(clientDevice.awaits() > sleeps, "the client's progress thread never went to sleep");
        int wakeups = clientDevice.wakeups();
        List<Object> ran = new ArrayList<>();
        client.execute(() -> {
            ran.add(Thread.currentThread());
            ran.add(client.onProgressThread());
            ran.add(clientSide.send(message("posted by the caller"), 3));
        });
        assertEquals(List.of(Thread.currentThread(), true, true), ran,
                "the command ran at once, in the turn, on the thread that handed it over");
        assertEquals(wakeups, clientDevice.wakeups(), "the progress thread was woken to post");
        assertEquals("received posted by the caller", sides.server().recorder().next());
        assertEquals("send 3 SUCCESS", clientEvents.next(), "the completion woke the progress thread");
    }

    @Test
    void aMessageThatBeatsTheEstablishedEventWaitsForIt() throws Exception {
        serverDevice.holdEstablished();
        acceptAll(2);
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 2);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        assertTrue(on(client, () -> clientSide.send(message("early"), 1)));
        assertEquals("send 1 SUCCESS", clientEvents.next(), "the message is in the server's receive");
        on(server, () -> null);
        assertTrue(a.recorder().rest().isEmpty(), "the server's listener heard of it before the connection was up");
        serverDevice.releaseEstablished();
        assertEquals(CLIENT_DATA, a.recorder().established.get(10, TimeUnit.SECONDS));
        assertEquals("received early", a.recorder().next());
    }

    @Test
    void socketAddressesAreRdmaCmsOwnBuiltOnce() throws Exception {
        acceptAll(2);
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 2);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        a.recorder().established.get(10, TimeUnit.SECONDS);

        InetSocketAddress serverEnd = on(client, clientSide::remoteSocketAddress);
        assertEquals(new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT), serverEnd);
        assertSame(serverEnd, on(client, clientSide::remoteSocketAddress));
        InetSocketAddress clientEnd = on(client, clientSide::localSocketAddress);
        assertEquals(clientIp, clientEnd.getAddress());
        assertEquals(clientEnd, on(server, () -> a.connection().remoteSocketAddress()),
                "the server sees the requester's real address and port");
        assertSame(on(server, () -> a.connection().remoteSocketAddress()),
                on(server, () -> a.connection().remoteSocketAddress()));
        assertEquals(new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT),
                on(server, () -> a.connection().localSocketAddress()));
        assertEquals(RcFabric.addressOf(clientEnd), a.peer());
    }

    @Test
    void aFabricAddressIsTheIpAddressAsAnIpv4MappedIdentity() {
        FabricAddress address = RcFabric.addressOf(new InetSocketAddress(ip(192, 168, 7, 9), 20049));
        byte[] identity = address.identity();
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, (byte) 168,
                7, 9}, identity, "the RoCEv2 GID of an IPv4 interface");
        assertEquals(20049, address.number());
        assertInstanceOf(Inet4Address.class, address.inetAddress());
        assertEquals(new InetSocketAddress(ip(192, 168, 7, 9), 20049), RcFabric.socketAddressOf(address));
    }

    @Test
    void aRejectedRequestFlushesTheReceivesThenDisconnectsOnce() throws Exception {
        on(server, () -> {
            server.listen(Fabric.ConnectRequest::reject);
            return null;
        });
        EventRecorder clientEvents = new EventRecorder();
        connect(client, clientEvents, 3);
        assertEquals(List.of("receiveFailed FLUSHED", "receiveFailed FLUSHED", "receiveFailed FLUSHED",
                "disconnected REFUSED"), clientEvents.untilDisconnected());
        assertFalse(clientEvents.established.isDone());
        on(server, () -> null); // the acceptor's call has returned
        assertEquals(1, serverDevice.liveIds(), "the rejected request's id was destroyed (the listener stays)");
    }

    @Test
    void aSendThatFindsNoReceiveEndsItsConnectionAtOnce() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(2, clientEvents, 1);
        // The client never posts again: one message lands; with Linux's RNR retry count of 0, which
        // our REQ carries, the next fails at once instead of waiting, and so does the connection.
        on(server, () -> {
            for (int i = 0; i < 3; i++) {
                a.connection().send(message("m" + i), i);
            }
            return null;
        });
        List<String> end = a.recorder().untilDisconnected();
        assertEquals("send 0 SUCCESS", end.getFirst());
        assertTrue(end.contains("send 1 RECEIVER_NOT_READY"), end.toString());
        assertEquals("disconnected RECEIVER_NOT_READY", end.getLast());
        assertEquals("received m0", clientEvents.next());
        assertEquals("disconnected CLOSED", clientEvents.untilDisconnected().getLast());
    }

    @Test
    void aRequesterThatAsksForRnrRetriesWithoutEndIsWaitedFor() throws Exception {
        acceptAll(2);
        RcFabric.Config patientConfig = new RcFabric.Config(CONFIG.sendDepth(), CONFIG.slotSize(),
                CONFIG.chunkPoolBytes(), RcFabric.Config.DEFAULT_RETRY_COUNT, 7,
                RcFabric.Config.DEFAULT_RESOLVE_TIMEOUT_MILLIS);
        SimulatedRc.Device patientDevice = network.device(otherIp);
        RcFabric patient = new RcFabric(patientDevice, new InetSocketAddress(otherIp, 0), patientConfig);
        try {
            EventRecorder clientEvents = new EventRecorder();
            FabricConnection connection = connect(patient, clientEvents, 1);
            Accepted a = nextAccepted();
            clientEvents.established.get(10, TimeUnit.SECONDS);
            on(server, () -> {
                a.connection().send(message("m0"), 0);
                a.connection().send(message("m1"), 1);
                return null;
            });
            assertEquals("received m0", clientEvents.next());
            assertEquals("send 0 SUCCESS", a.recorder().next());
            // m1 waits on the send queue, retried without end, until the client posts a receive again.
            assertEquals(1, gauge(server.statistics(), RcGauge.POSTED_SENDS));
            on(patient, () -> connection.postReceive(ByteBuffer.allocate(1024)));
            assertEquals("received m1", clientEvents.next());
            assertEquals("send 1 SUCCESS", a.recorder().next());
            assertEquals(0, gauge(server.statistics(), RcGauge.POSTED_SENDS));
        } finally {
            patient.close();
        }
        assertTrue(patientDevice.closed());
    }

    @Test
    void aConnectionClosedWhileResolvingNeverConnects() throws Exception {
        acceptAll(1);
        EventRecorder clientEvents = new EventRecorder();
        FabricAddress peer = RcFabric.addressOf(new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT));
        on(client, () -> {
            client.connect(peer, CLIENT_DATA, receives(2, 64), clientEvents).close();
            return null;
        });
        assertEquals(List.of("receiveFailed FLUSHED", "receiveFailed FLUSHED", "disconnected CLOSED"),
                clientEvents.untilDisconnected());
        assertTrue(accepted.isEmpty(), "the server heard a request");
        awaitCount(clientDevice::liveIds, 0); // the reaper destroys the id after the end is reported
    }

    @Test
    void anUnknownHostIsUnreachable() throws Exception {
        EventRecorder events = new EventRecorder();
        FabricAddress nowhere = RcFabric.addressOf(new InetSocketAddress(ip(10, 9, 9, 9), 20049));
        on(client, () -> client.connect(nowhere, CLIENT_DATA, receives(2, 64), events));
        assertEquals(List.of("receiveFailed FLUSHED", "receiveFailed FLUSHED", "disconnected PEER_UNREACHABLE"),
                events.untilDisconnected());
    }

    @Test
    void garbageOrAbsentPrivateDataMeansTheRfcDefaults() throws Exception {
        acceptAll(1);
        // A requester of another protocol, driven by hand on a device of its own.
        SimulatedRc.Device raw = network.device(otherIp);
        byte[][] payloads = {
            {1, 2, 3, 4, 5, 6, 7, 8, 9}, // foreign data
            {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 2, 0, 3, 3}, // RFC 8797's magic, another version
            {}, // none
        };
        for (byte[] payload : payloads) {
            long id = raw.createId();
            raw.resolveAddress(id, new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT), 1000);
            raw.resolveRoute(id, 1000);
            raw.createQueuePair(id, 4, 4);
            raw.connect(id, payload, RcFabric.Config.DEFAULT_RETRY_COUNT, RcFabric.Config.DEFAULT_RNR_RETRY_COUNT);
            Accepted a = nextAccepted();
            assertEquals(ConnectPrivateData.DEFAULT, a.data());
            assertEquals(ConnectPrivateData.DEFAULT, a.recorder().established.get(10, TimeUnit.SECONDS));
            raw.disconnect(id);
            a.recorder().untilDisconnected();
            raw.destroy(id);
        }
        awaitCount(serverDevice::liveIds, 1); // only the listener is left once the reaper is done
    }

    @Test
    void closingFlushesEverythingPostedBeforeTheOneDisconnect() throws Exception {
        acceptAll(5);
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 6);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        a.recorder().established.get(10, TimeUnit.SECONDS);

        on(server, () -> {
            a.connection().close();
            a.connection().close();
            return null;
        });
        List<String> serverSide = a.recorder().untilDisconnected();
        assertEquals(6, serverSide.size());
        assertEquals(5, serverSide.stream().filter("receiveFailed FLUSHED"::equals).count());
        assertEquals("disconnected CLOSED", serverSide.get(5));
        List<String> clientEnd = clientEvents.untilDisconnected();
        assertEquals(7, clientEnd.size());
        assertEquals(6, clientEnd.stream().filter("receiveFailed FLUSHED"::equals).count());
        assertEquals("disconnected CLOSED", clientEnd.get(6));
        assertFalse(on(client, () -> clientSide.postReceive(ByteBuffer.allocate(64))),
                "a closed connection takes no receive");
        // Nothing follows the disconnect: whatever either progress thread had queued has run by now.
        on(client, () -> null);
        on(server, () -> null);
        assertEquals(List.of(), clientEvents.rest(), "events after the disconnect");
        assertEquals(List.of(), a.recorder().rest(), "events after the disconnect");
        // The reapers destroy the connection's ids (the listener's stays) and deregister its slots.
        awaitCount(serverDevice::liveIds, 1);
        awaitCount(clientDevice::liveIds, 0);
        awaitCount(clientDevice::liveRegistrations, 0);
    }

    @Test
    void statisticsShowQueuePairsReceivesCmEventsAndFlushedCompletions() throws Exception {
        acceptAll(5);
        EventRecorder clientEvents = new EventRecorder();
        connect(client, clientEvents, 6);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        a.recorder().established.get(10, TimeUnit.SECONDS);
        RcFabricStatistics serving = server.statistics();
        RcFabricStatistics calling = client.statistics();
        assertEquals(1, serving.connections());
        assertEquals(1, gauge(serving, RcGauge.QUEUE_PAIRS));
        assertEquals(5, gauge(serving, RcGauge.POSTED_RECEIVES));
        assertEquals(6, gauge(calling, RcGauge.POSTED_RECEIVES));
        assertEquals(1, serving.cmEvents(CmEventType.CONNECT_REQUEST));
        assertEquals(1, serving.cmEvents(CmEventType.ESTABLISHED));
        assertEquals(1, calling.cmEvents(CmEventType.ADDR_RESOLVED));
        assertEquals(1, calling.cmEvents(CmEventType.ROUTE_RESOLVED));
        assertEquals(1, calling.cmEvents(CmEventType.ESTABLISHED));

        on(server, () -> {
            a.connection().close();
            return null;
        });
        a.recorder().untilDisconnected();
        clientEvents.untilDisconnected();
        awaitGauge(server, RcGauge.QUEUE_PAIRS, 0); // destroyed by the reaper after the end is reported
        RcFabricStatistics closed = server.statistics();
        assertEquals(0, closed.connections());
        assertEquals(0, gauge(closed, RcGauge.POSTED_RECEIVES));
        assertEquals(5, counter(closed, RcCounter.FLUSHED_COMPLETIONS));
        assertEquals(0, counter(closed, RcCounter.FAILED_COMPLETIONS));
        assertEquals(6, counter(client.statistics(), RcCounter.FLUSHED_COMPLETIONS));
        assertEquals(1, client.statistics().cmEvents(CmEventType.DISCONNECTED));
    }

    @Test
    void bytesCopiedCountsTheSendIntoASlotAndTheReceiveOutOfOne() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Sides sides = connectedSides(clientEvents);
        assertEquals(0, client.statistics().bytesCopied(), "connecting copies no payload");
        assertEquals(0, server.statistics().bytesCopied(), "connecting copies no payload");
        String text = "x".repeat(1000);

        assertTrue(on(client, () -> sides.client().send(message(text), 1)));
        assertEquals("send 1 SUCCESS", clientEvents.next());
        assertEquals("received " + text, sides.server().recorder().next());

        RcFabricStatistics sent = client.statistics();
        RcFabricStatistics received = server.statistics();
        assertEquals(1000, sent.bytesCopied(), "the client's copy into its send slot");
        assertEquals(1000, received.bytesCopied(), "the server's copy out of its receive slot");
        assertEquals(counter(sent, RcCounter.BYTES_COPIED), sent.bytesCopied());
        assertEquals(counter(received, RcCounter.BYTES_COPIED), received.bytesCopied());
    }

    @Test
    void statisticsAnswerAtOnceWhileTheProgressThreadIsStuck() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(5, clientEvents, 6);
        a.recorder().established.get(10, TimeUnit.SECONDS);
        CompletableFuture<RcFabricStatistics> atTheBlock = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        // Handed over from a thread of its own, which may run it in the turn itself: either way the
        // turn is held until the test releases it, as by a progress thread stuck in rdma_destroy_qp.
        Thread stuck = new Thread(() -> server.execute(() -> {
            atTheBlock.complete(server.statistics());
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        stuck.start();
        try {
            RcFabricStatistics before = atTheBlock.get(10, TimeUnit.SECONDS);
            RcFabricStatistics during = assertTimeoutPreemptively(Duration.ofSeconds(3), server::statistics);
            assertEquals(1, during.connections());
            assertEquals(1, during.cmEvents(CmEventType.CONNECT_REQUEST));
            assertEquals(1, gauge(during, RcGauge.QUEUE_PAIRS));
            assertEquals(5, gauge(during, RcGauge.POSTED_RECEIVES));
            assertEquals(before, during, "nothing moves while the turn is held");
        } finally {
            release.countDown();
            stuck.join(10_000);
        }
    }

    private static long counter(RcFabricStatistics statistics, RcCounter counter) {
        return statistics.counter(counter);
    }

    private static long gauge(RcFabricStatistics statistics, RcGauge gauge) {
        return statistics.gauge(gauge);
    }

    @Test
    void completionsGoToTheirOwnConnection() throws Exception {
        acceptAll(4);
        RcFabric second = new RcFabric(network.device(otherIp), new InetSocketAddress(otherIp, 0), CONFIG);
        try {
            EventRecorder one = new EventRecorder();
            EventRecorder two = new EventRecorder();
            FabricConnection first = connect(client, one, 4);
            Accepted a = nextAccepted();
            FabricConnection other = connect(second, two, 4);
            Accepted b = nextAccepted();
            one.established.get(10, TimeUnit.SECONDS);
            two.established.get(10, TimeUnit.SECONDS);
            assertEquals(clientIp, a.peer().inetAddress());
            assertEquals(otherIp, b.peer().inetAddress());

            on(second, () -> other.send(message("from two"), 2));
            on(client, () -> first.send(message("from one"), 1));
            assertEquals("received from one", a.recorder().next());
            assertEquals("received from two", b.recorder().next());
            on(server, () -> b.connection().send(message("to two"), 20));
            on(server, () -> a.connection().send(message("to one"), 10));
            assertEquals("send 1 SUCCESS", one.next());
            assertEquals("received to one", one.next());
            assertEquals("send 2 SUCCESS", two.next());
            assertEquals("received to two", two.next());
        } finally {
            second.close();
        }
    }

    @Test
    void aQueuePairWhoseDestroyBlocksHoldsUpNoOtherConnection() throws Exception {
        acceptAll(8);
        EventRecorder oneEvents = new EventRecorder();
        EventRecorder twoEvents = new EventRecorder();
        connect(client, oneEvents, 8);
        Accepted a = nextAccepted();
        FabricConnection two = connect(client, twoEvents, 8);
        Accepted b = nextAccepted();
        oneEvents.established.get(10, TimeUnit.SECONDS);
        twoEvents.established.get(10, TimeUnit.SECONDS);
        // The server ends one connection, and destroying its queue pair blocks in the "kernel".
        serverDevice.holdDestroys();
        on(server, () -> {
            a.connection().close();
            return null;
        });
        assertEquals("disconnected CLOSED", a.recorder().untilDisconnected().getLast(),
                "the end is reported before the teardown");
        awaitCount(serverDevice::destroysBlocked, 1);
        // Meanwhile the other connection carries messages both ways, and a new one is accepted.
        for (int i = 0; i < 3; i++) {
            int n = i;
            assertTrue(on(client, () -> two.send(message("call " + n), n)));
            assertEquals("send " + n + " SUCCESS", twoEvents.next());
            assertEquals("received call " + n, b.recorder().next());
            assertTrue(on(server, () -> b.connection().send(message("reply " + n), 10 + n)));
            assertEquals("send " + (10 + n) + " SUCCESS", b.recorder().next());
            assertEquals("received reply " + n, twoEvents.next());
        }
        EventRecorder threeEvents = new EventRecorder();
        connect(client, threeEvents, 2);
        nextAccepted();
        threeEvents.established.get(10, TimeUnit.SECONDS);
        RcFabricStatistics during = server.statistics();
        assertEquals(2, during.connections());
        assertEquals(3, gauge(during, RcGauge.QUEUE_PAIRS), "the blocked queue pair is not destroyed yet");
        assertEquals(1, serverDevice.destroysBlocked());

        serverDevice.releaseDestroys();
        awaitGauge(server, RcGauge.QUEUE_PAIRS, 2);
        assertEquals(3, serverDevice.liveIds(), "the ended connection's id is destroyed; the others' and the listener's stay");
    }

    @Test
    void closingTheFabricWaitsForTheTeardownsItHandedOver() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(2, clientEvents, 2);
        serverDevice.holdDestroys();
        on(server, () -> {
            a.connection().close();
            return null;
        });
        awaitCount(serverDevice::destroysBlocked, 1);
        CompletableFuture<Void> closed = CompletableFuture.runAsync(server::close);
        // The device outlives every queue pair destroyed on it: closed only after the blocked destroy.
        for (int i = 0; i < 20; i++) {
            assertFalse(serverDevice.closed(), "the device was closed while a queue pair's destroy blocked");
            Thread.sleep(5);
        }
        serverDevice.releaseDestroys();
        closed.get(10, TimeUnit.SECONDS);
        assertTrue(serverDevice.closed());
        assertEquals(0, serverDevice.liveIds());
    }

    /** Waits until {@code count} reads {@code value}. */
    private static void awaitCount(java.util.function.IntSupplier count, int value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (count.getAsInt() != value) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("still " + count.getAsInt() + ", not " + value);
            }
            Thread.sleep(5);
        }
    }

    /**
     * The server RDMA-Writes {@code result}, filled with 0x5a, into the client's memory, then sends a
     * plain message that names nothing, which the client receives.
     *
     * @return the server's registration of the source, still registered
     */
    private Registration writeThenReply(Accepted a, Segment to, byte[] result, EventRecorder clientEvents)
            throws Exception {
        java.util.Arrays.fill(result, (byte) 0x5a);
        Registration source = on(server, () -> server.register(ByteBuffer.wrap(result),
                EnumSet.noneOf(MemoryAccess.class)));
        on(server, () -> a.connection().write(source, 0, to, 32));
        assertEquals("rdma 32 SUCCESS", a.recorder().next());
        on(server, () -> a.connection().send(message("done"), 33));
        assertEquals("send 33 SUCCESS", a.recorder().next());
        assertEquals("received done", clientEvents.next());
        return source;
    }

    /**
     * The seam's contract for heap memory: a registration holds the caller's bytes from
     * registration on, and what the device or a peer wrote is in the caller's buffer once it is
     * deregistered; the fabric reads no message to find out (the reply here is not even RPC-over-RDMA).
     */
    @Test
    void aFullQueueIsRoomToWaitForNotAnError() throws Exception {
        acceptAll(4);
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 4);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);

        // The device refuses a Send and an RDMA Read as a full queue does (ENOMEM).
        clientDevice.fullQueues(2);
        assertFalse(on(client, () -> clientSide.send(message("not now"), 1)));
        Registration target = on(client, () -> client.register(ByteBuffer.allocate(16),
                EnumSet.of(MemoryAccess.LOCAL_WRITE)));
        Registration exposed = on(server, () -> server.register(ByteBuffer.allocate(16),
                EnumSet.of(MemoryAccess.REMOTE_READ)));
        assertFalse(on(client, () -> clientSide.read(target, 0, exposed.segment(0, 16), 2)));
        assertEquals(0, gauge(client.statistics(), RcGauge.POSTED_SENDS), "what the queue refused is taken back");

        // The connection goes on: the same requests are taken once there is room.
        assertTrue(on(client, () -> clientSide.send(message("now"), 1)));
        assertEquals("received now", a.recorder().next());
        assertEquals("send 1 SUCCESS", clientEvents.next());
        assertTrue(on(client, () -> clientSide.read(target, 0, exposed.segment(0, 16), 2)));
        assertEquals("rdma 2 SUCCESS", clientEvents.next());
        assertEquals(0, counter(client.statistics(), RcCounter.FAILED_COMPLETIONS));
        on(client, () -> {
            client.deregister(target);
            return null;
        });
        on(server, () -> {
            server.deregister(exposed);
            return null;
        });
    }

    @Test
    void everyCopyOfPayloadTheFabricMakesIsCounted() throws Exception {
        acceptAll(2);
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 2);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);

        // A message goes through a registered slot at each end.
        on(client, () -> clientSide.send(message("x".repeat(100)), 1));
        assertEquals("received " + "x".repeat(100), a.recorder().next());
        assertEquals(100, counter(client.statistics(), RcCounter.BYTES_COPIED), "into the send slot");
        assertEquals(100, counter(server.statistics(), RcCounter.BYTES_COPIED), "out of the receive slot");

        // Chunk memory is copied into a pool block after registration if the device may read it (outside
        // the turn, counted once made), and back at deregistration if it may have been written: a target
        // is copied out only, a source in only.
        Registration target = on(server, () -> server.register(ByteBuffer.allocate(3000),
                EnumSet.of(MemoryAccess.LOCAL_WRITE)));
        Registration source = on(server, () -> server.register(ByteBuffer.allocate(500), EnumSet.noneOf(MemoryAccess.class)));
        on(server, () -> {
            server.deregister(target);
            server.deregister(source);
            return null;
        });
        HangGuard.waitFor(() -> counter(server.statistics(), RcCounter.BYTES_COPIED) == 100 + 3000 + 500);
        awaitGauge(server, RcGauge.CHUNK_POOL_BYTES_IN_USE, 0);
        assertEquals(100 + 3000 + 500, counter(server.statistics(), RcCounter.BYTES_COPIED), "each copy once");
    }

    @Test
    void aMessageInTheFabricsMessageBuffersIsSentAndReceivedWithoutACopy() throws Exception {
        on(server, () -> {
            server.listen(request -> {
                EventRecorder recorder = new EventRecorder();
                List<ByteBuffer> receives = List.of(server.messageBuffers().allocate(1024),
                        server.messageBuffers().allocate(1024));
                accepted.add(new Accepted(request.peer(), request.privateData(),
                        request.accept(SERVER_DATA, receives, recorder), recorder));
            });
            return null;
        });
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 2);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        ByteBuffer message = client.messageBuffers().allocate(100);
        assertTrue(message.isDirect(), "a buffer in the fabric's registered memory");
        message.put("y".repeat(100).getBytes(java.nio.charset.StandardCharsets.US_ASCII)).flip();

        on(client, () -> clientSide.send(message, 1));

        // The device read the sender's buffer and wrote the receiver's: neither side copied.
        assertEquals("received " + "y".repeat(100), a.recorder().next());
        assertEquals("send 1 SUCCESS", clientEvents.next());
        assertEquals(0, counter(client.statistics(), RcCounter.BYTES_COPIED));
        assertEquals(0, counter(server.statistics(), RcCounter.BYTES_COPIED));
        assertEquals(1, gauge(client.statistics(), RcGauge.MESSAGE_BUFFERS_IN_USE));
        assertEquals(2, gauge(server.statistics(), RcGauge.MESSAGE_BUFFERS_IN_USE));
        assertEquals(RcMessageBuffers.SLAB_BUFFERS * (long) CONFIG.slotSize(),
                gauge(client.statistics(), RcGauge.MESSAGE_BUFFER_BYTES_REGISTERED), "one slab");

        // A heap message still goes, through a slot: copied once.
        on(client, () -> clientSide.send(message("z"), 2));
        assertEquals("received z", a.recorder().next());
        assertEquals(1, counter(client.statistics(), RcCounter.BYTES_COPIED));

        client.messageBuffers().release(message);
        assertEquals(0, gauge(client.statistics(), RcGauge.MESSAGE_BUFFERS_IN_USE));
        // Larger than a slot: of the heap, which the fabric copies as any heap buffer.
        assertFalse(client.messageBuffers().allocate(CONFIG.slotSize() + 1).isDirect());
        assertEquals(0, gauge(client.statistics(), RcGauge.MESSAGE_BUFFERS_IN_USE));
    }

    @Test
    void rdmaReadAndWriteBytesAreInTheHeapBufferOnceDeregistered() throws Exception {
        acceptAll(4);
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 4);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);

        // The client exposes a Read chunk and a Write chunk, as a requester does.
        byte[] callData = new byte[3000];
        for (int i = 0; i < callData.length; i++) {
            callData[i] = (byte) (i * 7);
        }
        ByteBuffer replyMemory = ByteBuffer.allocate(2000);
        java.util.Arrays.fill(replyMemory.array(), (byte) 0x11);
        Registration readable = on(client, () -> client.register(ByteBuffer.wrap(callData),
                EnumSet.of(MemoryAccess.REMOTE_READ)));
        // Memory only written is registered where it is to be written: bytes outside keep their values.
        Registration writable = on(client, () -> client.register(replyMemory.slice(100, 1500),
                EnumSet.of(MemoryAccess.REMOTE_WRITE)));

        // The server pulls the Read chunk into a buffer whose first bytes it filled itself.
        byte[] pulled = new byte[3100];
        java.util.Arrays.fill(pulled, 0, 100, (byte) 0x22);
        Registration target = on(server, () -> server.register(ByteBuffer.wrap(pulled, 100, 3000),
                EnumSet.of(MemoryAccess.LOCAL_WRITE)));
        RcFabricStatistics pulling = server.statistics();
        assertEquals(ChunkPool.MIN_BLOCK, gauge(pulling, RcGauge.CHUNK_POOL_BYTES_IN_USE), "one pool block");
        assertEquals(ChunkPool.SLAB, gauge(pulling, RcGauge.CHUNK_POOL_BYTES_REGISTERED), "one slab");
        assertEquals(1, pulling.registrations());
        on(server, () -> a.connection().read(target, 0, readable.segment(0, 3000), 31));
        assertEquals("rdma 31 SUCCESS", a.recorder().next());
        on(server, () -> {
            server.deregister(target);
            return null;
        });
        assertArrayEquals(callData, java.util.Arrays.copyOfRange(pulled, 100, 3100),
                "the RDMA Read's bytes are in the server's heap buffer once deregistered");
        for (int i = 0; i < 100; i++) {
            assertEquals(0x22, pulled[i], "bytes outside the registration keep the caller's values");
        }

        // The server writes the reply data, then sends a message that names nothing.
        byte[] result = new byte[1500];
        Registration source = writeThenReply(a, writable.segment(0, 1500), result, clientEvents);
        on(client, () -> {
            client.deregister(writable);
            client.deregister(readable);
            return null;
        });
        byte[] landed = new byte[1500];
        replyMemory.get(100, landed);
        assertArrayEquals(result, landed, "the written bytes are in the client's heap buffer once deregistered");
        assertEquals(0x11, replyMemory.get(99));
        assertEquals(0x11, replyMemory.get(1600));

        on(server, () -> {
            server.deregister(source);
            return null;
        });
        RcFabricStatistics serverFigures = server.statistics();
        RcFabricStatistics clientFigures = client.statistics();
        assertEquals(0, clientFigures.registrations());
        assertEquals(0, serverFigures.registrations());
        assertEquals(0, counter(serverFigures, RcCounter.PER_CALL_REGISTRATIONS),
                "the server's chunk memory came from its pool");
        assertEquals(0, gauge(serverFigures, RcGauge.CHUNK_POOL_BYTES_IN_USE), "every block is back");
        assertEquals(ChunkPool.SLAB, gauge(serverFigures, RcGauge.CHUNK_POOL_BYTES_REGISTERED), "the slab stays");
        assertEquals(2, counter(clientFigures, RcCounter.PER_CALL_REGISTRATIONS),
                "memory a peer touches is registered on its own");
        assertTrue(clientSide.peer() != null);
    }

    private static final int MIB = 1 << 20;

    private static byte[] pattern(int length, int seed) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (i * 31 + (i >>> 11) + seed);
        }
        return data;
    }

    private static <T> T onAndBack(Fabric fabric, Supplier<T> action, EventRecorder recorder, String event)
            throws Exception {
        T result = on(fabric, action);
        assertEquals(event, recorder.next());
        return result;
    }

    private static Registration register(RcFabric fabric, ByteBuffer memory, MemoryAccess... access)
            throws Exception {
        Set<MemoryAccess> rights = EnumSet.noneOf(MemoryAccess.class);
        rights.addAll(List.of(access));
        return on(fabric, () -> fabric.register(memory, rights));
    }

    private static void deregister(RcFabric fabric, Registration... registrations) throws Exception {
        on(fabric, () -> {
            for (Registration registration : registrations) {
                fabric.deregister(registration);
            }
            return null;
        });
    }

    /**
     * A 16 MiB RDMA Read target and Write source, as a 16 MiB NFS READ or WRITE needs, come from
     * blocks of the pool: the reads and writes below each start in one block and end in another, and
     * every byte lands where it belongs.
     */
    @Test
    void sixteenMibChunksComeFromPoolBlocksAndMoveByteExactAcrossThem() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(2, clientEvents, 2);
        byte[] callData = pattern(16 * MIB, 1);
        Registration readable = register(client, ByteBuffer.wrap(callData), MemoryAccess.REMOTE_READ);
        byte[] pulled = new byte[16 * MIB + 100];
        Registration target = register(server, ByteBuffer.wrap(pulled), MemoryAccess.LOCAL_WRITE);
        assertEquals(16L * ChunkPool.MAX_BLOCK + ChunkPool.MIN_BLOCK,
                gauge(server.statistics(), RcGauge.CHUNK_POOL_BYTES_IN_USE), "16 blocks of 1 MiB and one for the rest");
        // Segments of 1 MiB + 12 bytes, 100 bytes into the target: none is block-aligned.
        int segment = MIB + 12;
        long context = 1;
        for (int at = 0; at < callData.length; at += segment, context++) {
            int from = at;
            long id = context;
            Segment remote = readable.segment(from, Math.min(segment, callData.length - from));
            onAndBack(server, () -> a.connection().read(target, 100 + from, remote, id), a.recorder(),
                    "rdma " + id + " SUCCESS");
        }
        deregister(server, target);
        assertArrayEquals(callData, java.util.Arrays.copyOfRange(pulled, 100, pulled.length));

        byte[] result = pattern(16 * MIB, 2);
        byte[] replyMemory = new byte[16 * MIB];
        Registration writable = register(client, ByteBuffer.wrap(replyMemory), MemoryAccess.REMOTE_WRITE);
        Registration source = register(server, ByteBuffer.wrap(result));
        // Writes of 3 MiB + 5 bytes: each starts in one block and ends three blocks on.
        segment = 3 * MIB + 5;
        for (int at = 0; at < result.length; at += segment, context++) {
            int from = at;
            long id = context;
            Segment remote = writable.segment(from, Math.min(segment, result.length - from));
            onAndBack(server, () -> a.connection().write(source, from, remote, id), a.recorder(),
                    "rdma " + id + " SUCCESS");
        }
        deregister(server, source);
        deregister(client, writable, readable);
        assertArrayEquals(result, replyMemory);

        RcFabricStatistics figures = server.statistics();
        assertEquals(0, counter(figures, RcCounter.PER_CALL_REGISTRATIONS), "no ibv_reg_mr for the server's chunks");
        assertEquals(0, gauge(figures, RcGauge.CHUNK_POOL_BYTES_IN_USE), "every block is back");
        assertEquals(17L * ChunkPool.SLAB, gauge(figures, RcGauge.CHUNK_POOL_BYTES_REGISTERED),
                "16 slabs of 1 MiB blocks, one of 4 KiB blocks, registered once and reused");
        assertEquals(0, figures.registrations());
    }

    /**
     * The server's device takes 4 entries per RDMA Read and 3 per RDMA Write: a transfer over 17
     * blocks goes out as several requests, each within the limit, on consecutive remote bytes; the
     * connection hears one completion for it. More requests than the send queue holds is refused.
     */
    @Test
    void anRdmaOverMoreBlocksThanARequestTakesIsCutIntoRequestsThatCompleteAsOne() throws Exception {
        serverDevice.maxSge(4, 3);
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(2, clientEvents, 2);
        byte[] callData = pattern(16 * MIB, 3);
        Registration readable = register(client, ByteBuffer.wrap(callData), MemoryAccess.REMOTE_READ);
        byte[] pulled = new byte[16 * MIB + 100];
        Registration target = register(server, ByteBuffer.wrap(pulled), MemoryAccess.LOCAL_WRITE);
        onAndBack(server, () -> a.connection().read(target, 100, readable.segment(0, callData.length), 1),
                a.recorder(), "rdma 1 SUCCESS");
        onAndBack(server, () -> a.connection().send(message("after"), 2), a.recorder(), "send 2 SUCCESS");
        assertEquals(List.of(4, 4, 4, 4, 1), entries(serverDevice.rdmaRequests()),
                "17 blocks (the 1 MiB ones from 100 bytes in, then the rest) in requests of 4");
        assertEquals(callData.length, bytes(serverDevice.rdmaRequests()));

        byte[] replyMemory = new byte[16 * MIB];
        Registration writable = register(client, ByteBuffer.wrap(replyMemory), MemoryAccess.REMOTE_WRITE);
        deregister(server, target);
        Registration source = register(server, ByteBuffer.wrap(pulled));
        onAndBack(server, () -> a.connection().write(source, 100, writable.segment(0, replyMemory.length), 3),
                a.recorder(), "rdma 3 SUCCESS");
        List<List<RcDevice.Sge>> writes = serverDevice.rdmaRequests().subList(5, 11);
        assertEquals(List.of(3, 3, 3, 3, 3, 2), entries(writes));
        assertEquals(replyMemory.length, bytes(writes));

        serverDevice.maxSge(1, 1);
        java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> on(server, () -> a.connection().write(source, 100, writable.segment(0, replyMemory.length), 4)));
        assertInstanceOf(IllegalArgumentException.class, refused.getCause(), "17 requests, a send queue of 16");
        assertEquals(11, serverDevice.rdmaRequests().size(), "nothing was posted");
        deregister(server, source);
        deregister(client, writable, readable);
        assertArrayEquals(callData, java.util.Arrays.copyOfRange(pulled, 100, pulled.length), "read whole");
        assertArrayEquals(callData, replyMemory, "written whole");
        assertEveryBlockBack();
    }

    private void assertEveryBlockBack() throws Exception {
        assertEquals(0, gauge(server.statistics(), RcGauge.CHUNK_POOL_BYTES_IN_USE), "every pool block is back");
    }

    private static List<Integer> entries(List<List<RcDevice.Sge>> requests) {
        return requests.stream().map(List::size).toList();
    }

    private static long bytes(List<List<RcDevice.Sge>> requests) {
        return requests.stream().flatMap(List::stream).mapToLong(RcDevice.Sge::length).sum();
    }

    /**
     * One request of a transfer cut in four fails (the peer registered only half the bytes): the
     * requests before it completed, those after it flush, and the connection hears the failure once.
     */
    @Test
    void aFailedRequestOfAnRdmaCutInSeveralIsItsOneCompletion() throws Exception {
        serverDevice.maxSge(4, 4);
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(2, clientEvents, 2);
        Registration half = register(client, ByteBuffer.allocate(8 * MIB), MemoryAccess.REMOTE_READ);
        Registration target = register(server, ByteBuffer.allocate(16 * MIB), MemoryAccess.LOCAL_WRITE);
        on(server, () -> a.connection().read(target, 0, new Segment(half.handle(), 16 * MIB, half.address()), 6));
        List<String> end = a.recorder().untilDisconnected();
        assertEquals(List.of("rdma 6 REMOTE_ACCESS"), end.stream().filter(event -> event.startsWith("rdma")).toList(),
                end.toString());
        assertEquals("disconnected REMOTE_ACCESS", end.getLast());
        assertEquals(4, serverDevice.rdmaRequests().size(), "four requests of 4 MiB");
        deregister(server, target);
        deregister(client, half);
        assertEveryBlockBack();
    }

    /**
     * The pool's bound is 20 MiB: with 17 MiB of slabs in use, a 4 MiB chunk gets no blocks (none
     * is kept: all or nothing) and is registered on its own, counted; once blocks are back it is
     * pooled again.
     */
    @Test
    void aChunkThePoolHasNoRoomForIsRegisteredOnItsOwnAndCounted() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(2, clientEvents, 2);
        byte[] callData = pattern(4 * MIB, 4);
        Registration readable = register(client, ByteBuffer.wrap(callData), MemoryAccess.REMOTE_READ);
        Registration big = register(server, ByteBuffer.allocate(16 * MIB + 100), MemoryAccess.LOCAL_WRITE);
        long inUse = gauge(server.statistics(), RcGauge.CHUNK_POOL_BYTES_IN_USE);
        byte[] pulled = new byte[4 * MIB];
        Registration alone = register(server, ByteBuffer.wrap(pulled), MemoryAccess.LOCAL_WRITE);
        RcFabricStatistics full = server.statistics();
        assertEquals(1, counter(full, RcCounter.PER_CALL_REGISTRATIONS));
        assertEquals(inUse, gauge(full, RcGauge.CHUNK_POOL_BYTES_IN_USE), "the blocks it could get were given back");
        assertEquals(CONFIG.chunkPoolBytes(), gauge(full, RcGauge.CHUNK_POOL_BYTES_REGISTERED), "up to the bound");
        onAndBack(server, () -> a.connection().read(alone, 0, readable.segment(0, callData.length), 7), a.recorder(),
                "rdma 7 SUCCESS");
        deregister(server, alone, big);
        assertArrayEquals(callData, pulled);

        Registration pooled = register(server, ByteBuffer.wrap(pulled), MemoryAccess.LOCAL_WRITE);
        assertEquals(1, counter(server.statistics(), RcCounter.PER_CALL_REGISTRATIONS), "the pool had room again");
        deregister(server, pooled);
        deregister(client, readable);
        assertEveryBlockBack();
    }

    @Test
    void aSendWithInvalidateOfAKeyThePeerNeverBoundEndsTheConnection() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(2, clientEvents, 2);
        assertTrue(on(server, () -> a.connection().remoteInvalidation()));
        on(server, () -> a.connection().sendInvalidating(message("reply"), 0x4321, 40));
        assertEquals(List.of("send 40 FABRIC_ERROR", "receiveFailed FLUSHED", "receiveFailed FLUSHED",
                "disconnected FABRIC_ERROR"), a.recorder().untilDisconnected());
        assertEquals(List.of("receiveFailed FABRIC_ERROR", "receiveFailed FLUSHED", "disconnected FABRIC_ERROR"),
                clientEvents.untilDisconnected());
        assertEquals(List.of(0x4321), serverDevice.sentWithInvalidate());
        assertEquals(List.of(0x4321), clientDevice.invalidatedKeys());
    }

    @Test
    void aDeviceWithoutMemoryManagementExtensionsCannotInvalidateRemotely() throws Exception {
        serverDevice.withoutRemoteInvalidation();
        EventRecorder clientEvents = new EventRecorder();
        Accepted a = connectedPair(2, clientEvents, 2);
        assertFalse(on(server, () -> a.connection().remoteInvalidation()));
        java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> on(server, () -> a.connection().sendInvalidating(message("reply"), 0x4321, 40)));
        assertInstanceOf(UnsupportedOperationException.class, refused.getCause());
        assertEquals(List.of(), serverDevice.sentWithInvalidate());
    }

    /** Waits until a gauge of the fabric reads {@code value}: local invalidates complete on the progress thread. */
    private static void awaitGauge(RcFabric fabric, RcGauge gauge, long value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (gauge(fabric.statistics(), gauge) != value) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(gauge + " is " + gauge(fabric.statistics(), gauge) + ", not " + value);
            }
            Thread.sleep(5);
        }
    }

    /** Both sides of a connection. */
    private record Sides(FabricConnection client, Accepted server) {
    }

    /** Accepts with 4 receives and connects the client with 4; both up. */
    private Sides connectedSides(EventRecorder clientEvents) throws Exception {
        acceptAll(4);
        FabricConnection clientSide = connect(client, clientEvents, 4);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        return new Sides(clientSide, a);
    }

    private static ByteBuffer filled(int length, int value) {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        java.util.Arrays.fill(buffer.array(), (byte) value);
        return buffer;
    }

    /**
     * The local path: a requester's chunk is a window pool block reached through a window bound on its
     * connection; when the call ends without the peer invalidating it, a local invalidate ends the key
     * and only then does the block go back. A peer that writes with the old key gets a remote access
     * error (and, as on any RC queue pair, loses its connection); the requester's memory is untouched.
     */
    @Test
    void aWindowsKeyWorksUntilItsCallEndsThenALocalInvalidateEndsIt() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Sides sides = connectedSides(clientEvents);
        FabricConnection clientSide = sides.client();
        Accepted a = sides.server();
        ByteBuffer replyMemory = filled(2000, 0x11);
        Registration writable = on(client, () -> client.register(clientSide, replyMemory.slice(100, 1500),
                EnumSet.of(MemoryAccess.REMOTE_WRITE)));
        RcFabricStatistics bound = client.statistics();
        assertEquals(1, counter(bound, RcCounter.WINDOWS_BOUND));
        assertEquals(0, counter(bound, RcCounter.PER_CALL_REGISTRATIONS), "no ibv_reg_mr for the call");
        assertEquals(ChunkPool.MIN_BLOCK, gauge(bound, RcGauge.WINDOW_POOL_BYTES_IN_USE));
        assertEquals(1, gauge(bound, RcGauge.MEMORY_WINDOWS));

        byte[] result = new byte[1500];
        Segment written = writable.segment(0, 1500);
        Registration source = writeThenReply(a, written, result, clientEvents);

        on(client, () -> {
            client.deregister(writable);
            return null;
        });
        byte[] landed = new byte[1500];
        replyMemory.get(100, landed);
        assertArrayEquals(result, landed, "the written bytes are in the caller's buffer once deregistered");
        assertEquals(0x11, replyMemory.get(99));
        assertEquals(1, counter(client.statistics(), RcCounter.LOCAL_INVALIDATIONS));
        awaitGauge(client, RcGauge.WINDOW_POOL_BYTES_IN_USE, 0);
        assertEquals(List.of(), clientDevice.invalidatedKeys());

        // The next call's chunk reuses the window with a new key, and the block pool. Readable too, so
        // the caller's bytes are in the block by the time its call is sent: a stale write would show.
        ByteBuffer next = filled(2000, 0x33);
        Registration again = on(client, () -> client.register(clientSide, next,
                EnumSet.of(MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE)));
        on(client, () -> clientSide.send(message("next call"), 35));
        assertEquals("send 35 SUCCESS", clientEvents.next());
        assertEquals("received next call", a.recorder().next());
        assertTrue(again.handle() != writable.handle(), "a fresh key");
        assertEquals(writable.handle() >>> 8, again.handle() >>> 8, "the same window");
        assertEquals(1, gauge(client.statistics(), RcGauge.MEMORY_WINDOWS));

        on(server, () -> a.connection().write(source, 0, written, 34));
        assertEquals("rdma 34 REMOTE_ACCESS", a.recorder().next(), "the old key reaches nothing");
        assertEquals("disconnected REMOTE_ACCESS", a.recorder().untilDisconnected().getLast());
        assertEquals("disconnected CLOSED", clientEvents.untilDisconnected().getLast());
        on(client, () -> {
            client.deregister(again);
            return null;
        });
        for (int i = 0; i < 2000; i++) {
            assertEquals(0x33, next.get(i), "the stale write landed nowhere");
        }
        on(server, () -> {
            server.deregister(source);
            return null;
        });
        // Every block is back once the reaper has taken the windows and the queue pair.
        awaitGauge(client, RcGauge.WINDOW_POOL_BYTES_IN_USE, 0);
        RcFabricStatistics after = client.statistics();
        assertEquals(0, gauge(after, RcGauge.MEMORY_WINDOWS), "the windows went with the queue pair");
        assertEquals(0, clientDevice.liveWindows());
        assertEquals(0, after.registrations());
    }

    /**
     * The remote path: the requester offered remote invalidation in its REQ, the responder's reply is
     * a Send with Invalidate naming the window's key, which the receive completion reports; the
     * window is free at once, without a local invalidate, and the key reaches nothing.
     */
    @Test
    void aSendWithInvalidateOfTheWindowsKeyFreesItWithoutALocalInvalidate() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Sides sides = connectedSides(clientEvents);
        FabricConnection clientSide = sides.client();
        Accepted a = sides.server();
        assertTrue(a.data().remoteInvalidate(), "the client offers remote invalidation");
        byte[] call = new byte[3000];
        java.util.Arrays.fill(call, (byte) 0x42);
        Registration readable = on(client, () -> client.register(clientSide, ByteBuffer.wrap(call),
                EnumSet.of(MemoryAccess.REMOTE_READ)));
        // The call that carries the key; its Send waits until the chunk's bytes are in the block.
        on(client, () -> clientSide.send(message("call"), 40));
        assertEquals("send 40 SUCCESS", clientEvents.next());
        assertEquals("received call", a.recorder().next());
        byte[] pulled = new byte[3000];
        Registration target = on(server, () -> server.register(ByteBuffer.wrap(pulled),
                EnumSet.of(MemoryAccess.LOCAL_WRITE)));
        on(server, () -> a.connection().read(target, 0, readable.segment(0, 3000), 41));
        assertEquals("rdma 41 SUCCESS", a.recorder().next());
        on(server, () -> {
            server.deregister(target);
            return null;
        });
        assertArrayEquals(call, pulled, "the peer read the call's bytes through the window");

        on(server, () -> a.connection().sendInvalidating(message("reply"), readable.handle(), 42));
        assertEquals("send 42 SUCCESS", a.recorder().next());
        assertEquals("received reply", clientEvents.next());
        assertEquals(List.of(readable.handle()), serverDevice.sentWithInvalidate());
        assertEquals(List.of(readable.handle()), clientDevice.invalidatedKeys());
        assertEquals(1, counter(client.statistics(), RcCounter.REMOTE_INVALIDATIONS));
        on(client, () -> {
            client.deregister(readable);
            return null;
        });
        RcFabricStatistics after = client.statistics();
        assertEquals(0, counter(after, RcCounter.LOCAL_INVALIDATIONS), "the peer invalidated it already");
        assertEquals(0, gauge(after, RcGauge.WINDOW_POOL_BYTES_IN_USE), "the block is back at once");

        Registration stale = on(server, () -> server.register(ByteBuffer.allocate(3000),
                EnumSet.of(MemoryAccess.LOCAL_WRITE)));
        on(server, () -> a.connection().read(stale, 0, readable.segment(0, 3000), 43));
        assertEquals("rdma 43 REMOTE_ACCESS", a.recorder().next(), "the invalidated key reaches nothing");
        on(server, () -> {
            server.deregister(stale);
            return null;
        });
    }

    /**
     * A call that ends without its reply (timed out) has its window invalidated locally, then parked:
     * bound with a key no peer has, over nothing. The reply that comes late as a Send with Invalidate of
     * the old key then matches no window (on rxe 6.1 a free window's key would crash the kernel): the
     * connection ends, the window's memory is back, and the window is bound afresh for the next call.
     */
    @Test
    void aLateSendWithInvalidateOfALocallyInvalidatedKeyFindsTheWindowParked() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Sides sides = connectedSides(clientEvents);
        FabricConnection clientSide = sides.client();
        Accepted a = sides.server();
        Registration timedOut = on(client, () -> client.register(clientSide, filled(3000, 5),
                EnumSet.of(MemoryAccess.REMOTE_WRITE)));
        on(client, () -> {
            client.deregister(timedOut);
            return null;
        });
        awaitGauge(client, RcGauge.WINDOW_POOL_BYTES_IN_USE, 0);
        Registration next = on(client, () -> client.register(clientSide, filled(100, 6),
                EnumSet.of(MemoryAccess.REMOTE_READ)));
        assertEquals(timedOut.handle() >>> 8, next.handle() >>> 8, "the parked window, bound again");
        assertEquals(MemoryWindow.nextRkey(MemoryWindow.nextRkey(timedOut.handle())), next.handle(),
                "after the key it was parked with");
        on(client, () -> {
            client.deregister(next);
            return null;
        });
        awaitGauge(client, RcGauge.WINDOW_POOL_BYTES_IN_USE, 0);

        on(server, () -> a.connection().sendInvalidating(message("late reply"), timedOut.handle(), 44));
        assertEquals("disconnected FABRIC_ERROR", clientEvents.untilDisconnected().getLast());
        assertEquals("disconnected FABRIC_ERROR", a.recorder().untilDisconnected().getLast());
        assertEquals(0, clientDevice.freeWindowInvalidations(), "no invalidation met a window that was not bound");
        awaitGauge(client, RcGauge.MEMORY_WINDOWS, 0); // counted back once the reaper's teardown is done
        assertEquals(0, clientDevice.destroyedWithBoundWindows(), "the parked window went before the queue pair");
        RcFabricStatistics after = client.statistics();
        assertEquals(2, counter(after, RcCounter.LOCAL_INVALIDATIONS));
        assertEquals(0, clientDevice.liveWindows());
    }

    /**
     * Closing a connection releases its windows and blocks: a chunk released while the connection
     * ends waits for the queue pair to go, one released after goes at once; no local invalidate is
     * posted on a queue pair in the error state.
     */
    @Test
    void closingAConnectionReleasesItsWindowsAndBlocks() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connectedSides(clientEvents).client();
        Registration first = on(client, () -> client.register(clientSide, filled(5000, 1),
                EnumSet.of(MemoryAccess.REMOTE_WRITE)));
        Registration second = on(client, () -> client.register(clientSide, filled(100, 2),
                EnumSet.of(MemoryAccess.REMOTE_READ)));
        assertEquals(2, gauge(client.statistics(), RcGauge.MEMORY_WINDOWS));
        on(client, () -> {
            clientSide.close();
            client.deregister(first);
            return null;
        });
        assertEquals("disconnected CLOSED", clientEvents.untilDisconnected().getLast());
        // The first chunk's block comes back once the reaper has destroyed the windows and the queue
        // pair; the second chunk is the transport's until it releases it.
        awaitGauge(client, RcGauge.WINDOW_POOL_BYTES_IN_USE, ChunkPool.MIN_BLOCK);
        on(client, () -> {
            client.deregister(second);
            return null;
        });
        // At once, or once the copy into it (made outside the turn, for a call never sent) is made.
        awaitGauge(client, RcGauge.WINDOW_POOL_BYTES_IN_USE, 0);
        RcFabricStatistics after = client.statistics();
        assertEquals(0, counter(after, RcCounter.LOCAL_INVALIDATIONS));
        assertEquals(0, gauge(after, RcGauge.MEMORY_WINDOWS));
        assertEquals(0, clientDevice.liveWindows());
        assertEquals(0, clientDevice.destroyedWithBoundWindows(), "both windows, still bound, went first");
    }

    /** A chunk larger than the window pool's blocks gets a registration of its own, still behind a window. */
    @Test
    void aChunkLargerThanThePoolsBlocksIsRegisteredForItsCallBehindAWindow() throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        Sides sides = connectedSides(clientEvents);
        FabricConnection clientSide = sides.client();
        Accepted a = sides.server();
        int length = ChunkPool.MAX_BLOCK + 4096;
        ByteBuffer large = filled(length + 1, 7);
        Registration writable = on(client, () -> client.register(clientSide, large.slice(0, length),
                EnumSet.of(MemoryAccess.REMOTE_WRITE)));
        RcFabricStatistics bound = client.statistics();
        assertEquals(1, counter(bound, RcCounter.PER_CALL_REGISTRATIONS), "counted");
        assertEquals(1, counter(bound, RcCounter.WINDOWS_BOUND), "still reached through a window");
        Registration source = on(server, () -> server.register(filled(4096, 9), EnumSet.noneOf(MemoryAccess.class)));
        on(server, () -> a.connection().write(source, 0, writable.segment(length - 4096, 4096), 51));
        assertEquals("rdma 51 SUCCESS", a.recorder().next());
        int registered = clientDevice.liveRegistrations();
        on(client, () -> {
            client.deregister(writable);
            return null;
        });
        assertEquals(9, large.get(length - 1));
        assertEquals(7, large.get(length), "the byte after the registration is untouched");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (clientDevice.liveRegistrations() != registered - 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(registered - 1, clientDevice.liveRegistrations(), "deregistered once its key was invalidated");
        on(server, () -> {
            server.deregister(source);
            return null;
        });
    }

    /**
     * A device without type 2 windows: chunks are registered per call, counted, and the requester does
     * not offer remote invalidation (a peer's Send with Invalidate of a registration's key would fail).
     */
    @Test
    void withoutMemoryWindowsChunksAreRegisteredPerCallAndNoInvalidationIsOffered() throws Exception {
        clientDevice.withoutMemoryWindows();
        EventRecorder clientEvents = new EventRecorder();
        Sides sides = connectedSides(clientEvents);
        FabricConnection clientSide = sides.client();
        Accepted a = sides.server();
        assertFalse(a.data().remoteInvalidate());
        assertArrayEquals(new int[] {CONFIG.sendDepth(), 4}, clientDevice.queueDepths().getFirst(),
                "no room for windows");
        ByteBuffer memory = filled(1000, 3);
        Registration writable = on(client, () -> client.register(clientSide, memory, EnumSet.of(MemoryAccess.REMOTE_WRITE)));
        Registration source = on(server, () -> server.register(filled(1000, 4), EnumSet.noneOf(MemoryAccess.class)));
        on(server, () -> a.connection().write(source, 0, writable.segment(0, 1000), 61));
        assertEquals("rdma 61 SUCCESS", a.recorder().next());
        on(client, () -> {
            client.deregister(writable);
            return null;
        });
        on(server, () -> {
            server.deregister(source);
            return null;
        });
        assertEquals(4, memory.get(999));
        RcFabricStatistics figures = client.statistics();
        assertEquals(1, counter(figures, RcCounter.PER_CALL_REGISTRATIONS));
        assertEquals(0, counter(figures, RcCounter.WINDOWS_BOUND));
        assertEquals(0, gauge(figures, RcGauge.MEMORY_WINDOWS));
    }

    @Test
    void theSendWithInvalidateRequestIsRdmaCoresSendWithInv() {
        org.rpcrdma4j.verbs.SendRequestFields wr = new org.rpcrdma4j.verbs.SendRequestFields(
                VerbsRcDevice.sendWithInvalidate(new org.rpcrdma4j.verbs.SendWorkRequest(1), 0x77, 0x7f00_1000L, 300,
                        0x55, 0x9abc_def0));
        assertEquals(0x77, wr.wrId());
        assertEquals(org.rpcrdma4j.verbs.SendRequestFields.constant("IBV_WR_SEND_WITH_INV"), wr.opcode());
        assertEquals(0x9abc_def0, wr.invalidateRkey());
        assertEquals(org.rpcrdma4j.verbs.SendRequestFields.constant("IBV_SEND_SIGNALED"), wr.sendFlags());
        assertTrue(wr.alone(), "not chained");
        assertEquals(1, wr.numSge());
        assertArrayEquals(new long[] {0x7f00_1000L, 300, 0x55}, wr.sge(0));
    }

    @Test
    void anRdmaRequestIsRdmaCoresWithItsScatterGatherListInOrder() {
        List<RcDevice.Sge> local = new ArrayList<>();
        for (int i = 0; i < VerbsRcDevice.MAX_SGE; i++) {
            local.add(new RcDevice.Sge(0x7f00_0000L + i * 0x10_0000L, 0x1000 + i, 0x50 + i));
        }
        org.rpcrdma4j.verbs.SendRequestFields wr = new org.rpcrdma4j.verbs.SendRequestFields(VerbsRcDevice.rdma(
                new org.rpcrdma4j.verbs.SendWorkRequest(VerbsRcDevice.MAX_SGE), 0x78, true, local, 0x1234_5678_9000L,
                0x4455));
        assertEquals(0x78, wr.wrId());
        assertEquals(org.rpcrdma4j.verbs.SendRequestFields.constant("IBV_WR_RDMA_READ"), wr.opcode());
        assertEquals(0x1234_5678_9000L, wr.remoteAddress());
        assertEquals(0x4455, wr.rkey());
        assertEquals(org.rpcrdma4j.verbs.SendRequestFields.constant("IBV_SEND_SIGNALED"), wr.sendFlags());
        assertTrue(wr.alone(), "not chained");
        assertEquals(VerbsRcDevice.MAX_SGE, wr.numSge());
        for (int i = 0; i < local.size(); i++) {
            RcDevice.Sge sge = local.get(i);
            assertArrayEquals(new long[] {sge.address(), sge.length(), sge.lkey()}, wr.sge(i));
        }
        org.rpcrdma4j.verbs.SendRequestFields write = new org.rpcrdma4j.verbs.SendRequestFields(VerbsRcDevice.rdma(
                new org.rpcrdma4j.verbs.SendWorkRequest(1), 0x79, false, local.subList(0, 1), 0x2000, 0x66));
        assertEquals(org.rpcrdma4j.verbs.SendRequestFields.constant("IBV_WR_RDMA_WRITE"), write.opcode());
        assertEquals(1, write.numSge());
    }

    @Test
    void theReceiveQueueIsAsDeepAsTheReceivesGivenWithinTheDevicesLimit() throws Exception {
        acceptAll(5);
        EventRecorder clientEvents = new EventRecorder();
        connect(client, clientEvents, 3);
        nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        // A requester with memory windows has room for the binds and local invalidates of each window beside its Sends.
        assertArrayEquals(new int[] {5 * CONFIG.sendDepth(), 3}, clientDevice.queueDepths().getFirst());
        assertArrayEquals(new int[] {CONFIG.sendDepth(), 5}, serverDevice.queueDepths().getFirst());

        // More receives than the device's max_qp_wr: the connection fails to come up, nothing leaks.
        clientDevice.maxQueueDepth(5 * CONFIG.sendDepth() + 1);
        EventRecorder tooDeep = new EventRecorder();
        connect(client, tooDeep, 5 * CONFIG.sendDepth() + 2);
        List<String> end = tooDeep.untilDisconnected();
        assertEquals(5 * CONFIG.sendDepth() + 2, end.stream().filter("receiveFailed FLUSHED"::equals).count(), end.toString());
        assertEquals("disconnected FABRIC_ERROR", end.getLast());
    }

    @Test
    void aMessageLongerThanTheReceiveEndsTheConnection() throws Exception {
        acceptAll(2, 16);
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 2);
        EventRecorder serverEvents = nextAccepted().recorder();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        on(client, () -> clientSide.send(message("seventeen bytes!!"), 1));
        List<String> end = serverEvents.untilDisconnected();
        assertEquals(List.of("receiveFailed MESSAGE_TOO_LONG", "receiveFailed FLUSHED",
                "disconnected MESSAGE_TOO_LONG"), end);
        List<String> clientEnd = clientEvents.untilDisconnected();
        assertEquals("send 1 REMOTE_ACCESS", clientEnd.get(0));
        assertEquals("disconnected REMOTE_ACCESS", clientEnd.getLast());
    }

    @Test
    void deviceRemovalAndABrokenQueuePairEndTheirConnections() throws Exception {
        acceptAll(2);
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(client, clientEvents, 2);
        Accepted a = nextAccepted();
        clientEvents.established.get(10, TimeUnit.SECONDS);
        clientDevice.remove();
        assertEquals("disconnected FABRIC_ERROR", clientEvents.untilDisconnected().getLast());
        assertEquals("disconnected CLOSED", a.recorder().untilDisconnected().getLast());

        EventRecorder again = new EventRecorder();
        FabricConnection second = connect(client, again, 2);
        Accepted b = nextAccepted();
        again.established.get(10, TimeUnit.SECONDS);
        int qpNum = on(client, () -> ((RcConnection) second).qpNum());
        clientDevice.fatal(qpNum);
        assertEquals(List.of("receiveFailed FLUSHED", "receiveFailed FLUSHED", "disconnected FABRIC_ERROR"),
                again.untilDisconnected());
        b.recorder().untilDisconnected();
        assertTrue(clientSide.peer() != null);
    }

    @Test
    void theStatusTableNamesEveryCompletionAndConnectionEvent() {
        assertEquals(FabricStatus.SUCCESS, RcStatus.of(WcStatus.SUCCESS));
        assertEquals(FabricStatus.FLUSHED, RcStatus.of(WcStatus.WR_FLUSH_ERR));
        assertEquals(FabricStatus.MESSAGE_TOO_LONG, RcStatus.of(WcStatus.LOC_LEN_ERR));
        assertEquals(FabricStatus.LOCAL_PROTECTION, RcStatus.of(WcStatus.LOC_PROT_ERR));
        assertEquals(FabricStatus.LOCAL_PROTECTION, RcStatus.of(WcStatus.LOC_ACCESS_ERR));
        assertEquals(FabricStatus.REMOTE_ACCESS, RcStatus.of(WcStatus.REM_ACCESS_ERR));
        assertEquals(FabricStatus.REMOTE_ACCESS, RcStatus.of(WcStatus.REM_INV_REQ_ERR));
        assertEquals(FabricStatus.RECEIVER_NOT_READY, RcStatus.of(WcStatus.RNR_RETRY_EXC_ERR));
        assertEquals(FabricStatus.PEER_UNREACHABLE, RcStatus.of(WcStatus.RETRY_EXC_ERR));
        assertEquals(FabricStatus.PEER_UNREACHABLE, RcStatus.of(WcStatus.RESP_TIMEOUT_ERR));
        for (WcStatus status : List.of(WcStatus.LOC_QP_OP_ERR, WcStatus.BAD_RESP_ERR, WcStatus.REM_OP_ERR,
                WcStatus.FATAL_ERR, WcStatus.GENERAL_ERR, WcStatus.MW_BIND_ERR, WcStatus.REM_ABORT_ERR)) {
            assertEquals(FabricStatus.FABRIC_ERROR, RcStatus.of(status), status.name());
        }
        for (WcStatus status : WcStatus.values()) {
            assertEquals(status == WcStatus.SUCCESS, RcStatus.of(status).ok(), status.name());
        }

        assertEquals(FabricStatus.CLOSED, RcStatus.ending(CmEventType.DISCONNECTED));
        assertEquals(FabricStatus.CLOSED, RcStatus.ending(CmEventType.TIMEWAIT_EXIT));
        assertEquals(FabricStatus.REFUSED, RcStatus.ending(CmEventType.REJECTED));
        assertEquals(FabricStatus.FABRIC_ERROR, RcStatus.ending(CmEventType.DEVICE_REMOVAL));
        for (CmEventType type : List.of(CmEventType.ADDR_ERROR, CmEventType.ROUTE_ERROR, CmEventType.UNREACHABLE,
                CmEventType.CONNECT_ERROR)) {
            assertEquals(FabricStatus.PEER_UNREACHABLE, RcStatus.ending(type), type.name());
        }
        for (CmEventType type : List.of(CmEventType.ADDR_RESOLVED, CmEventType.ROUTE_RESOLVED,
                CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED)) {
            assertEquals(null, RcStatus.ending(type), type.name());
        }
    }

    @Test
    void privateDataIsRecognisedByItsMagicInAPaddedRoom() {
        byte[] req = new byte[SimulatedRc.REQ_ROOM];
        System.arraycopy(CLIENT_DATA.toBytes(), 0, req, 0, ConnectPrivateData.ENCODED_LENGTH);
        assertEquals(CLIENT_DATA, CmPrivateData.recognise(req));
        assertEquals(ConnectPrivateData.DEFAULT, CmPrivateData.recognise(new byte[SimulatedRc.REP_ROOM]));
        assertEquals(ConnectPrivateData.DEFAULT, CmPrivateData.recognise(new byte[0]));
        assertEquals(ConnectPrivateData.DEFAULT, CmPrivateData.recognise(new byte[] {(byte) 0xf6, (byte) 0xab}));
    }
}
