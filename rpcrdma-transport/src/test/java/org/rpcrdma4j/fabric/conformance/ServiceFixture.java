package org.rpcrdma4j.fabric.conformance;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The transport's oncrpc4j service on one fabric of a {@link FabricFactory} and its client on
 * another, for the kit's suites above the seam; after each test, once every program it held back
 * has been let go: nothing in progress or registered on either side, then, the client closed, the
 * service stopped and both fabrics closed, nothing held by either fabric.
 */
public abstract class ServiceFixture {

    FabricFactory factory;
    Fabric serverFabric;
    Fabric clientFabric;
    final ExecutorService workers = Executors.newFixedThreadPool(4);
    final ChunkProgram chunks = new ChunkProgram();
    final TestProgram program = new TestProgram();
    final BackchannelProgram backchannel = new BackchannelProgram();
    final CallbackProgram callbacks = new CallbackProgram();
    RdmaRpcSvc svc;
    RdmaRpcClient client;

    /** @return a new network of the fabric under test; the kit closes it after each test */
    protected abstract FabricFactory fabrics();

    @BeforeEach
    final void openFabrics() {
        factory = fabrics();
        serverFabric = factory.server();
        clientFabric = factory.client();
    }

    /** Serves the kit's programs on the server fabric: the chunk program with its DDP policy, the test program, the backchannel program. */
    void serve(TransportConfig config) {
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withConfig(config)
                .withWorkerThreadExecutionService(workers).withRpcService(ChunkProgram.PROGRAM, chunks)
                .withRpcService(TestProgram.PROGRAM, program).withRpcService(BackchannelProgram.PROGRAM, backchannel)
                .withDdpPolicy(ChunkProgram.POLICY).build();
        svc.start();
    }

    /** @return a client of the service that does not connect again: a test sees its connection end */
    RdmaRpcClient connect(TransportConfig config) throws IOException {
        return connect(config, ReconnectPolicy.NEVER);
    }

    RdmaRpcClient connect(TransportConfig config, ReconnectPolicy reconnect) throws IOException {
        return RdmaRpcClient.builder(clientFabric, serverFabric.localAddress()).withConfig(config)
                .withDdpPolicy(ChunkProgram.POLICY).withReconnectPolicy(reconnect)
                .withConnectTimeout(Duration.ofSeconds(HangGuard.SECONDS)).connect();
    }

    /** @return {@code result}, filled by the chunk program's answer to a call on the client */
    <T extends XdrAble> T call(int procedure, XdrAble args, T result) throws Exception {
        chunkCall().call(procedure, args, result, HangGuard.SECONDS, TimeUnit.SECONDS);
        return result;
    }

    /** @return a call of the chunk program on the client's transport */
    RpcCall chunkCall() {
        return new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport());
    }

    @AfterEach
    final void nothingLeaks() throws Exception {
        try {
            chunks.gate.countDown();
            program.gate.countDown();
            callbacks.gate.countDown();
            if (svc != null) {
                HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 0
                        && svc.statistics().backwardCallsInProgress() == 0
                        && svc.statistics().chunkRegistrations() == 0);
            }
            if (client != null) {
                HangGuard.waitFor(() -> client.statistics().callsInProgress() == 0
                        && client.statistics().backwardCallsInProgress() == 0
                        && client.statistics().chunkRegistrations() == 0);
                client.close();
            }
            if (svc != null) {
                svc.stop();
            }
            factory.close(clientFabric);
            factory.close(serverFabric);
            Leaks.assertNoneIn(clientFabric);
            Leaks.assertNoneIn(serverFabric);
        } finally {
            factory.close();
            workers.shutdownNow();
        }
    }
}
