package org.rpcrdma4j.testbed.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.testbed.sim.SimulatedNetwork;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;

/**
 * What {@code testbed serve} serves: a client mounts the export by its path, writes a file that lands
 * in the directory, reads it back, and the server counts the calls; after {@code close} nothing is served.
 */
class NfsServerTest {

    @Test
    void aClientMountsWritesAndReadsBackTheExport(@TempDir Path export) throws Exception {
        byte[] data = "written over RPC-over-RDMA\n".getBytes(StandardCharsets.US_ASCII);
        try (SimulatedNetwork network = new SimulatedNetwork(5)) {
            NfsServer server = new NfsServer(network.server(), export, "/srv/exp", null);
            try (RdmaRpcClient rdma = RdmaRpcClient.builder(network.client(), network.server().localAddress())
                    .withDdpPolicy(new NfsDdpPolicy()).withConnectTimeout(Duration.ofSeconds(30)).connect()) {
                Nfs3Client client = new Nfs3Client(rdma.transport(), new RpcAuthTypeNone(), 30, TimeUnit.SECONDS);
                byte[] root = client.mount("/srv/exp");
                byte[] fh = client.create(root, "hello.txt");
                client.write(fh, 0, data, Nfs3.FILE_SYNC);

                assertThat(Files.readAllBytes(export.resolve("hello.txt"))).isEqualTo(data);
                assertThat(client.read(fh, 0, 4096).bytes()).isEqualTo(data);
            } finally {
                server.close();
            }
            assertThat(server.rdmaMountCalls()).isEqualTo(1);
            assertThat(server.nfsCalls()).isEqualTo(3);
            assertThat(server.tcpMountCalls()).isZero();
            assertThat(server.statistics().messagesDropped()).isZero();
        }
    }
}
