package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.portmap.GenericPortmapClient;
import org.dcache.oncrpc4j.portmap.OncPortmapClient;
import org.dcache.oncrpc4j.portmap.OncRpcPortmap;
import org.dcache.oncrpc4j.portmap.OncRpcbindServer;
import org.dcache.oncrpc4j.rpc.IoStrategy;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcRejectedException;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/** oncrpc4j programs served over RPC-over-RDMA on the simulated EFA fabric, called by oncrpc4j clients. */
class RdmaRpcSvcTest extends SimTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);
    private static final long HANG_GUARD_S = 30;

    private final TestProgram program = new TestProgram();

    private void serve(TransportConfig config) {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(config)
                .withWorkerThreadExecutionService(sim.workers)
                .withRpcService(new OncRpcProgram(OncRpcPortmap.PORTMAP_PROGRAMM, OncRpcPortmap.PORTMAP_V4),
                        new OncRpcbindServer())
                .withRpcService(new OncRpcProgram(OncRpcPortmap.PORTMAP_PROGRAMM, OncRpcPortmap.PORTMAP_V2),
                        new OncRpcbindServer())
                .withRpcService(TestProgram.PROGRAM, program).build();
        svc.start();
    }

    RdmaRpcSvcTest() {
        super(SEED);
    }

    @Override
    void release() {
        program.gate.countDown();
    }

    private RpcCall call() {
        return TestProgram.call(client.transport());
    }

    private byte[] echo(byte[] data) throws Exception {
        TestProgram.Opaque result = new TestProgram.Opaque();
        call().call(TestProgram.ECHO, new TestProgram.Opaque(data), result, HANG_GUARD_S, TimeUnit.SECONDS);
        return result.bytes;
    }

    @Test
    void portmapNullSetGetportDump() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        OncPortmapClient portmap = new GenericPortmapClient(client.transport());
        assertThat(portmap.ping()).isTrue();
        assertThat(portmap.setPort(100003, 4, "tcp", "0.0.0.0.8.1", "nfs")).isTrue();
        assertThat(portmap.getPort(100003, 4, "tcp")).endsWith(".8.1");
        assertThat(portmap.dump()).anySatisfy(entry -> assertThat(entry.toString()).contains("100003"));
    }

    @Test
    void echoUpToTheInlineThresholdIsByteExactAndALongerReplyWithoutAReplyChunkFailsWithErrChunk()
            throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        // 28-byte RDMA_MSG header + 40-byte call header + 4-byte length + data <= 4096.
        for (int size : new int[] {0, 1, 1000, 4023, 4024}) {
            byte[] data = new byte[size];
            new Random(size).nextBytes(data);
            assertThat(echo(data)).as("echo of %d bytes", size).isEqualTo(data);
        }
        // Without a DdpPolicy a longer call goes Position-zero; its 4052-byte reply still fits inline.
        assertThat(echo(new byte[4025])).hasSize(4025);
        // A 4128-byte reply does not, and nothing provided a Reply chunk for it.
        assertThatThrownBy(() -> echo(new byte[4100])).isInstanceOf(RdmaTransportException.class)
                .hasMessageContaining("RDMA_ERROR ERR_CHUNK");
        assertThat(echo(new byte[] {1, 2, 3})).containsExactly(1, 2, 3);
    }

    @Test
    void replyHandlersRunWhereTheIoStrategySaysAsOncRpc4jsClientDoes() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        assertThat(handlerThread()).as("SAME_THREAD, the default").isEqualTo("efa-sim-progress");
        client.close();

        client = RdmaRpcClient.builder(sim.clientFabric, sim.serverFabric.localAddress())
                .withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S)).withIoStrategy(IoStrategy.WORKER_THREAD)
                .connect();
        assertThat(handlerThread()).isEqualTo("rdma-rpc-client-replies");
    }

    /** @return the name of the thread a NULL call's completion handler runs on */
    private String handlerThread() throws Exception {
        CompletableFuture<String> thread = new CompletableFuture<>();
        call().call(0, XdrVoid.XDR_VOID, new CompletionHandler<RpcReply, RpcTransport>() {
            @Override
            public void completed(RpcReply reply, RpcTransport transport) {
                thread.complete(Thread.currentThread().getName());
            }

            @Override
            public void failed(Throwable error, RpcTransport transport) {
                thread.completeExceptionally(error);
            }
        });
        return thread.get(HANG_GUARD_S, TimeUnit.SECONDS);
    }

    @Test
    void startingWhereTheFabricCannotListenFailsAtOnce() {
        serve(TransportConfig.DEFAULT);
        RdmaRpcSvc second = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric)
                .withWorkerThreadExecutionService(sim.workers).withRpcService(TestProgram.PROGRAM, program).build();
        assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has an acceptor already");
    }

    @Test
    void failuresAreAnsweredAsOncRpc4jAnswersThem() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        RpcCall unknownProgram = new RpcCall(0x2000_0999, 1, new RpcAuthTypeNone(), client.transport());
        assertThatThrownBy(() -> unknownProgram.call(0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, HANG_GUARD_S,
                TimeUnit.SECONDS)).isInstanceOf(OncRpcAcceptedException.class).hasMessageContaining("PROG_UNAVAIL");
        assertThatThrownBy(() -> call().call(99, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, HANG_GUARD_S, TimeUnit.SECONDS))
                .isInstanceOf(OncRpcAcceptedException.class).hasMessageContaining("PROC_UNAVAIL");
        assertThatThrownBy(() -> call().call(TestProgram.EXPECT_INT_PAIR, new TestProgram.Opaque(new byte[1]),
                XdrVoid.XDR_VOID, HANG_GUARD_S, TimeUnit.SECONDS))
                .isInstanceOf(OncRpcAcceptedException.class).hasMessageContaining("GARBAGE_ARGS");
        assertThatThrownBy(() -> call().call(TestProgram.THROW_RUNTIME, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID,
                HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(OncRpcAcceptedException.class).hasMessageContaining("SYSTEM");
        assertThatThrownBy(() -> call().call(TestProgram.THROW_REJECT, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID,
                HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(OncRpcRejectedException.class).hasMessageContaining("AUTH_ERROR");
        assertThat(echo(new byte[] {9})).containsExactly(9);
    }

    @Test
    void aReplyOverTheRequestersThresholdFailsTheCallWithErrChunk() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT.withInlineReceiveSize(1024));
        assertThatThrownBy(() -> echo(new byte[2000])).isInstanceOf(RdmaTransportException.class)
                .hasMessageContaining("RDMA_ERROR ERR_CHUNK");
        assertThat(echo(new byte[900])).hasSize(900);
    }

    @Test
    void aReplyHandlerOnTheProgressThreadMayCloseTheClient() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        // A first reply brings the grant beyond the one credit a requester starts with.
        call().call(TestProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.class).get(HANG_GUARD_S, TimeUnit.SECONDS);
        program.gate = new CountDownLatch(1);
        CompletableFuture<XdrVoid> pending = call().call(TestProgram.GATED, XdrVoid.XDR_VOID, XdrVoid.class);
        HangGuard.waitFor(() -> program.inProgress.get() == 1);
        CompletableFuture<Boolean> closedFromHandler = new CompletableFuture<>();
        call().call(TestProgram.NULL, XdrVoid.XDR_VOID, new CompletionHandler<RpcReply, RpcTransport>() {
            @Override
            public void completed(RpcReply reply, RpcTransport transport) {
                client.close();
                closedFromHandler.complete(sim.clientFabric.onProgressThread());
            }

            @Override
            public void failed(Throwable error, RpcTransport transport) {
                closedFromHandler.completeExceptionally(error);
            }
        });

        assertThat(closedFromHandler.get(HANG_GUARD_S, TimeUnit.SECONDS)).as("closed on the progress thread").isTrue();
        assertThatThrownBy(() -> pending.get(HANG_GUARD_S, TimeUnit.SECONDS))
                .cause().isInstanceOf(RdmaTransportException.class).hasMessageContaining("closed by the requester");
        assertThat(sim.clientFabric.onProgressThread()).isFalse();
        client = null;
    }

    @Test
    void closingTheClientFailsItsPendingCalls() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        program.gate = new CountDownLatch(1);
        CompletableFuture<XdrVoid> pending = call().call(TestProgram.GATED, XdrVoid.XDR_VOID, XdrVoid.class);
        HangGuard.waitFor(() -> program.inProgress.get() == 1);
        client.close();
        assertThatThrownBy(() -> pending.get(HANG_GUARD_S, TimeUnit.SECONDS))
                .cause().isInstanceOf(RdmaTransportException.class).hasMessageContaining("closed by the requester");
        client = null;
    }

    @Test
    void connectionNumbersWrapAroundButNeverRepeatAnOpenConnections() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        int held = client.transport().getLocalSocketAddress().getPort() - EfaFabric.FIRST_PORT + 1;
        RawPeer peer = new RawPeer(sim.rawFabric);
        // One connection after another; after MAX_CONNECTIONS of them the numbers wrap.
        List<Integer> numbers = new ArrayList<>();
        for (int i = 0; i < EfaFabric.MAX_CONNECTIONS; i++) {
            numbers.add(peer.connect(sim.serverFabric.localAddress()).localSocketAddress().getPort()
                    - EfaFabric.FIRST_PORT + 1);
            peer.close();
        }
        assertThat(numbers).doesNotContain(held).hasSize(EfaFabric.MAX_CONNECTIONS);
        assertThat(numbers.get(numbers.size() - 2)).isEqualTo(EfaFabric.MAX_CONNECTIONS);
        assertThat(numbers.get(numbers.size() - 1)).isEqualTo(held + 1);
    }

    @Test
    void callsOnOneConnectionSeeTheSameAddressObjectsAndNoHostNameLookup() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        InetSocketAddress clientLocal = client.transport().getLocalSocketAddress();
        for (int i = 0; i < 5; i++) {
            call().call(TestProgram.ADDRESSES, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, HANG_GUARD_S, TimeUnit.SECONDS);
        }
        InetSocketAddress remote = program.addresses.get(0);
        InetSocketAddress local = program.addresses.get(1);
        for (int i = 0; i < program.addresses.size(); i += 2) {
            assertThat(program.addresses.get(i)).isSameAs(remote);
            assertThat(program.addresses.get(i + 1)).isSameAs(local);
        }
        // The server sees the client's end as the client sees it, and the client's own view never changes.
        assertThat(remote).isEqualTo(clientLocal);
        assertThat(client.transport().getLocalSocketAddress()).isSameAs(clientLocal);
        assertThat(client.transport().getRemoteSocketAddress()).isSameAs(client.transport().getRemoteSocketAddress())
                .isEqualTo(local);
        assertThat(client.transport().getPeerTransport().getLocalSocketAddress()).isSameAs(clientLocal);
        // A GID that is no IP host's knows its name before anyone asks: "name/literal", so no DNS lookup.
        String literal = remote.getAddress().getHostAddress();
        assertThat(program.unresolvedNames).containsOnly(literal + "/" + literal);
        assertThat(remote.getAddress().getHostName()).isEqualTo(literal);
        // Never a reserved port: a `secure` export refuses RPC-over-RDMA clients, as it refuses Linux's.
        assertThat(remote.getPort()).isGreaterThanOrEqualTo(EfaFabric.FIRST_PORT);
    }

    @Test
    void eachConnectionHasItsOwnAddressFromTheGid() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);
        assertThat(client.transport().getLocalSocketAddress().getAddress().getHostAddress()).startsWith("fe80");
        assertThat(client.transport().getRemoteSocketAddress().getPort()).isEqualTo(7);
        assertThat(client.transport().getPeerTransport().getPeerTransport()).isSameAs(client.transport());
    }

}
