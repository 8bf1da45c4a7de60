package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The requester's bounded wait for credits: with 2 credits, 2 calls outstanding and 2 waiting, the
 * next caller waits for room, or fails at once on the progress thread, and closing releases it.
 */
class BackPressureTest extends SimTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);
    private static final long HANG_GUARD_S = 30;
    private static final int CREDITS = 2;

    private final TestProgram program = new TestProgram();
    private final List<CompletableFuture<XdrVoid>> calls = new ArrayList<>();

    @BeforeEach
    void fillTheWait() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(sim.workers).withRpcService(TestProgram.PROGRAM, program).build();
        svc.start();
        client = sim.connect(TransportConfig.DEFAULT.withRequesterCredits(CREDITS));
        // The first answer brings the grant: CREDITS outstanding from then on.
        call().call(TestProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.class).get(HANG_GUARD_S, TimeUnit.SECONDS);
        program.gate = new CountDownLatch(1);
        for (int i = 0; i < 2 * CREDITS; i++) {
            calls.add(call().call(TestProgram.GATED, XdrVoid.XDR_VOID, XdrVoid.class));
        }
        HangGuard.waitFor(() -> program.inProgress.get() == CREDITS && client.statistics().callsWaiting() == CREDITS);
    }

    BackPressureTest() {
        super(SEED);
    }

    @Override
    void release() {
        program.gate.countDown();
    }

    /** Starts a thread that makes one more call, setting {@code next} to it once sent, or to its failure. */
    private Thread callInThread(AtomicReference<CompletableFuture<XdrVoid>> next) {
        Thread caller = new Thread(() -> {
            try {
                next.set(call().call(TestProgram.GATED, XdrVoid.XDR_VOID, XdrVoid.class));
            } catch (IOException e) {
                next.set(CompletableFuture.failedFuture(e));
            }
        });
        caller.start();
        return caller;
    }

    @Test
    void aCallerWaitsForRoomAmongTheCallsWaitingForACredit() throws Exception {
        AtomicReference<CompletableFuture<XdrVoid>> next = new AtomicReference<>();
        Thread caller = callInThread(next);

        HangGuard.waitFor(() -> caller.getState() == Thread.State.WAITING);
        assertThat(next.get()).as("still in send").isNull();
        assertThat(client.statistics().callsWaiting()).isEqualTo(CREDITS);

        program.gate.countDown();
        caller.join(TimeUnit.SECONDS.toMillis(HANG_GUARD_S));
        assertThat(caller.isAlive()).isFalse();
        next.get().get(HANG_GUARD_S, TimeUnit.SECONDS);
        for (CompletableFuture<XdrVoid> call : calls) {
            call.get(HANG_GUARD_S, TimeUnit.SECONDS);
        }
        assertThat(program.maxInProgress.get()).isEqualTo(CREDITS);
    }

    @Test
    void onTheProgressThreadACallThatFindsNoRoomFailsAtOnce() throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        CompletionHandler<RpcReply, RpcTransport> handler = new CompletionHandler<>() {
            @Override
            public void completed(RpcReply reply, RpcTransport transport) {
                outcome.complete(null);
            }

            @Override
            public void failed(Throwable error, RpcTransport transport) {
                outcome.complete(error);
            }
        };
        sim.clientFabric.execute(() -> {
            try {
                call().call(TestProgram.GATED, XdrVoid.XDR_VOID, handler);
            } catch (IOException e) {
                outcome.complete(e);
            }
        });

        Throwable error = outcome.get(HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(error).isInstanceOf(RdmaTransportException.class).hasMessageContaining("cannot wait for room");
        assertThat(((RdmaTransportException) error).scope()).isEqualTo(RdmaTransportException.Scope.CALL);
        assertThat(client.statistics().callsWaiting()).isEqualTo(CREDITS);
    }

    @Test
    void closingReleasesACallerWaitingForRoom() throws Exception {
        AtomicReference<CompletableFuture<XdrVoid>> next = new AtomicReference<>();
        Thread caller = callInThread(next);
        HangGuard.waitFor(() -> caller.getState() == Thread.State.WAITING);

        client.close();

        caller.join(TimeUnit.SECONDS.toMillis(HANG_GUARD_S));
        assertThat(caller.isAlive()).isFalse();
        assertThatThrownBy(() -> next.get().get(HANG_GUARD_S, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RdmaTransportException.class)
                .hasMessageContaining("closed by the requester");
        client = null;
    }

    private RpcCall call() {
        return TestProgram.call(client.transport());
    }
}
