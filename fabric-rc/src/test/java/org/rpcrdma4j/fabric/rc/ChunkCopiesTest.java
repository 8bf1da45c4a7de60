package org.rpcrdma4j.fabric.rc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.on;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.receives;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.fabric.conformance.EventRecorder;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * The RC fabric's chunk copies are made outside its turn, which every connection needs: while a
 * megabyte is copied into or out of registered memory for one connection (held by a {@link CopyGate}),
 * another connection of the same fabrics sends and receives, and the work that needs the copy (the
 * Send carrying a chunk's key, an RDMA Write from a result's copy, the continuation of a
 * deregistration) waits for it alone.
 */
class ChunkCopiesTest {

    private static final int MIB = 1 << 20;
    private static final RcFabric.Config CONFIG = new RcFabric.Config(16, 1024, 20L << 20);
    private static final ConnectPrivateData CLIENT_DATA = new ConnectPrivateData(true, 1024, 1024);
    private static final ConnectPrivateData SERVER_DATA = new ConnectPrivateData(false, 1024, 1024);
    private static final Set<MemoryAccess> REMOTE_READ = EnumSet.of(MemoryAccess.REMOTE_READ);
    private static final Set<MemoryAccess> REMOTE_WRITE = EnumSet.of(MemoryAccess.REMOTE_WRITE);
    private static final Set<MemoryAccess> LOCAL_WRITE = EnumSet.of(MemoryAccess.LOCAL_WRITE);

    private final SimulatedRc network = new SimulatedRc();
    private final InetAddress serverIp = ip(10, 0, 2, 1);
    private final InetAddress clientIp = ip(10, 0, 2, 2);
    private SimulatedRc.Device serverDevice;
    private SimulatedRc.Device clientDevice;
    private RcFabric server;
    private RcFabric client;
    private final LinkedBlockingQueue<Side> accepted = new LinkedBlockingQueue<>();
    /** The connection that copies (a) and the one that must go on meanwhile (b). */
    private Pair a;
    private Pair b;

    /** One end of a connection and what it heard. */
    private record Side(FabricConnection connection, EventRecorder events) {
    }

    /** Both ends of a connection. */
    private record Pair(Side client, Side server) {
    }

