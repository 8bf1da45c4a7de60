package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.transport.oncrpc.SpinThenParkCaller;

/** {@link SpinThenParkCaller}: oncrpc4j's blocking call, results and failures alike, whether the reply comes in the spin or after. */
class SpinThenParkCallerTest extends SimTest {

    private static final long HANG_GUARD_S = 30;
    private static final long TIMEOUT_MS = 200;

    private final TestProgram program = new TestProgram();
    private RpcCall call;

    SpinThenParkCallerTest() {
        super(8166);
    }

    @BeforeEach
    void serve() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(sim.workers).withRpcService(TestProgram.PROGRAM, program).build();
        svc.start();
        client = sim.connect(TransportConfig.DEFAULT);
        call = TestProgram.call(client.transport());
    }

    @Override
    void release() {
        program.gate.countDown();
    }

    @Test
    void decodesTheResultWhetherItSpinsOrParksAtOnce() throws Exception {
        for (Duration spin : new Duration[] {Duration.ofMillis(1), Duration.ZERO}) {
            TestProgram.Opaque echoed = new TestProgram.Opaque();
            new SpinThenParkCaller(spin).call(call, TestProgram.ECHO, new TestProgram.Opaque(new byte[] {1, 2, 3}),
                    echoed, HANG_GUARD_S, TimeUnit.SECONDS);
            assertThat(echoed.bytes).containsExactly(1, 2, 3);
        }
    }

    @Test
    void aCallerParkedAfterItsSpinIsWokenByTheReply() throws Exception {
        program.gate = new CountDownLatch(1);
        AtomicReference<Thread> caller = new AtomicReference<>();
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            caller.set(Thread.currentThread());
            try {
                new SpinThenParkCaller(Duration.ofNanos(1000)).call(call, TestProgram.GATED, XdrVoid.XDR_VOID,
                        XdrVoid.XDR_VOID, 0, null);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        HangGuard.waitFor(() -> program.inProgress.get() == 1 && caller.get() != null
                && caller.get().getState() == Thread.State.WAITING);
        assertThat(done).isNotDone();

        program.gate.countDown();
        done.get(HANG_GUARD_S, TimeUnit.SECONDS);
    }

    @Test
    void throwsWhatOncrpc4jsBlockingCallThrows() {
        SpinThenParkCaller caller = new SpinThenParkCaller(Duration.ofMillis(1));
        assertThatThrownBy(() -> call.call(TestProgram.THROW_RUNTIME, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID,
                HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(OncRpcAcceptedException.class);
        assertThatThrownBy(() -> caller.call(call, TestProgram.THROW_RUNTIME, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID,
                HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(OncRpcAcceptedException.class)
                .hasMessageContaining("SYSTEM");
    }

    @Test
    void aCallWithoutAReplyTimesOut() throws Exception {
        program.gate = new CountDownLatch(1);
        assertThatThrownBy(() -> new SpinThenParkCaller(Duration.ofMillis(1)).call(call, TestProgram.GATED,
                XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, TIMEOUT_MS, TimeUnit.MILLISECONDS))
                .isInstanceOf(TimeoutException.class);
    }

    @Test
    void anInterruptedCallerStopsWaiting() throws Exception {
        program.gate = new CountDownLatch(1);
        AtomicReference<Thread> caller = new AtomicReference<>();
        CompletableFuture<Throwable> thrown = CompletableFuture.supplyAsync(() -> {
            caller.set(Thread.currentThread());
            try {
                new SpinThenParkCaller(Duration.ZERO).call(call, TestProgram.GATED, XdrVoid.XDR_VOID,
                        XdrVoid.XDR_VOID, 0, null);
                return null;
            } catch (Exception e) {
                return e;
            }
        });
        HangGuard.waitFor(() -> caller.get() != null && caller.get().getState() == Thread.State.WAITING);

        caller.get().interrupt();
        assertThat(thrown.get(HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class);
    }

    @Test
    void refusesANegativeSpin() {
        assertThatThrownBy(() -> new SpinThenParkCaller(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
