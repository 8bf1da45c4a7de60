package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.CompletionHandler;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/** {@link RdmaRpcSvcBuilder#withSameThreadIoStrategy}: programs run on the progress thread, with oncrpc4j's semantics. */
class SameThreadIoStrategyTest extends SimTest {

    private static final long HANG_GUARD_S = 30;
    private static final OncRpcProgram WHERE = new OncRpcProgram(0x2000_0124, 1);

    /** For each call, whether its program ran on the server fabric's progress thread. */
    private final List<Boolean> onProgressThread = new CopyOnWriteArrayList<>();

    SameThreadIoStrategyTest() {
        super(8166);
    }

    private void serveOnTheProgressThread() {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withSameThreadIoStrategy()
                .withRpcService(TestProgram.PROGRAM, new TestProgram())
                .withRpcService(WHERE, call -> {
                    onProgressThread.add(sim.serverFabric.onProgressThread());
                    call.reply(XdrVoid.XDR_VOID);
                })
                .build();
        svc.start();
    }

    @Test
    void runsEveryProgramOnTheProgressThreadAndAnswersEveryCall() throws Exception {
        serveOnTheProgressThread();
        client = sim.connect(TransportConfig.DEFAULT);
        int calls = 200;
        CountDownLatch answered = new CountDownLatch(calls);
        AtomicInteger failed = new AtomicInteger();
        RpcCall where = new RpcCall(WHERE.getNumber(),
                WHERE.getVersion(), new RpcAuthTypeNone(), client.transport());
        for (int i = 0; i < calls; i++) {
            // Many in flight at once: the credits, not the program, bound them.
            where.call(0, XdrVoid.XDR_VOID, new CompletionHandler<RpcReply, RpcTransport>() {
                @Override
                public void completed(RpcReply reply, RpcTransport transport) {
                    answered.countDown();
                }

                @Override
                public void failed(Throwable error, RpcTransport transport) {
                    failed.incrementAndGet();
                    answered.countDown();
                }
            });
        }

        assertThat(answered.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
        assertThat(failed).hasValue(0);
        assertThat(onProgressThread).hasSize(calls).containsOnly(true);
    }

    @Test
    void keepsOncRpc4jsAnswersToAProgramThatThrows() throws Exception {
        serveOnTheProgressThread();
        client = sim.connect(TransportConfig.DEFAULT);
        RpcCall call = TestProgram.call(client.transport());

        assertThatThrownBy(() -> call.call(TestProgram.THROW_RUNTIME, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID,
                HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(OncRpcAcceptedException.class)
                .hasMessageContaining("SYSTEM");
        TestProgram.Opaque echoed = new TestProgram.Opaque();
        call.call(TestProgram.ECHO, new TestProgram.Opaque(new byte[] {7, 8}), echoed, HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(echoed.bytes).containsExactly(7, 8);
    }

    @Test
    void needsWorkersOrTheSameThreadStrategy() {
        assertThatThrownBy(() -> new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("withSameThreadIoStrategy()");
    }
}