    @BeforeEach
    void connect() throws Exception {
        serverDevice = network.device(serverIp);
        clientDevice = network.device(clientIp);
        server = new RcFabric(serverDevice, new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT), CONFIG);
        client = new RcFabric(clientDevice, new InetSocketAddress(clientIp, 0), CONFIG);
        on(server, () -> {
            server.listen(request -> {
                EventRecorder events = new EventRecorder();
                accepted.add(new Side(request.accept(SERVER_DATA, receives(4, 1024), events), events));
            });
            return null;
        });
        a = pair();
        b = pair();
    }

    private Pair pair() throws Exception {
        FabricAddress peer = server.localAddress();
        EventRecorder events = new EventRecorder();
        FabricConnection connection = on(client, () -> client.connect(peer, CLIENT_DATA, receives(4, 1024), events));
        Side serverSide = accepted.poll(HangGuard.SECONDS, TimeUnit.SECONDS);
        assertNotNull(serverSide, "no connection was accepted");
        events.peerData();
        serverSide.events().peerData();
        return new Pair(new Side(connection, events), serverSide);
    }

    @AfterEach
    void close() {
        client.close();
        server.close();
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

    private static ByteBuffer message(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + (i >>> 10));
        }
        return bytes;
    }

    /**
     * Runs commands on another thread, which may make the copies they ask for itself once out of the
     * turn and be held there, so that the test's thread is free meanwhile.
     */
    private static void elsewhere(RcFabric fabric, Runnable command) {
        CompletableFuture.runAsync(() -> fabric.execute(command));
    }

    /** Connection b carries a message each way, end to end, on both fabrics' progress threads. */
    private void bGoesOn(int round) throws Exception {
        on(client, () -> b.client().connection().send(message("ping " + round), 100 + round));
        assertEquals("received ping " + round, b.server().events().next());
        assertEquals("send " + (100 + round) + " SUCCESS", b.client().events().next());
        on(server, () -> b.server().connection().send(message("pong " + round), 200 + round));
        assertEquals("received pong " + round, b.client().events().next());
        assertEquals("send " + (200 + round) + " SUCCESS", b.server().events().next());
    }

    private static long gauge(RcFabric fabric, RcGauge gauge) {
        return fabric.statistics().gauge(gauge);
    }

    /**
     * A requester's megabyte chunk, behind a window of connection a, is copied into the window pool's
     * block outside the turn; the call's Send, which carries the key, waits for the copy, and so does
     * nothing else: connection b goes on meanwhile. The responder then reads the caller's bytes.
     */
    @Test
    void aChunksCopyInWaitsOnlyItsConnectionsSends() throws Exception {
        CopyGate gate = CopyGate.on(client, MIB);
        byte[] call = pattern(MIB);
        CompletableFuture<Registration> chunk = new CompletableFuture<>();
        elsewhere(client, () -> {
            chunk.complete(client.register(a.client().connection(), ByteBuffer.wrap(call), REMOTE_READ));
            a.client().connection().send(message("call"), 1);
        });
        gate.awaitHolding();

        bGoesOn(1);
        bGoesOn(2);
        assertEquals(List.of(), a.server().events().rest(), "the call waits for its chunk's copy");
        assertEquals(List.of(), a.client().events().rest(), "its Send is not posted yet");
        CopyGate.Copy held = gate.held();
        assertTrue(held.in(), "the chunk's copy in: " + held);
        assertFalse(held.inTurn(), "made outside the turn, on " + held.thread());

        long copiedBefore = client.statistics().bytesCopied();
        gate.open();
        assertEquals("received call", a.server().events().next());
        assertEquals("send 1 SUCCESS", a.client().events().next());
        assertEquals(MIB, client.statistics().bytesCopied() - copiedBefore, "counted once made");
        Registration readable = chunk.get(HangGuard.SECONDS, TimeUnit.SECONDS);
        byte[] pulled = new byte[MIB];
        Registration target = on(server, () -> server.register(ByteBuffer.wrap(pulled), LOCAL_WRITE));
        on(server, () -> a.server().connection().read(target, 0, readable.segment(0, MIB), 2));
        assertEquals("rdma 2 SUCCESS", a.server().events().next());
        deregister(server, target);
        assertArrayEquals(call, pulled, "the peer read the caller's bytes");
        deregister(client, readable);
    }

    /**
     * A responder's RDMA Read target is copied out of its pool blocks outside the turn, after the
     * deregistration returned; its continuation runs in the turn once the bytes are in the caller's
     * buffer, and the blocks go back only then. Connection b goes on meanwhile.
     */
    @Test
    void aTargetsCopyOutRunsItsContinuationOnceMade() throws Exception {
        byte[] call = pattern(MIB);
        Registration readable = on(client, () -> client.register(a.client().connection(), ByteBuffer.wrap(call),
                REMOTE_READ));
        on(client, () -> a.client().connection().send(message("call"), 1));
        assertEquals("received call", a.server().events().next());
        byte[] pulled = new byte[MIB];
        Registration target = on(server, () -> server.register(ByteBuffer.wrap(pulled), LOCAL_WRITE));
        on(server, () -> a.server().connection().read(target, 0, readable.segment(0, MIB), 2));
        assertEquals("rdma 2 SUCCESS", a.server().events().next());

        CopyGate gate = CopyGate.on(server, MIB);
        CompletableFuture<Boolean> pulledBack = new CompletableFuture<>();
        elsewhere(server, () -> server.deregister(target, Long.MAX_VALUE,
                () -> pulledBack.complete(server.onProgressThread())));
        gate.awaitHolding();

        bGoesOn(1);
        assertFalse(pulledBack.isDone(), "the continuation waits for the copy");
        assertEquals(0, server.statistics().registrations(), "deregistered at once");
        assertEquals(MIB, gauge(server, RcGauge.CHUNK_POOL_BYTES_IN_USE), "the blocks stay out while copied");
        CopyGate.Copy held = gate.held();
        assertFalse(held.in(), "the target's copy out: " + held);
        assertFalse(held.inTurn(), "made outside the turn, on " + held.thread());

        gate.open();
        assertTrue(pulledBack.get(HangGuard.SECONDS, TimeUnit.SECONDS), "the continuation runs in the turn");
        assertArrayEquals(call, pulled, "the bytes read are in the caller's buffer");
        assertEquals(0, gauge(server, RcGauge.CHUNK_POOL_BYTES_IN_USE), "the blocks are back");
        deregister(client, readable);
    }

    /**
     * A responder's RDMA Write from a result's pool copy waits for the copy in, and the reply's Send
     * posted after it waits behind it, as a send queue runs in order; connection b goes on meanwhile.
     */
    @Test
    void anRdmaWriteAndTheSendBehindItWaitForTheSourcesCopy() throws Exception {
        byte[] replyMemory = new byte[MIB];
        Registration writable = on(client, () -> client.register(a.client().connection(),
                ByteBuffer.wrap(replyMemory), REMOTE_WRITE));
        on(client, () -> a.client().connection().send(message("call"), 1));
        assertEquals("received call", a.server().events().next());
        assertEquals("send 1 SUCCESS", a.client().events().next());

        CopyGate gate = CopyGate.on(server, MIB);
        byte[] result = pattern(MIB);
        CompletableFuture<Registration> source = new CompletableFuture<>();
        elsewhere(server, () -> {
            Registration registered = server.register(ByteBuffer.wrap(result), EnumSet.noneOf(MemoryAccess.class));
            source.complete(registered);
            a.server().connection().write(registered, 0, writable.segment(0, MIB), 2);
            a.server().connection().send(message("reply"), 3);
        });
        gate.awaitHolding();

        bGoesOn(1);
        assertEquals(List.of(), a.server().events().rest(), "the Write and the Send wait for the copy");
        assertEquals(List.of(), a.client().events().rest(), "no reply yet");
        assertFalse(gate.held().inTurn(), "the result's copy in, made outside the turn");

        gate.open();
        assertEquals("rdma 2 SUCCESS", a.server().events().next());
        assertEquals("send 3 SUCCESS", a.server().events().next());
        assertEquals("received reply", a.client().events().next());
        CompletableFuture<Boolean> landed = new CompletableFuture<>();
        on(client, () -> {
            client.deregister(writable, MIB, () -> landed.complete(client.onProgressThread()));
            return null;
        });
        assertTrue(landed.get(HangGuard.SECONDS, TimeUnit.SECONDS));
        assertArrayEquals(result, replyMemory, "the result, copied in, written, copied back");
        deregister(server, source.get(HangGuard.SECONDS, TimeUnit.SECONDS));
    }

    /**
     * A connection that ends while its Send waits for a chunk's copy flushes that Send as posted work;
     * the chunk, deregistered meanwhile, is not copied back (nothing reached it), its deregistration's
     * continuation runs only once the copy in no longer reads the caller's bytes, and its block goes
     * back once the copy is made and the window is gone.
     */
    @Test
    void workWaitingForACopyFlushesWithItsConnection() throws Exception {
        CopyGate gate = CopyGate.on(client, MIB);
        CompletableFuture<Registration> chunk = new CompletableFuture<>();
        elsewhere(client, () -> {
            chunk.complete(client.register(a.client().connection(), ByteBuffer.wrap(pattern(MIB)),
                    EnumSet.of(MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE)));
            a.client().connection().send(message("call"), 1);
        });
        gate.awaitHolding();
        Registration registered = chunk.get(HangGuard.SECONDS, TimeUnit.SECONDS);
        CompletableFuture<Boolean> released = new CompletableFuture<>();
        on(client, () -> {
            a.client().connection().close();
            client.deregister(registered, MIB, () -> released.complete(client.onProgressThread()));
            return null;
        });
        List<String> end = a.client().events().untilDisconnected();
        assertTrue(end.contains("send 1 FLUSHED"), "the Send held back flushes: " + end);
        assertEquals("disconnected CLOSED", end.getLast());
        assertFalse(a.server().events().untilDisconnected().contains("received call"), "the call never left");
        assertEquals(MIB, gauge(client, RcGauge.WINDOW_POOL_BYTES_IN_USE), "the block stays out while copied into");
        bGoesOn(1);
        assertFalse(released.isDone(), "the caller's bytes are the fabric's while the copy in reads them");

        long copiedBefore = client.statistics().bytesCopied();
        gate.open();
        assertTrue(released.get(HangGuard.SECONDS, TimeUnit.SECONDS), "the continuation runs in the turn");
        HangGuard.waitFor(() -> gauge(client, RcGauge.WINDOW_POOL_BYTES_IN_USE) == 0);
        assertEquals(MIB, client.statistics().bytesCopied() - copiedBefore, "the copy in, and nothing copied back");
    }

    /**
     * The progress thread's copies are the copier's, one after another: a copy in still waiting behind
     * another when its region is deregistered is called off, never touching the caller's bytes, and the
     * deregistration's continuation runs at once.
     */
    @Test
    void aCopyInNotYetBegunIsCalledOffByItsDeregistration() throws Exception {
        CopyGate gate = CopyGate.on(client, MIB);
        CompletableFuture<Registration> large = new CompletableFuture<>();
        CompletableFuture<Boolean> smallReleased = new CompletableFuture<>();
        EventRecorder events = new EventRecorder();
        // Registered on the progress thread, as a call sent when a credit comes back is.
        ConnectionListener registersOnReceive = new ForwardingListener(events) {
            @Override
            public void onReceived(ByteBuffer buffer, int length) {
                if (!large.isDone()) {
                    Set<MemoryAccess> none = EnumSet.noneOf(MemoryAccess.class);
                    large.complete(client.register(ByteBuffer.wrap(pattern(MIB)), none));
                    Registration small = client.register(ByteBuffer.wrap(pattern(4096)), none);
                    client.deregister(small, 0, () -> smallReleased.complete(!gate.opened()));
                }
                super.onReceived(buffer, length);
            }
        };
        FabricAddress peer = server.localAddress();
        on(client, () -> client.connect(peer, CLIENT_DATA, receives(4, 1024), registersOnReceive));
        Side serverSide = accepted.poll(HangGuard.SECONDS, TimeUnit.SECONDS);
        assertNotNull(serverSide, "no connection was accepted");
        events.peerData();
        on(server, () -> serverSide.connection().send(message("go"), 1));
        assertEquals("received go", events.next());
        gate.awaitHolding();

        assertTrue(smallReleased.get(HangGuard.SECONDS, TimeUnit.SECONDS), "released while the large copy is held");
        assertEquals(List.of(MIB), gate.copies().stream().map(CopyGate.Copy::bytes).map(Long::intValue).toList(),
                "the small copy was never begun");
        long copiedBefore = client.statistics().bytesCopied();
        gate.open();
        HangGuard.waitFor(() -> client.statistics().bytesCopied() - copiedBefore == MIB);
        deregister(client, large.get(HangGuard.SECONDS, TimeUnit.SECONDS));
        HangGuard.waitFor(() -> gauge(client, RcGauge.CHUNK_POOL_BYTES_IN_USE) == 0);
        assertEquals(List.of(MIB), gate.copies().stream().map(CopyGate.Copy::bytes).map(Long::intValue).toList());
    }

    /** Hands every event to another listener; a test overrides what it does besides. */
    private static class ForwardingListener implements ConnectionListener {

        private final ConnectionListener listener;

        ForwardingListener(ConnectionListener listener) {
            this.listener = listener;
        }

        @Override
        public void onEstablished(ConnectPrivateData peerData) {
            listener.onEstablished(peerData);
        }

        @Override
        public void onReceived(ByteBuffer buffer, int length) {
            listener.onReceived(buffer, length);
        }

        @Override
        public void onReceiveFailed(ByteBuffer buffer, FabricStatus status) {
            listener.onReceiveFailed(buffer, status);
        }

        @Override
        public void onSendCompleted(long context, FabricStatus status) {
            listener.onSendCompleted(context, status);
        }

        @Override
        public void onRdmaCompleted(long context, FabricStatus status) {
            listener.onRdmaCompleted(context, status);
        }

        @Override
        public void onDisconnected(FabricStatus status, String detail) {
            listener.onDisconnected(status, detail);
        }
    }

    private static void deregister(RcFabric fabric, Registration registration) throws Exception {
        on(fabric, () -> {
            fabric.deregister(registration);
            return null;
        });
    }
}
