package org.rpcrdma4j.fabric.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * The transport's oncrpc4j service and client over the fabric under test, where the fabric's
 * behaviour shows through: credits, the backchannel (RFC 8167), calls that time out, connections that
 * end under pending calls (the service stops, the connection breaks, and a client that connects again
 * and sends its calls again), and closing under load, after which nothing is held.
 */
public abstract class RpcConformance extends ServiceFixture {

    /** How long a call waits before oncrpc4j times it out; far longer than the server takes to pull its chunks. */
    private static final long TIMEOUT_MS = 1000;
    private static final int CALLERS = 4;

    private RpcCall forward() {
        return new RpcCall(BackchannelProgram.PROGRAM.getNumber(), BackchannelProgram.PROGRAM.getVersion(),
                new RpcAuthTypeNone(), client.transport());
    }

    @Test
    void theRequesterStartsWithOneCreditThenNeverExceedsTheGrant() throws Exception {
        serve(TransportConfig.DEFAULT.withResponderCredits(2));
        client = connect(TransportConfig.DEFAULT);
        program.gate = new CountDownLatch(1);
        List<CompletableFuture<XdrVoid>> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            calls.add(TestProgram.call(client.transport()).call(TestProgram.GATED, XdrVoid.XDR_VOID, XdrVoid.class));
        }
        HangGuard.waitFor(() -> program.inProgress.get() == 1 && client.statistics().callsWaiting() == 9);
        assertThat(client.statistics().callsInProgress()).as("one credit until the first reply").isEqualTo(1);
        program.gate.countDown();
        for (CompletableFuture<XdrVoid> call : calls) {
            call.get(HangGuard.SECONDS, TimeUnit.SECONDS);
        }
        assertThat(client.statistics().credits()).isEqualTo(2);
        assertThat(client.statistics().maxCallsInProgress()).isEqualTo(2);
        assertThat(program.maxInProgress.get()).isLessThanOrEqualTo(2);
    }

    /**
     * A program calls the client back on the call's own connection and waits for the answer on its
     * worker, as nfs4j pings the callback path inside CREATE_SESSION; twice as many callers as the
     * server has workers, so that none may starve the others.
     */
    @Test
    void aProgramCallsTheClientBackOnItsCallsConnection() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT);
        client.registerCallbackService(CallbackProgram.PROGRAM, callbacks);
        byte[] data = ChunkProgram.pattern(3000);
        assertThat(callBack(data)).isEqualTo(data);
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                byte[] one = {(byte) i};
                calls.add(callers.submit(() -> callBack(one)));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertThat(calls.get(i).get(HangGuard.SECONDS, TimeUnit.SECONDS)).containsExactly(i);
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(svc.statistics().maxBackwardCallsInProgress()).as("never more than the backward credits asked for")
                .isLessThanOrEqualTo(TransportConfig.DEFAULT_BACKWARD_REQUESTER_CREDITS);
    }

    private byte[] callBack(byte[] data) throws Exception {
        TestProgram.Opaque answer = new TestProgram.Opaque();
        forward().call(BackchannelProgram.CALLBACK_ECHO, new TestProgram.Opaque(data), answer, HangGuard.SECONDS,
                TimeUnit.SECONDS);
        return answer.bytes;
    }

    @Test
    void backwardCallsStartWithOneCreditThenNeverExceedTheClientsGrant() throws Exception {
        serve(TransportConfig.DEFAULT.withBackwardRequesterCredits(8));
        client = connect(TransportConfig.DEFAULT.withBackwardResponderCredits(3));
        client.registerCallbackService(CallbackProgram.PROGRAM, callbacks);
        forward().call(BackchannelProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, HangGuard.SECONDS,
                TimeUnit.SECONDS);
        RpcTransport server = backchannel.transport;
        callbacks.gate = new CountDownLatch(1);
        List<CompletableFuture<XdrVoid>> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            calls.add(BackchannelProgram.callback(server).call(CallbackProgram.GATED, XdrVoid.XDR_VOID, XdrVoid.class));
        }
        HangGuard.waitFor(() -> callbacks.inProgress.get() == 1 && svc.statistics().backwardCallsInProgress() == 10);
        assertThat(svc.statistics().maxBackwardCallsInProgress()).as("one backward credit until the first reply")
                .isEqualTo(1);
        callbacks.gate.countDown();
        for (CompletableFuture<XdrVoid> call : calls) {
            call.get(HangGuard.SECONDS, TimeUnit.SECONDS);
        }
        assertThat(svc.statistics().maxBackwardCallsInProgress()).isEqualTo(3);
        assertThat(callbacks.maxInProgress.get()).isLessThanOrEqualTo(3);
    }

    /**
     * A call that times out has its chunk memory released at once, as the Linux client invalidates the
     * memory of an RPC that exits early, while the program still holds the call. Its late answer may
     * cost the connection (on verbs RC its Send with Invalidate names a key that no longer exists), so
     * the client here connects again as Linux's does: it serves on either way.
     */
    @Test
    void aCallThatTimesOutReleasesItsChunksAtOnceAndTheClientServesOn() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT, ReconnectPolicy.LINUX);
        chunks.gate = new CountDownLatch(1);
        byte[] data = ChunkProgram.pattern(65536);
        assertThatThrownBy(() -> chunkCall().call(ChunkProgram.PUT, new TestProgram.Opaque(data), new XdrInt(),
                TIMEOUT_MS, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        HangGuard.waitFor(() -> client.statistics().chunkRegistrations() == 0
                && clientFabric.statistics().registrations() == 0);
        chunks.gate.countDown();
        assertThat(call(ChunkProgram.PUT, new TestProgram.Opaque(data), new XdrInt()).intValue())
                .isEqualTo(ChunkProgram.crc(data));
    }

    @Test
    void aResponderWritingIntoTheChunkOfACallThatTimedOutLosesTheConnection() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT);
        chunks.gate = new CountDownLatch(1);
        assertThatThrownBy(() -> chunkCall().call(ChunkProgram.GET, new ChunkProgram.IntPair(65536, 0),
                new ChunkProgram.GetResult(), TIMEOUT_MS, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        HangGuard.waitFor(() -> client.statistics().chunkRegistrations() == 0
                && clientFabric.statistics().registrations() == 0);
        // The Write chunk reaches nothing now: the server's RDMA Write fails and ends the connection, as svcrdma's does.
        chunks.gate.countDown();
        HangGuard.waitFor(() -> !client.transport().isOpen() && svc.statistics().connections() == 0);
        assertThatThrownBy(() -> call(ChunkProgram.SUM, new TestProgram.Opaque(new byte[1]), new XdrInt()))
                .isInstanceOf(RdmaTransportException.class).hasMessageContaining("closed");
    }

    @Test
    void stoppingTheServiceFailsPendingCallsAtOnceAndReleasesTheirChunks() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT);
        chunks.gate = new CountDownLatch(1);
        CompletableFuture<ChunkProgram.GetResult> pending = chunkCall().call(ChunkProgram.GET,
                new ChunkProgram.IntPair(1 << 20, 0), ChunkProgram.GetResult.class);
        HangGuard.waitFor(() -> chunks.xids.size() == 1);
        svc.stop();
        assertThatThrownBy(() -> pending.get(HangGuard.SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RdmaTransportException.class)
                .hasMessageContaining("CONNECTION").hasMessageContaining("closed by the responder");
        assertThat(client.transport().isOpen()).isFalse();
        HangGuard.waitFor(() -> client.statistics().chunkRegistrations() == 0
                && clientFabric.statistics().registrations() == 0);
        assertThatThrownBy(() -> call(ChunkProgram.SUM, new TestProgram.Opaque(new byte[1]), new XdrInt()))
                .isInstanceOf(RdmaTransportException.class).hasMessageContaining("closed by the responder");
    }

    @Test
    void aBrokenConnectionFailsPendingCallsAtOnceAndReleasesTheirChunks() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT);
        // A first answer brings the server's grant, so that both calls below are in progress at once.
        call(ChunkProgram.SUM, new TestProgram.Opaque(new byte[1]), new XdrInt());
        chunks.gate = new CountDownLatch(1);
        CompletableFuture<XdrInt> put = chunkCall().call(ChunkProgram.PUT,
                new TestProgram.Opaque(ChunkProgram.pattern(65536)), XdrInt.class);
        CompletableFuture<ChunkProgram.GetResult> get = chunkCall().call(ChunkProgram.GET,
                new ChunkProgram.IntPair(65536, 0), ChunkProgram.GetResult.class);
        HangGuard.waitFor(() -> chunks.xids.size() == 3);
        factory.breakConnections(clientFabric);
        for (CompletableFuture<?> pending : List.of(put, get)) {
            assertThatThrownBy(() -> pending.get(HangGuard.SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RdmaTransportException.class)
                    .hasMessageContaining("CONNECTION");
        }
        HangGuard.waitFor(() -> client.statistics().chunkRegistrations() == 0
                && clientFabric.statistics().registrations() == 0);
    }

    /**
     * A client whose connection breaks with calls at the program connects again at once, as the Linux
     * client does, and sends them again with their XIDs; each is answered once.
     */
    @Test
    void aClientWhoseConnectionBreaksConnectsAgainAndSendsItsCallsAgain() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT, ReconnectPolicy.LINUX);
        call(ChunkProgram.SUM, new TestProgram.Opaque(new byte[1]), new XdrInt());
        chunks.xids.clear();
        chunks.gate = new CountDownLatch(1);
        List<byte[]> data = List.of(new byte[] {1}, ChunkProgram.pattern(65536), ChunkProgram.pattern(3));
        List<CompletableFuture<XdrInt>> calls = new ArrayList<>();
        for (byte[] bytes : data) {
            calls.add(chunkCall().call(ChunkProgram.PUT, new TestProgram.Opaque(bytes), XdrInt.class));
        }
        HangGuard.waitFor(() -> chunks.xids.size() == data.size());
        List<Integer> sent = List.copyOf(chunks.xids);
        factory.breakConnections(clientFabric);
        HangGuard.waitFor(() -> client.connects() == 2);
        // The programs answer into the broken connection, then run the calls sent again.
        chunks.gate.countDown();
        for (int i = 0; i < data.size(); i++) {
            assertThat(calls.get(i).get(HangGuard.SECONDS, TimeUnit.SECONDS).intValue())
                    .isEqualTo(ChunkProgram.crc(data.get(i)));
        }
        List<Integer> twice = new ArrayList<>(sent);
        twice.addAll(sent);
        assertThat(chunks.xids).as("each call ran once on each connection, with its XID")
                .containsExactlyInAnyOrderElementsOf(twice);
        assertThat(client.statistics().messagesDropped()).as("no answer to a call not outstanding").isZero();
    }

    @Test
    void closingTheClientAndTheServiceUnderLoadLeavesNothing() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT);
        // A call made once the client is closed gets oncrpc4j's answer: its reply queue rejects it.
        underLoad(() -> {
            client.close();
            svc.stop();
        }, RdmaTransportException.class, RejectedExecutionException.class);
    }

    @Test
    void closingTheServersFabricUnderLoadFailsTheCallsAndLeavesNothing() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT);
        underLoad(() -> factory.close(serverFabric), RdmaTransportException.class);
        HangGuard.waitFor(() -> !client.transport().isOpen());
    }

    /** What ends the load. */
    private interface Ending {
        void run() throws Exception;
    }

    /**
     * Has callers make calls of every shape, one after another, until one fails; ends them while they
     * do; then waits for every caller to see a call fail as expected. The test's end checks that
     * nothing is held.
     */
    @SafeVarargs
    private void underLoad(Ending ending, Class<? extends Throwable>... failures) throws Exception {
        AtomicInteger answered = new AtomicInteger();
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
        try {
            List<Future<Exception>> ends = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                int caller = i;
                ends.add(callers.submit(() -> callUntilFailure(caller, answered)));
            }
            HangGuard.waitFor(() -> answered.get() >= 10 * CALLERS);
            ending.run();
            for (Future<Exception> end : ends) {
                assertThat(end.get(HangGuard.SECONDS, TimeUnit.SECONDS)).isInstanceOfAny(failures);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    /** @return how the first call that did not succeed failed */
    private Exception callUntilFailure(int caller, AtomicInteger answered) {
        byte[] data = ChunkProgram.pattern(100_000 + caller);
        try {
            for (int round = 0; ; round++) {
                switch (round % 4) {
                    case 0 -> assertThat(call(ChunkProgram.PUT, new TestProgram.Opaque(data), new XdrInt()).intValue())
                            .isEqualTo(ChunkProgram.crc(data));
                    case 1 -> assertThat(call(ChunkProgram.GET, new ChunkProgram.IntPair(data.length, 0),
                            new ChunkProgram.GetResult()).data).hasSize(data.length);
                    case 2 -> assertThat(call(ChunkProgram.LIST, new ChunkProgram.IntPair(data.length, 0),
                            new TestProgram.Opaque()).bytes).hasSize(data.length);
                    default -> assertThat(call(ChunkProgram.SUM, new TestProgram.Opaque(data), new XdrInt()).intValue())
                            .isEqualTo(ChunkProgram.crc(data));
                }
                answered.incrementAndGet();
            }
        } catch (Exception e) {
            return e;
        }
    }
}
