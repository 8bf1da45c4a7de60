package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.conformance.BackchannelProgram;
import org.rpcrdma4j.fabric.conformance.CallbackProgram;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/** Backward calls (RFC 8167) from a server program to the client's callback service on the simulated fabric. */
class BackchannelTest extends SimTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8167);
    private static final long HANG_GUARD_S = 30;

    private final BackchannelProgram program = new BackchannelProgram();
    private final CallbackProgram callbacks = new CallbackProgram();

    private void serve(TransportConfig config) {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(config)
                .withWorkerThreadExecutionService(sim.workers)
                .withRpcService(BackchannelProgram.PROGRAM, program).build();
        svc.start();
    }

    BackchannelTest() {
        super(SEED);
    }

    @Override
    void release() {
        callbacks.gate.countDown();
    }

    private RpcCall forward() {
        return new RpcCall(BackchannelProgram.PROGRAM.getNumber(), BackchannelProgram.PROGRAM.getVersion(),
                new RpcAuthTypeNone(), client.transport());
    }

    /** Serves, connects a client with the callback service, and learns the server's transport of its connection. */
    private RpcTransport connectWithCallbacks() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        client.registerCallbackService(CallbackProgram.PROGRAM, callbacks);
        return serverTransport();
    }

    /** @return the server's transport of the client's connection, learnt from a forward NULL call */
    private RpcTransport serverTransport() throws Exception {
        forward().call(BackchannelProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, HANG_GUARD_S, TimeUnit.SECONDS);
        return program.transport;
    }

    @Test
    void aBackwardCallWithoutACallbackServiceGetsProgUnavail() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        RpcTransport server = serverTransport();
        assertThatThrownBy(() -> BackchannelProgram.callback(server).call(CallbackProgram.ECHO,
                new TestProgram.Opaque(new byte[1]), new TestProgram.Opaque(), HANG_GUARD_S, TimeUnit.SECONDS))
                .isInstanceOf(OncRpcAcceptedException.class).hasMessageContaining("PROG_UNAVAIL");
        // The forward direction is unaffected.
        assertThat(serverTransport()).isSameAs(server);
    }

    @Test
    void backwardMessagesOverTheInlineThresholdFailClearly() throws Exception {
        RpcTransport server = connectWithCallbacks();
        assertThatThrownBy(() -> BackchannelProgram.callback(server).call(CallbackProgram.ECHO,
                new TestProgram.Opaque(new byte[5000]), new TestProgram.Opaque(), HANG_GUARD_S, TimeUnit.SECONDS))
                .isInstanceOf(RdmaTransportException.class).hasMessageContaining("inline only (RFC 8167)");
        // A reply too large for inline is refused by the client with ERR_CHUNK.
        assertThatThrownBy(() -> BackchannelProgram.callback(server).call(CallbackProgram.BIG_REPLY,
                XdrVoid.XDR_VOID, new TestProgram.Opaque(), HANG_GUARD_S, TimeUnit.SECONDS))
                .isInstanceOf(RdmaTransportException.class).hasMessageContaining("RDMA_ERROR ERR_CHUNK");
        TestProgram.Opaque answer = new TestProgram.Opaque();
        BackchannelProgram.callback(server).call(CallbackProgram.ECHO, new TestProgram.Opaque(new byte[] {7}),
                answer, HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(answer.bytes).containsExactly(7);
        HangGuard.waitFor(() -> svc.statistics().backwardCallsInProgress() == 0
                && client.statistics().backwardCallsInProgress() == 0);
    }

    @Test
    void closingTheClientFailsAPendingBackwardCallPromptly() throws Exception {
        RpcTransport server = connectWithCallbacks();
        callbacks.gate = new CountDownLatch(1);
        CompletableFuture<XdrVoid> pending = BackchannelProgram.callback(server)
                .call(CallbackProgram.GATED, XdrVoid.XDR_VOID, XdrVoid.class);
        HangGuard.waitFor(() -> callbacks.inProgress.get() == 1);
        client.close();
        assertThatThrownBy(() -> pending.get(HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RdmaTransportException.class).hasMessageContaining("CONNECTION")
                .hasMessageContaining("closed by the requester");
        assertThat(svc.statistics().backwardCallsInProgress()).isZero();
        assertThat(server.getPeerTransport().isOpen()).isFalse();
        callbacks.gate.countDown();
        HangGuard.waitFor(() -> client.statistics().backwardCallsInProgress() == 0);
    }

    /**
     * A backward call whose connection is lost while its callback runs is not answered on the client's
     * next connection: the responder that sent it went with the old one.
     */
    @Test
    void theReplyToABackwardCallOfALostConnectionIsNotSentOnTheNextOne() throws Exception {
        RpcTransport server = connectWithCallbacks();
        callbacks.gate = new CountDownLatch(1);
        CompletableFuture<XdrVoid> pending = BackchannelProgram.callback(server)
                .call(CallbackProgram.GATED, XdrVoid.XDR_VOID, XdrVoid.class);
        HangGuard.waitFor(() -> callbacks.inProgress.get() == 1);
        svc.stop();
        assertThatThrownBy(() -> pending.get(HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        serve(TransportConfig.DEFAULT);
        // A forward call brings the client back on a new connection.
        assertThat(serverTransport()).isNotSameAs(server);
        assertThat(client.connects()).isEqualTo(2);
        callbacks.gate.countDown();
        HangGuard.waitFor(() -> client.statistics().backwardCallsInProgress() == 0);
        serverTransport();
        assertThat(svc.statistics().messagesDropped()).as("no stray reply reached the new connection").isZero();
        assertThat(svc.statistics().protocolErrors()).isZero();
    }

    @Test
    void eachDirectionsPeerIsTheOtherAndTheClientMakesNoBackwardCalls() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        RpcTransport server = serverTransport();
        assertThat(server.getPeerTransport().getPeerTransport()).isSameAs(server);
        assertThat(server.getPeerTransport().getRemoteSocketAddress()).isEqualTo(server.getRemoteSocketAddress());
        RpcTransport backward = client.transport().getPeerTransport();
        assertThat(backward.getPeerTransport()).isSameAs(client.transport());
        assertThatThrownBy(() -> new RpcCall(BackchannelProgram.PROGRAM.getNumber(),
                BackchannelProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(), backward)
                .call(BackchannelProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, HANG_GUARD_S, TimeUnit.SECONDS))
                .isInstanceOf(RdmaTransportException.class).hasMessageContaining("a client makes no backward calls");
    }

}
