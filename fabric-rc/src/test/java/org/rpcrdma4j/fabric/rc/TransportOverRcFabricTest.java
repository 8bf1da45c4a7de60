package org.rpcrdma4j.fabric.rc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.conformance.TestProgram.Opaque;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageShape;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.ErrorCode;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The transport's oncrpc4j server and client over two RC fabrics on a simulated network: inline calls,
 * a long call the server pulls by RDMA Read (Position-zero Read chunk) and a long reply the server RDMA-Writes
 * into the client's Reply chunk, data in a Read chunk and a Write chunk, all from and into the
 * transport's heap buffers, the client's chunks reached through memory windows. Then peers that
 * misbehave below the transport (issue 12, section 5), each beside a good client whose calls must
 * keep completing: garbage private data in the CM REQ, a disconnect in the middle of the server's
 * RDMA Read, a Read chunk of memory never registered, and receives never posted again.
 */
class TransportOverRcFabricTest {

    private static final OncRpcProgram PROGRAM = new OncRpcProgram(0x2000_0124, 1);
    private static final int ECHO = 1;
    /** A call whose rebuilt copy at the server takes three blocks of its chunk pool. */
    private static final int SEVERAL_BLOCKS = 3_000_000;

    private final SimulatedRc network = new SimulatedRc();
    private final ExecutorService workers = Executors.newFixedThreadPool(2);
    private SimulatedRc.Device serverDevice;
    private SimulatedRc.Device clientDevice;
    private RcFabric serverFabric;
    private RcFabric clientFabric;
    private RdmaRpcSvc svc;
    private RdmaRpcClient client;

    /** The XID of every call the server's program ran. */
    private final Queue<Integer> served = new ConcurrentLinkedQueue<>();

    private final RpcDispatchable echoProgram = call -> {
        served.add(call.getXid());
        Opaque data = new Opaque();
        call.retrieveCall(data);
        call.reply(data);
    };

    /** Nothing DDP-eligible; a reply of up to 1 MiB, so a long one goes in a Reply chunk. */
    private static final DdpPolicy LONG_REPLIES = new DdpPolicy() {
        @Override
        public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
            return List.of();
        }

