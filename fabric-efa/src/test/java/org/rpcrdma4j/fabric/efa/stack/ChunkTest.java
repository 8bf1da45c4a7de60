package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.conformance.ChunkProgram;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;

/**
 * Every chunk combination (RFC 8166 §3.4–§3.5) end to end on the simulated fabric, with data compared
 * and, after every test, nothing left registered, buffered or pending on either side: sizes around the
 * XDR pad and the segment size, shallow buffers, copies, ERR_CHUNK. Each chunk kind at the inline
 * threshold and at 16 MiB is the conformance kit's ({@code ChunkConformance}), on every fabric.
 */
class ChunkTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);
    private static final long HANG_GUARD_S = 30;
    /** How long a call waits before oncrpc4j times it out; far longer than the server takes to pull its chunks. */
    private static final long TIMEOUT_MS = 1000;
    /** 28-byte RDMA_MSG header + 40-byte call header + 4-byte length + data: inline up to 4024 bytes. */
    private static final int INLINE_LIMIT = 4024;
    private static final int[] SIZES = {0, 1, INLINE_LIMIT - 1, INLINE_LIMIT, INLINE_LIMIT + 1, 4027, 65536, 65537,
        1 << 20, (1 << 20) + 3};

    private final SimHarness sim = new SimHarness(SEED);
    private final ChunkProgram program = new ChunkProgram();
    private RdmaRpcSvc svc;
    private RdmaRpcClient client;

    @BeforeEach
    void serveAndConnect() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(sim.workers).withRpcService(ChunkProgram.PROGRAM, program)
                .withDdpPolicy(ChunkProgram.POLICY).build();
        svc.start();
        client = RdmaRpcClient.builder(sim.clientFabric, sim.serverFabric.localAddress())
                .withDdpPolicy(ChunkProgram.POLICY).withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S))
                .withReconnectPolicy(ReconnectPolicy.NEVER).connect();
    }

    @AfterEach
    void nothingLeaks() throws Exception {
        try {
            program.gate.countDown();
            HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 0
                    && svc.statistics().chunkRegistrations() == 0
                    && sim.serverFabric.statistics().registrations() == 0);
            if (client != null) {
                HangGuard.waitFor(() -> client.statistics().callsInProgress() == 0
                        && client.statistics().chunkRegistrations() == 0
                        && sim.clientFabric.statistics().registrations() == 0);
                client.close();
            }
            svc.stop();
        } finally {
            sim.close();
        }
    }

    private <T extends XdrAble> T call(int procedure, XdrAble args, T result) throws Exception {
        new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport()).call(procedure, args, result, HANG_GUARD_S, TimeUnit.SECONDS);
        return result;
    }

    @Test
    void aCallOverTheLargestIoIsRefusedByTheRequesterNotAnsweredErrChunk() throws Exception {
        int tooLarge = TransportConfig.DEFAULT.maxMessageSize() + 4;
        assertThatThrownBy(() -> call(ChunkProgram.GET, new ChunkProgram.IntPair(tooLarge, 0),
                new ChunkProgram.GetResult()))
                .isInstanceOf(RdmaTransportException.class)
                .hasMessageContaining("more than the largest I/O of " + TransportConfig.DEFAULT.maxMessageSize());
        assertThat(svc.statistics().messagesDropped()).isZero();
        // The connection still serves.
        assertThat(call(ChunkProgram.GET, new ChunkProgram.IntPair(1, 0), new ChunkProgram.GetResult()).data)
                .isEqualTo(ChunkProgram.pattern(1));
    }

    @Test
    void readChunksCarryDdpArguments() throws Exception {
        for (int size : SIZES) {
            byte[] data = ChunkProgram.pattern(size);
            assertThat(call(ChunkProgram.PUT, new TestProgram.Opaque(data), new XdrInt()).intValue())
                    .as("CRC of %d bytes", size).isEqualTo(ChunkProgram.crc(data));
        }
    }

    @Test
    void writeChunksCarryDdpResultsSplicedWithTheirPad() throws Exception {
        for (int size : SIZES) {
            ChunkProgram.GetResult result = call(ChunkProgram.GET, new ChunkProgram.IntPair(size, 0),
                    new ChunkProgram.GetResult());
            assertThat(result.status).isZero();
            assertThat(result.data).as("GET of %d bytes", size).isEqualTo(ChunkProgram.pattern(size));
        }
    }

    @Test
    void argumentsEncodedShallowAreReadWhereTheyLie() throws Exception {
        for (int size : SIZES) {
            byte[] data = ChunkProgram.pattern(size);
            ByteBuffer direct = ByteBuffer.allocateDirect(size).put(data).flip();
            XdrAble shallow = new XdrAble() {
                @Override
                public void xdrEncode(XdrEncodingStream xdr) {
                    ((Xdr) xdr).xdrEncodeShallowByteBuffer(direct);
                }

                @Override
                public void xdrDecode(XdrDecodingStream xdr) {
                    throw new UnsupportedOperationException("arguments only");
                }
            };
            assertThat(call(ChunkProgram.PUT, shallow, new XdrInt()).intValue()).as("CRC of %d bytes", size)
                    .isEqualTo(ChunkProgram.crc(data));
            assertThat(call(ChunkProgram.SUM, shallow, new XdrInt()).intValue()).as("Position-zero, %d bytes", size)
                    .isEqualTo(ChunkProgram.crc(data));
        }
    }

    @Test
    void aResultLentShallowIsConveyedAndDisposedOnceSent() throws Exception {
        int[] sizes = {0, 10, INLINE_LIMIT + 1, 1 << 20};
        for (int size : sizes) {
            ChunkProgram.GetResult result = call(ChunkProgram.LEND, new ChunkProgram.IntPair(size, 0),
                    new ChunkProgram.GetResult());
            assertThat(result.status).isZero();
            assertThat(result.data).isEqualTo(ChunkProgram.pattern(size));
        }
        HangGuard.waitFor(() -> program.lentDisposed.get() == sizes.length);
    }

    @Test
    void readAndWriteChunksTogether() throws Exception {
        for (int size : SIZES) {
            byte[] data = ChunkProgram.pattern(size);
            assertThat(call(ChunkProgram.ECHO_DDP, new TestProgram.Opaque(data), new TestProgram.Opaque()).bytes)
                    .as("echo of %d bytes", size).isEqualTo(data);
        }
    }

    @Test
    void neitherSideCopiesTheDataOfAChunk() throws Exception {
        int size = 1 << 20;
        byte[] data = ChunkProgram.pattern(size);
        long server = svc.statistics().bytesCopied();
        long caller = client.statistics().bytesCopied();

        // Read chunk in (PUT), Write chunk out (GET), both in one call (ECHO_DDP, whose call is kept for its reply).
        assertThat(call(ChunkProgram.PUT, new TestProgram.Opaque(data), new XdrInt()).intValue())
                .isEqualTo(ChunkProgram.crc(data));
        assertThat(call(ChunkProgram.GET, new ChunkProgram.IntPair(size, 0), new ChunkProgram.GetResult()).data)
                .isEqualTo(data);
        assertThat(call(ChunkProgram.ECHO_DDP, new TestProgram.Opaque(data), new TestProgram.Opaque()).bytes)
                .isEqualTo(data);

        // Only the inline parts, well under 100 bytes each way per call, are copied; the RDMA moves are the fabric's.
        assertThat(svc.statistics().bytesCopied() - server).isBetween(1L, 600L);
        assertThat(client.statistics().bytesCopied() - caller).isBetween(1L, 600L);
    }

    @Test
    void replyChunkCarriesLongNonDdpReplies() throws Exception {
        for (int size : SIZES) {
            assertThat(call(ChunkProgram.LIST, new ChunkProgram.IntPair(size, 0), new TestProgram.Opaque()).bytes)
                    .as("LIST of %d bytes", size).isEqualTo(ChunkProgram.pattern(size));
        }
    }

    @Test
    void readChunksWithAReplyChunk() throws Exception {
        for (int size : SIZES) {
            byte[] data = ChunkProgram.pattern(size);
            assertThat(call(ChunkProgram.PUT_ECHO, new TestProgram.Opaque(data), new TestProgram.Opaque()).bytes)
                    .as("echo of %d bytes", size).isEqualTo(data);
        }
    }

    @Test
    void positionZeroCarriesLongCallsWithoutDdpItems() throws Exception {
        for (int size : SIZES) {
            byte[] data = ChunkProgram.pattern(size);
            assertThat(call(ChunkProgram.SUM, new TestProgram.Opaque(data), new XdrInt()).intValue())
                    .as("CRC of %d bytes", size).isEqualTo(ChunkProgram.crc(data));
        }
    }

    @Test
    void anUnusedWriteChunkIsEchoedEmptyAndTheResultDecodes() throws Exception {
        ChunkProgram.GetResult result = call(ChunkProgram.GET, new ChunkProgram.IntPair(100_000, 5),
                new ChunkProgram.GetResult());
        assertThat(result.status).isEqualTo(5);
        assertThat(result.data).isNull();
    }

    @Test
    void aReplyLargerThanTheReplyChunkFailsWithErrChunk() throws Exception {
        assertThatThrownBy(() -> call(ChunkProgram.LIST, new ChunkProgram.IntPair(20_000, 5000),
                new TestProgram.Opaque())).isInstanceOf(RdmaTransportException.class)
                .hasMessageContaining("RDMA_ERROR ERR_CHUNK");
        assertThat(call(ChunkProgram.LIST, new ChunkProgram.IntPair(20_000, 0), new TestProgram.Opaque()).bytes)
                .hasSize(20_000);
    }

    @Test
    void aTimedOutCallFreesItsChunksAtOnceAndKeepsItsCreditUntilAnswered() throws Exception {
        program.gate = new CountDownLatch(1);
        byte[] data = ChunkProgram.pattern(65536);
        assertThatThrownBy(() -> new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(),
                new RpcAuthTypeNone(), client.transport()).call(ChunkProgram.PUT, new TestProgram.Opaque(data),
                new XdrInt(), TIMEOUT_MS, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        HangGuard.waitFor(() -> client.statistics().chunkRegistrations() == 0
                && sim.clientFabric.statistics().registrations() == 0
                && client.statistics().callsInProgress() == 0);

        // Until the first answer the only credit is the timed-out call's: the next call waits for it.
        CompletableFuture<XdrInt> next = CompletableFuture.supplyAsync(() -> {
            try {
                return call(ChunkProgram.PUT, new TestProgram.Opaque(data), new XdrInt());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        HangGuard.waitFor(() -> client.statistics().callsWaiting() == 1);
        program.gate.countDown();
        assertThat(next.get(HANG_GUARD_S, TimeUnit.SECONDS).intValue()).isEqualTo(ChunkProgram.crc(data));
    }

    @Test
    void aRequesterWhoseReadChunkCannotBeReadIsDisconnected() throws Exception {
        RawPeer peer = new RawPeer(sim.rawFabric);
        assertThat(peer.connect(sim.serverFabric.localAddress())).isNotNull();
        // RDMA_NOMSG with a Position-zero Read chunk naming memory this peer never registered.
        RpcRdmaHeader header = RpcRdmaHeader.nomsg(0x77, 128,
                java.util.List.of(new ReadSegment(0, new Segment(0x7eadbeef, 8192, 0x1000))), null, null);
        ByteBuffer message = ByteBuffer.allocate(HeaderEncoder.encodedLength(header));
        HeaderEncoder.encode(header, message, 0);
        peer.send(message.array());
        assertThat(RawPeer.next(peer.ends)).isEqualTo(FabricStatus.CLOSED);
        // The server still serves the well-behaved client.
        assertThat(call(ChunkProgram.SUM, new TestProgram.Opaque(new byte[10_000]), new XdrInt()).intValue())
                .isEqualTo(ChunkProgram.crc(new byte[10_000]));
    }

}
