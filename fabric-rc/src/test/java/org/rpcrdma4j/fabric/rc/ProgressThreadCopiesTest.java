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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.fabric.conformance.EventRecorder;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * Who makes a chunk copy the progress thread's own work asks for (here a listener that deregisters an RDMA
 * Read's target when the Read completes): with one connection, the progress thread itself once it has let go
 * of the turn, sparing the hand-over to the copier and back, as no other connection's completions can wait
 * for it; with more, the fabric's copier, so that theirs go on meanwhile. Never in the turn either way.
 */
class ProgressThreadCopiesTest {

    private static final int MIB = 1 << 20;
    private static final RcFabric.Config CONFIG = new RcFabric.Config(16, 1024, 20L << 20);
    private static final ConnectPrivateData CLIENT_DATA = new ConnectPrivateData(true, 1024, 1024);
    private static final ConnectPrivateData SERVER_DATA = new ConnectPrivateData(false, 1024, 1024);

    private final SimulatedRc network = new SimulatedRc();
    private final InetAddress serverIp = ip(10, 0, 3, 1);
    private final InetAddress clientIp = ip(10, 0, 3, 2);
    private final CompletableFuture<Registration> target = new CompletableFuture<>();
    private final CompletableFuture<Boolean> pulledBack = new CompletableFuture<>();
    /** The call's Send arrived: the bytes it offers are in registered memory (the seam's rule). */
    private final CompletableFuture<Void> called = new CompletableFuture<>();
    private RcFabric server;
    private RcFabric client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aCopyTheProgressThreadAsksForIsMadeOutsideTheTurn(int connections) throws Exception {
        byte[] call = new byte[MIB];
        for (int i = 0; i < MIB; i++) {
            call[i] = (byte) (i * 31 + (i >>> 10));
        }
        byte[] pulled = new byte[MIB];
        LinkedBlockingQueue<FabricConnection> accepted = new LinkedBlockingQueue<>();
        server = new RcFabric(network.device(serverIp), new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT),
                CONFIG);
        client = new RcFabric(network.device(clientIp), new InetSocketAddress(clientIp, 0), CONFIG);
        on(server, () -> {
            server.listen(request -> accepted.add(request.accept(SERVER_DATA, receives(4, 1024),
                    new DeregisteringOnRead())));
            return null;
        });
        FabricConnection requester = null;
        FabricConnection responder = null;
        for (int i = 0; i < connections; i++) {
            EventRecorder events = new EventRecorder();
            FabricConnection connection = on(client, () -> client.connect(server.localAddress(), CLIENT_DATA,
                    receives(4, 1024), events));
            FabricConnection served = accepted.poll(HangGuard.SECONDS, TimeUnit.SECONDS);
            assertNotNull(served, "no connection was accepted");
            events.peerData();
            requester = requester == null ? connection : requester;
            responder = responder == null ? served : responder;
        }
        FabricConnection from = requester;
        FabricConnection reader = responder;
        Registration readable = on(client, () -> client.register(from, ByteBuffer.wrap(call),
                EnumSet.of(MemoryAccess.REMOTE_READ)));
        on(client, () -> from.send(ByteBuffer.wrap("call".getBytes(StandardCharsets.US_ASCII)), 1));
        called.get(HangGuard.SECONDS, TimeUnit.SECONDS);
        CopyGate gate = CopyGate.on(server, Long.MAX_VALUE);

        Registration into = on(server, () -> server.register(ByteBuffer.wrap(pulled),
                EnumSet.of(MemoryAccess.LOCAL_WRITE)));
        target.complete(into);
        on(server, () -> reader.read(into, 0, readable.segment(0, MIB), 2));

        assertTrue(pulledBack.get(HangGuard.SECONDS, TimeUnit.SECONDS), "the continuation runs in the turn");
        assertArrayEquals(call, pulled);
        CopyGate.Copy out = gate.copies().stream().filter(copy -> !copy.in()).findFirst().orElseThrow();
        assertEquals(MIB, out.bytes());
        assertFalse(out.inTurn(), "made outside the turn, on " + out.thread());
        assertTrue(out.thread().startsWith(connections == 1 ? "rc-fabric " : "rc-copier "),
                connections + " connection(s): made on " + out.thread());
        on(client, () -> {
            client.deregister(readable);
            return null;
        });
    }

    /** Deregisters the RDMA Read's target when the Read completes: on the progress thread, in the turn. */
    private final class DeregisteringOnRead implements ConnectionListener {

        @Override
        public void onEstablished(ConnectPrivateData peerData) {
        }

        @Override
        public void onReceived(ByteBuffer buffer, int length) {
            called.complete(null);
        }

        @Override
        public void onReceiveFailed(ByteBuffer buffer, FabricStatus status) {
        }

        @Override
        public void onSendCompleted(long context, FabricStatus status) {
        }

        @Override
        public void onRdmaCompleted(long context, FabricStatus status) {
            server.deregister(target.join(), Long.MAX_VALUE, () -> pulledBack.complete(server.onProgressThread()));
        }

        @Override
        public void onDisconnected(FabricStatus status, String detail) {
        }
    }

    private static InetAddress ip(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
