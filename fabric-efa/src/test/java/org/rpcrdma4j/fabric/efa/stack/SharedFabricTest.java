package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * One fabric serves and calls at once: a server and any number of clients on it, the same peer
 * included, each connection with its own credits and receives.
 */
class SharedFabricTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);
    private static final long HANG_GUARD_S = 30;

    private final SimHarness sim = new SimHarness(SEED);
    private final List<RdmaRpcSvc> servers = new ArrayList<>();
    private final List<RdmaRpcClient> clients = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (RdmaRpcClient client : clients) {
            client.close();
        }
        for (RdmaRpcSvc server : servers) {
            server.stop();
        }
        sim.close();
    }

    private void serve(Fabric fabric) {
        RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(fabric).withWorkerThreadExecutionService(sim.workers)
                .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
        svc.start();
        servers.add(svc);
    }

    private RdmaRpcClient connect(Fabric from, Fabric to) throws Exception {
        RdmaRpcClient client = RdmaRpcClient.builder(from, to.localAddress())
                .withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S)).connect();
        clients.add(client);
        return client;
    }

    private static byte[] echo(RdmaRpcClient client, byte[] data) throws Exception {
        TestProgram.Opaque result = new TestProgram.Opaque();
        new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(data), result, HANG_GUARD_S,
                TimeUnit.SECONDS);
        return result.bytes;
    }

    @Test
    void aServersFabricCallsOtherServersAndEachOtherAtOnce() throws Exception {
        serve(sim.serverFabric);
        serve(sim.rawFabric);
        // The server fabric is also a client of the other server, which is a client of it in turn.
        RdmaRpcClient outward = connect(sim.serverFabric, sim.rawFabric);
        RdmaRpcClient inward = connect(sim.rawFabric, sim.serverFabric);
        RdmaRpcClient first = connect(sim.clientFabric, sim.serverFabric);
        RdmaRpcClient second = connect(sim.clientFabric, sim.serverFabric);
        RdmaRpcClient third = connect(sim.clientFabric, sim.rawFabric);

        for (int round = 0; round < 20; round++) {
            for (RdmaRpcClient client : clients) {
                byte[] data = {(byte) round, (byte) clients.indexOf(client)};
                assertThat(echo(client, data)).isEqualTo(data);
            }
        }
        // Closing some connections leaves the others, on the same fabrics, serving.
        first.close();
        outward.close();
        assertThat(echo(second, new byte[] {1})).containsExactly(1);
        assertThat(echo(inward, new byte[] {2})).containsExactly(2);
        assertThat(echo(third, new byte[] {3})).containsExactly(3);
        assertThat(first.transport().isOpen()).isFalse();
        assertThat(second.transport().getLocalSocketAddress()).isNotEqualTo(inward.transport().getLocalSocketAddress());
    }

    @Test
    void aClosedFabricRefusesToConnectAtOnce() throws Exception {
        serve(sim.serverFabric);
        sim.clientFabric.close();
        assertThatThrownBy(() -> connect(sim.clientFabric, sim.serverFabric))
                .isInstanceOf(RdmaTransportException.class).hasMessageContaining("is closed");
        assertThat(sim.clientFabric.isClosed()).isTrue();
    }
}