        @Override
        public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
            return new ReplySize(1 << 20, List.of());
        }

        @Override
        public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
            return List.of();
        }
    };

    /** The echoed bytes in chunks, as an NFS WRITE's data and a READ's: a Read chunk and a Write chunk. */
    private static final DdpPolicy DATA_IN_CHUNKS = new DdpPolicy() {
        @Override
        public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
            return List.of(new XdrItem(call.bodyOffset() + 4, call.bytes().getInt(call.bodyOffset())));
        }

        @Override
        public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
            long data = call.bytes().getInt(call.bodyOffset());
            return new ReplySize(ReplySize.REPLY_HEADER_RESERVE + 4 + data, List.of(data));
        }

        @Override
        public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
            return reply.bodyOffset() + 4 <= reply.bytes().length()
                    ? List.of(new XdrItem(reply.bodyOffset() + 4, reply.bytes().getInt(reply.bodyOffset())))
                    : List.of();
        }
    };

    private InetSocketAddress listen;

    @BeforeEach
    void serveAndConnect() throws Exception {
        InetAddress serverIp = InetAddress.getByAddress(new byte[] {10, 0, 1, 1});
        InetAddress clientIp = InetAddress.getByAddress(new byte[] {10, 0, 1, 2});
        listen = new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT);
        serverDevice = network.device(serverIp);
        clientDevice = network.device(clientIp);
        serverFabric = new RcFabric(serverDevice, listen, RcFabric.Config.DEFAULT);
        clientFabric = new RcFabric(clientDevice, new InetSocketAddress(clientIp, 0), RcFabric.Config.DEFAULT);
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers)
                .withRpcService(PROGRAM, echoProgram).withDdpPolicy(DATA_IN_CHUNKS).build();
        svc.start();
        client = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress()).withDdpPolicy(LONG_REPLIES)
                .withConnectTimeout(Duration.ofSeconds(30)).connect();
    }

    @AfterEach
    void tearDown() throws Exception {
        client.close();
        svc.stop();
        workers.shutdownNow();
        clientFabric.close();
        serverFabric.close();
        assertTrue(clientDevice.closed() && serverDevice.closed(), "ids or registrations were left behind");
    }

    private static int registrations(RcFabric fabric) {
        return fabric.statistics().registrations();
    }

    private byte[] echo(byte[] data) throws Exception {
        return echo(client, data);
    }

    private static byte[] echo(RdmaRpcClient on, byte[] data) throws Exception {
        Opaque result = new Opaque();
        new RpcCall(PROGRAM.getNumber(), PROGRAM.getVersion(), new RpcAuthTypeNone(), on.transport())
                .call(ECHO, new Opaque(data), result, 30, TimeUnit.SECONDS);
        return result.bytes;
    }

    private static long poolBytesInUse(RcFabric fabric) {
        return fabric.statistics().gauge(RcGauge.CHUNK_POOL_BYTES_IN_USE);
    }

    private static byte[] pattern(int length) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (i * 31 + (i >>> 8));
        }
        return data;
    }

    /**
     * Inline calls and replies move between the transports' own buffers, which they take from the
     * fabric's registered message buffers: the RC fabric copies none of their bytes, through a slot or
     * otherwise, and once both ends have closed every buffer is back.
     */
    @Test
    void inlineMessagesGoFromAndIntoRegisteredMessageBuffersWithoutACopy() throws Exception {
        client.close();
        // No chunk: with a Reply chunk provided the reply would come in it and be copied back out of it.
        try (RdmaRpcClient inline = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                .withConnectTimeout(Duration.ofSeconds(30)).connect()) {
            long clientBefore = clientFabric.statistics().bytesCopied();
            long serverBefore = serverFabric.statistics().bytesCopied();
            for (int length : new int[] {0, 100, 700}) {
                assertArrayEquals(pattern(length), echo(inline, pattern(length)), length + " bytes");
            }
            assertEquals(clientBefore, clientFabric.statistics().bytesCopied(), "the client's fabric copied nothing");
            assertEquals(serverBefore, serverFabric.statistics().bytesCopied(), "the server's fabric copied nothing");
        }
        svc.stop();
        waitFor(() -> clientFabric.statistics().gauge(RcGauge.MESSAGE_BUFFERS_IN_USE) == 0
                && serverFabric.statistics().gauge(RcGauge.MESSAGE_BUFFERS_IN_USE) == 0);
    }

    /**
     * A call that provides a 1 MiB Reply chunk gets its short reply in it (RDMA_NOMSG): the client's
     * fabric copies back only the bytes the server wrote there, as the reply echoes them, not the whole
     * chunk's memory.
     */
    @Test
    void aReplyChunksMemoryIsCopiedBackOnlyAsFarAsTheServerWroteIt() throws Exception {
        long before = clientFabric.statistics().bytesCopied();

        assertArrayEquals(pattern(100), echo(pattern(100)));

        // The RPC reply: XID, REPLY, MSG_ACCEPTED, an AUTH_NONE verifier, SUCCESS (24 bytes), then the
        // opaque's length and its 100 bytes.
        assertEquals(24 + 4 + 100, clientFabric.statistics().bytesCopied() - before);
    }

    @Test
    void aConnectionWhoseQueuePairWillNotDieStallsNoOtherClient() throws Exception {
        // A second client whose connection ends while the server's rdma_destroy_qp blocks, as rdma_rxe's
        // did for 30-40 s after an RDMA failed.
        RdmaRpcClient doomed = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                .withDdpPolicy(LONG_REPLIES).withConnectTimeout(Duration.ofSeconds(30)).connect();
        assertArrayEquals(pattern(10), echo(doomed, pattern(10)));
        serverDevice.holdDestroys();
        try {
            doomed.close();
            waitFor(() -> serverDevice.destroysBlocked() == 1);
            // Meanwhile the first client's calls, inline and chunked, go on; a new client connects;
            // statistics answer.
            for (int i = 0; i < 20; i++) {
                assertArrayEquals(pattern(100 + i), echo(pattern(100 + i)));
            }
            assertArrayEquals(pattern(64 * 1024), echo(pattern(64 * 1024)));
            try (RdmaRpcClient late = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                    .withDdpPolicy(LONG_REPLIES).withConnectTimeout(Duration.ofSeconds(30)).connect()) {
                assertArrayEquals(pattern(7), echo(late, pattern(7)));
            }
            // The doomed and the late connections are gone for the service, the first stays, while
            // the doomed queue pair is still being destroyed (the late one's waits behind it).
            waitFor(() -> svc.statistics().connections() == 1);
            assertEquals(1, serverDevice.destroysBlocked());
            assertEquals(3, serverFabric.statistics().gauge(RcGauge.QUEUE_PAIRS));
        } finally {
            serverDevice.releaseDestroys();
        }
        waitFor(() -> serverFabric.statistics().gauge(RcGauge.QUEUE_PAIRS) == 1);
    }

    /**
     * A client whose queue pair breaks with calls in flight (the server's RDMA Reads of their Read
     * chunks held) connects again at once, as the Linux client does, and sends them again with their
     * XIDs: each runs once at the server and is answered once.
     */
    @Test
    void aClientWhoseConnectionIsFlushedReconnectsAndSendsItsCallsAgain() throws Exception {
        InetAddress ip = InetAddress.getByAddress(new byte[] {10, 0, 1, 5});
        SimulatedRc.Device device = network.device(ip);
        RcFabric fabric = new RcFabric(device, new InetSocketAddress(ip, 0), RcFabric.Config.DEFAULT);
        ExecutorService callers = Executors.newFixedThreadPool(3);
        try (RdmaRpcClient again = RdmaRpcClient.builder(fabric, serverFabric.localAddress())
                .withDdpPolicy(DATA_IN_CHUNKS).connect()) {
            assertArrayEquals(pattern(10), echo(again, pattern(10)), "a first answer, with the server's grant");
            served.clear();
            serverDevice.holdReads();
            List<CompletableFuture<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                byte[] data = pattern(8000 + i);
                calls.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return echo(again, data);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, callers));
            }
            waitFor(() -> serverDevice.heldReads() == 3);
            List<Integer> queuePairs = device.connectedQueuePairs();
            assertEquals(1, queuePairs.size());
            device.fatal(queuePairs.get(0));
            // The server's reads of the first connection were flushed. The new connection starts from one
            // credit (RFC 8166 §3.3.1): one call is sent again, its read held, the others wait for its answer.
            waitFor(() -> again.connects() == 2 && serverDevice.heldReads() == 1);
            assertEquals(2, again.statistics().callsWaiting());
            assertEquals(List.of(), List.copyOf(served), "nothing ran yet");
            serverDevice.releaseReads();
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(pattern(8000 + i), calls.get(i).get(30, TimeUnit.SECONDS));
            }
            assertEquals(3, Set.copyOf(served).size(), "each call ran once: " + served);
            assertEquals(3, served.size());
            assertEquals(0L, again.statistics().messagesDropped(), "no answer came for a call not outstanding");
            othersUnharmed();
        } finally {
            callers.shutdownNow();
            fabric.close();
        }
    }

    @Test
    void inlineAndChunkedCallsAndRepliesArriveIntact() throws Exception {
        byte[] small = pattern(100);
        assertArrayEquals(small, echo(small), "inline both ways");
        byte[] large = pattern(300_000);
        assertArrayEquals(large, echo(large), "a Read chunk pulled by RDMA Read, a Reply chunk filled by RDMA Write");
        assertArrayEquals(small, echo(small), "the connection is still up");
        assertEquals(0, registrations(clientFabric), "the client's chunks were deregistered");
        assertEquals(0, registrations(serverFabric), "the server's RDMA Read target and sources were deregistered");
        assertEquals(0L, serverFabric.statistics().counter(RcCounter.PER_CALL_REGISTRATIONS),
                "the server's chunk memory came from its pool");
        // Every call had a Reply chunk (LONG_REPLIES), the large one a Position-zero Read chunk too: each
        // chunk's memory came from the client's window pool, reached through a window of its own.
        RcFabricStatistics figures = clientFabric.statistics();
        assertEquals(0L, figures.counter(RcCounter.PER_CALL_REGISTRATIONS), "no ibv_reg_mr per call");
        assertEquals(4L, figures.counter(RcCounter.WINDOWS_BOUND));
        // The server invalidates remotely only the calls whose chunks all carry one key (as svcrdma does):
        // the two small ones; the large call's two windows the client invalidates itself.
        assertEquals(2, serverDevice.sentWithInvalidate().size(), "our client offers remote invalidation");
        assertEquals(serverDevice.sentWithInvalidate(), clientDevice.invalidatedKeys());
        assertEquals(2L, figures.counter(RcCounter.REMOTE_INVALIDATIONS));
        assertEquals(2L, figures.counter(RcCounter.LOCAL_INVALIDATIONS));
        waitFor(() -> clientFabric.statistics().gauge(RcGauge.WINDOW_POOL_BYTES_IN_USE) == 0);
    }

    /**
     * A call whose data goes in a Read chunk and whose reply's in a Write chunk, as an NFS WRITE's and
     * READ's: each chunk a window pool block behind a window of its own, so two keys and no remote
     * invalidation (svcrdma's rule), and no {@code ibv_reg_mr}.
     */
    @Test
    void readAndWriteChunksGoThroughWindowsWithoutARegistrationPerCall() throws Exception {
        try (RdmaRpcClient chunked = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                .withDdpPolicy(DATA_IN_CHUNKS).withConnectTimeout(Duration.ofSeconds(30)).connect()) {
            for (int length : new int[] {8000, 300_000, 1 << 20}) {
                assertArrayEquals(pattern(length), echo(chunked, pattern(length)), length + " bytes");
            }
            assertEquals(3L, chunked.statistics().shapes().get(MessageShape.CALL_READ_CHUNKS));
            assertEquals(3L, chunked.statistics().shapes().get(MessageShape.CALL_WRITE_CHUNKS));
        }
        RcFabricStatistics figures = clientFabric.statistics();
        assertEquals(0L, figures.counter(RcCounter.PER_CALL_REGISTRATIONS));
        assertEquals(6L, figures.counter(RcCounter.WINDOWS_BOUND));
        assertEquals(0L, figures.counter(RcCounter.REMOTE_INVALIDATIONS));
        assertEquals(6L, figures.counter(RcCounter.LOCAL_INVALIDATIONS));
        assertEquals(List.of(), serverDevice.sentWithInvalidate());
        waitFor(() -> clientFabric.statistics().gauge(RcGauge.WINDOW_POOL_BYTES_IN_USE) == 0);
    }

    /**
     * Neither fabric copies chunk bytes while it holds its turn, which every connection needs: not the
     * client's Read chunks into its window pool (a block, a registration of its own over 1 MiB), nor
     * its Write and Reply chunks back out, nor the server's pulled Read chunks out of its pool blocks,
     * nor its results into them.
     */
    @Test
    void everyChunkCopyIsMadeOutsideTheFabricsTurn() throws Exception {
        CopyGate clientCopies = CopyGate.on(clientFabric, Long.MAX_VALUE);
        CopyGate serverCopies = CopyGate.on(serverFabric, Long.MAX_VALUE);
        assertArrayEquals(pattern(300_000), echo(pattern(300_000)), "a Position-zero Read chunk, a Reply chunk");
        try (RdmaRpcClient chunked = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                .withDdpPolicy(DATA_IN_CHUNKS).withConnectTimeout(Duration.ofSeconds(30)).connect()) {
            for (int length : new int[] {8000, 1 << 20, SEVERAL_BLOCKS}) {
                assertArrayEquals(pattern(length), echo(chunked, pattern(length)), length + " bytes");
            }
        }
        for (CopyGate copies : List.of(clientCopies, serverCopies)) {
            List<CopyGate.Copy> made = copies.copies();
            assertTrue(made.stream().anyMatch(CopyGate.Copy::in), "copies in: " + made);
            assertTrue(made.stream().anyMatch(copy -> !copy.in()), "copies out: " + made);
            assertEquals(List.of(), made.stream().filter(CopyGate.Copy::inTurn).toList(), "made in the turn");
        }
    }

    /**
     * While a client's megabyte Read chunk is being copied into its window pool for one connection
     * (the copy held), another connection's call on the same fabrics is sent, served and answered;
     * the large call goes on once its copy is made.
     */
    @Test
    void aCallCompletesWhileAnotherConnectionsChunkIsCopied() throws Exception {
        ExecutorService callers = Executors.newSingleThreadExecutor();
        try (RdmaRpcClient chunked = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                .withDdpPolicy(DATA_IN_CHUNKS).withConnectTimeout(Duration.ofSeconds(30)).connect()) {
            CopyGate gate = CopyGate.on(clientFabric, 1 << 20);
            byte[] data = pattern(1 << 20);
            CompletableFuture<byte[]> large = CompletableFuture.supplyAsync(() -> {
                try {
                    return echo(chunked, data);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, callers);
            gate.awaitHolding();
            assertArrayEquals(pattern(100), echo(pattern(100)), "the other connection's call");
            assertFalse(large.isDone(), "the large call waits for its chunk's copy");
            CopyGate.Copy held = gate.held();
            assertTrue(held.in() && !held.inTurn(), "the Read chunk's copy, outside the turn: " + held);
            gate.open();
            assertArrayEquals(data, large.get(30, TimeUnit.SECONDS));
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * A 16 MiB WRITE-like call and READ-like reply, from a client that offers 1 MiB segments (16 to a
     * chunk, as many as Linux sends): the server pulls the call's Read chunk into pool blocks of the
     * chunk's own registration in 128 KiB reads, which start at its first byte and so never cross from
     * one block into the next, and RDMA-Writes the result from pool blocks into the client's Write chunk.
     */
    @Test
    void aSixteenMibCallAndReplyMoveThroughPoolBlocksWithoutRegistrationsOfTheirOwn() throws Exception {
        byte[] data = pattern(TransportConfig.DEFAULT_MAX_MESSAGE_SIZE);
        try (RdmaRpcClient ddp = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                .withConfig(TransportConfig.DEFAULT.withMaxSegmentSize(1 << 20)).withDdpPolicy(DATA_IN_CHUNKS)
                .withConnectTimeout(Duration.ofSeconds(30)).connect()) {
            assertArrayEquals(data, echo(ddp, data), "16 MiB in a Read chunk and back in a Write chunk");
            assertArrayEquals(pattern(100), echo(ddp, pattern(100)), "the connection is still up");
        }
        waitFor(() -> registrations(serverFabric) == 0);
        assertEquals(0L, serverFabric.statistics().counter(RcCounter.PER_CALL_REGISTRATIONS),
                "the server's chunk memory came from its pool");
        assertEquals(0L, poolBytesInUse(serverFabric), "every block is back");
        assertTrue(serverDevice.rdmaRequests().stream().allMatch(request -> request.size() == 1),
                "no RDMA crossed from one block into another");
    }

    /**
     * Memory no peer may touch has rkey 0 on rxe (the simulated device does the same): the server's RDMA
     * Read targets of calls in flight together share that key and must still be told apart.
     */
    @Test
    void chunkedCallsInFlightTogetherArriveIntact() throws Exception {
        List<CompletableFuture<byte[]>> echoes = new ArrayList<>();
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            for (int i = 0; i < 4; i++) {
                byte[] large = pattern(200_000 + i);
                echoes.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return echo(large);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, callers));
            }
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(pattern(200_000 + i), echoes.get(i).get(60, TimeUnit.SECONDS), "call " + i);
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(0, registrations(serverFabric), "every RDMA Read target was deregistered");
    }

    /** An RDMA_MSG carrying an ECHO call of {@code data}, with no chunks. */
    private static byte[] echoCall(int xid, byte[] data) {
        ByteBuffer rpc = ByteBuffer.allocate(44 + (data.length + 3) / 4 * 4).putInt(xid).putInt(0).putInt(2)
                .putInt(PROGRAM.getNumber()).putInt(PROGRAM.getVersion()).putInt(ECHO).putInt(0).putInt(0).putInt(0)
                .putInt(0).putInt(data.length).put(data);
        return message(RpcRdmaHeader.msg(xid, 128, null, null, null), rpc.array());
    }

    private static byte[] message(RpcRdmaHeader header, byte[] rpc) {
        ByteBuffer message = ByteBuffer.allocate(HeaderEncoder.encodedLength(header) + rpc.length);
        message.put(HeaderEncoder.encode(header, message, 0), rpc);
        return message.array();
    }

    private RawRcPeer rawPeer() throws Exception {
        return new RawRcPeer(network.device(InetAddress.getByAddress(new byte[] {10, 0, 1, 3})), 16);
    }

    /** The good client still completes inline and chunked calls, and the server holds no chunk memory. */
    private void othersUnharmed() throws Exception {
        assertArrayEquals(pattern(100), echo(pattern(100)));
        assertArrayEquals(pattern(200_000), echo(pattern(200_000)));
        waitFor(() -> registrations(serverFabric) == 0 && svc.statistics().chunkRegistrations() == 0
                && poolBytesInUse(serverFabric) == 0);
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits for a condition the progress thread brings about, failing after a hang guard. */
    private static void waitFor(Condition condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within the hang guard");
            }
            Thread.sleep(10);
        }
    }

    @Test
    void garbagePrivateDataInTheRequestMeansTheRfcDefaults() throws Exception {
        byte[] garbage = new byte[56];
        java.util.Arrays.fill(garbage, (byte) 0xa5);
        try (RawRcPeer peer = rawPeer()) {
            byte[] rep = peer.connect(listen, garbage, 4);
            assertEquals(TransportConfig.DEFAULT.privateData(), CmPrivateData.recognise(rep), "accepted, not refused");
            // The server assumes the RFC's 1024-byte receive threshold of this peer: a 2000-byte echo
            // cannot come back inline and the call provided no Reply chunk, so it answers ERR_CHUNK.
            peer.send(echoCall(0x51, pattern(2000)));
            ByteBuffer answer = ByteBuffer.wrap(peer.nextMessage());
            assertEquals(Proc.RDMA_ERROR.value(), answer.getInt(12));
            assertEquals(ErrorCode.ERR_CHUNK.value(), answer.getInt(16));
            peer.send(echoCall(0x52, pattern(8)));
            ByteBuffer reply = ByteBuffer.wrap(peer.nextMessage());
            assertEquals(Proc.RDMA_MSG.value(), reply.getInt(12), "a reply within 1024 bytes goes inline");
            othersUnharmed();
        }
    }

    @Test
    void aPeerThatDisconnectsDuringTheServersRdmaReadLeavesNothingBehind() throws Exception {
        RcFabric badFabric = new RcFabric(network.device(InetAddress.getByAddress(new byte[] {10, 0, 1, 4})),
                new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, 1, 4}), 0), RcFabric.Config.DEFAULT);
        try {
            RdmaRpcClient bad = RdmaRpcClient.builder(badFabric, serverFabric.localAddress())
                    .withDdpPolicy(LONG_REPLIES).withConnectTimeout(Duration.ofSeconds(30)).connect();
            serverDevice.holdReads();
            CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
                try {
                    new RpcCall(PROGRAM.getNumber(), PROGRAM.getVersion(), new RpcAuthTypeNone(), bad.transport())
                            .call(ECHO, new Opaque(pattern(SEVERAL_BLOCKS)), new Opaque(), 30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, workers);
            waitFor(() -> serverDevice.heldReads() > 0);
            bad.close();
            java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS));
            assertTrue(failed.getCause() != null, "the call failed with its connection");
            assertEquals(0, serverDevice.heldReads(), "the read in flight was flushed");
            assertEquals(0, registrations(badFabric), "the closed client's chunks were deregistered");
            serverDevice.releaseReads();
            othersUnharmed();
        } finally {
            badFabric.close();
        }
    }

    /**
     * A call the caller gave up on has its chunks deregistered at once, as the Linux client invalidates
     * the memory of an RPC that exits early; a server still reading them finds them gone and, as
     * svcrdma does, drops the connection.
     */
    @Test
    void aCallThatTimesOutHasItsChunksInvalidatedAtOnce() throws Exception {
        serverDevice.holdReads();
        org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.TimeoutException.class,
                () -> new RpcCall(PROGRAM.getNumber(), PROGRAM.getVersion(), new RpcAuthTypeNone(), client.transport())
                        .call(ECHO, new Opaque(pattern(SEVERAL_BLOCKS)), new Opaque(), 1, TimeUnit.SECONDS));
        waitFor(() -> registrations(clientFabric) == 0);
        assertEquals(2L, clientFabric.statistics().counter(RcCounter.LOCAL_INVALIDATIONS),
                "the windows over the call's Read and Reply chunks were invalidated locally");
        assertTrue(serverDevice.heldReads() > 0, "the server was still reading");
        assertEquals(3L * ChunkPool.MAX_BLOCK, poolBytesInUse(serverFabric), "into three blocks");
        serverDevice.releaseReads();
        waitFor(() -> !client.transport().isOpen());
        waitFor(() -> registrations(serverFabric) == 0 && svc.statistics().chunkRegistrations() == 0
                && poolBytesInUse(serverFabric) == 0);
        // The server's read with the stale key failed; the client holds no window or block any more.
        waitFor(() -> clientFabric.statistics().gauge(RcGauge.WINDOW_POOL_BYTES_IN_USE) == 0
                && clientFabric.statistics().gauge(RcGauge.MEMORY_WINDOWS) == 0);
        assertEquals(0, clientDevice.liveWindows());
    }

    @Test
    void aReadChunkOfMemoryThePeerNeverRegisteredClosesOnlyItsConnection() throws Exception {
        try (RawRcPeer peer = rawPeer()) {
            assertTrue(peer.connect(listen, new ConnectPrivateData(true, 4096, 4096).toBytes(), 4) != null);
            RpcRdmaHeader call = RpcRdmaHeader.nomsg(0x61, 128,
                    List.of(new ReadSegment(0, new Segment(0xdead, 8192, 0x1000))), null, null);
            peer.send(message(call, new byte[0]));
            // The RDMA Read fails (remote access error): the server closes the connection, as svcrdma does.
            peer.awaitDisconnected();
            assertEquals(List.of(WcStatus.REM_ACCESS_ERR), serverDevice.failedCompletions());
            othersUnharmed();
        }
    }

    @Test
    void aPeerThatStopsPostingReceivesLosesOnlyItsConnection() throws Exception {
        try (RawRcPeer peer = rawPeer()) {
            assertTrue(peer.connect(listen, new ConnectPrivateData(true, 4096, 4096).toBytes(), 2) != null);
            for (int i = 0; i < 4; i++) {
                peer.send(echoCall(0x70 + i, pattern(8)));
            }
            // Two replies land; the third finds no receive and, with the RNR retry count of 0 the
            // peer asked for, fails the server's Send at once.
            peer.nextMessage();
            peer.nextMessage();
            peer.awaitDisconnected();
            assertEquals(List.of(WcStatus.RNR_RETRY_EXC_ERR), serverDevice.failedCompletions());
            othersUnharmed();
        }
    }

    @Test
    void theServerSeesTheClientsRdmaCmAddress() throws Exception {
        InetSocketAddress local = client.transport().getLocalSocketAddress();
        assertEquals(InetAddress.getByAddress(new byte[] {10, 0, 1, 2}), local.getAddress());
        assertEquals(RcFabric.NFS_RDMA_PORT, client.transport().getRemoteSocketAddress().getPort());
        assertTrue(local.getPort() > 0);
    }
}
