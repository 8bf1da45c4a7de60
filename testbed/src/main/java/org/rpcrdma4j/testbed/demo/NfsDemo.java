package org.rpcrdma4j.testbed.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.FileHandles;
import org.rpcrdma4j.testbed.nfs.MountService;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.testbed.nfs.Nfs3Service;
import org.rpcrdma4j.testbed.sim.SimulatedNetwork;
import org.rpcrdma4j.transport.FabricAddress;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.efa.EfaFabric;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The README's demo: the NFSv3 test service served over RPC-over-RDMA on the simulated EFA device,
 * mounted and used by the client helper, the way the Linux client uses an NFS/RDMA server, with the
 * workload of {@link NfsWorkload}. Everything runs in this JVM: the simulated fabric stands in for the
 * RDMA hardware and the network.
 */
public final class NfsDemo {

    private static final long CALL_TIMEOUT_S = 60;

    private final PrintWriter out;
    private final NfsWorkload workload;
    private final long seed;

    /**
     * @param out      where the report goes
     * @param workload what to do on the mounted export
     * @param seed     the seed of the simulation
     */
    public NfsDemo(PrintWriter out, NfsWorkload workload, long seed) {
        this.out = out;
        this.workload = workload;
        this.seed = seed;
    }

    /**
     * Runs the demo in a fresh temporary export directory, deleted afterwards.
     *
     * @return whether every check passed
     * @throws Exception if the service or a call fails
     */
    public boolean run() throws Exception {
        Path export = Files.createTempDirectory("rpcrdma4j-demo");
        ExecutorService workers = Executors.newFixedThreadPool(4);
        boolean ok;
        try (SimulatedNetwork network = new SimulatedNetwork(seed)) {
            FileHandles handles = new FileHandles(export, 100_000);
            OncRpcProgram nfs = new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3);
            RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(network.server()).withConfig(TransportConfig.DEFAULT)
                    .withWorkerThreadExecutionService(workers)
                    .withRpcService(nfs, new Nfs3Service(handles)).withDdpPolicy(new NfsDdpPolicy())
                    .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3),
                            new MountService("/export", handles))
                    .build();
            svc.start();
            out.println("rpcrdma4j demo: NFSv3 over RPC-over-RDMA v1 over EFA RDM v4, simulated in one JVM "
                    + "(no RDMA device, no network)");
            out.println("server " + readable(network.server().localAddress()) + ", client "
                    + readable(network.client().localAddress()) + " (simulated EFA endpoints: GID and QP number)");
            try (RdmaRpcClient rdma = RdmaRpcClient.builder(network.client(), network.server().localAddress())
                    .withDdpPolicy(new NfsDdpPolicy()).withConnectTimeout(Duration.ofSeconds(30)).connect()) {
                Nfs3Client client = new Nfs3Client(rdma.transport(), new RpcAuthTypeNone(), CALL_TIMEOUT_S,
                        TimeUnit.SECONDS);
                byte[] root = client.mount("/export");
                out.println("mounted /export over RDMA (inline thresholds 4096/4096, 128 credits asked)");
                ok = workload.run(client, root);
                client.umount("/export");
                report(rdma.statistics(), network.client(), network.server());
            } finally {
                svc.stop();
            }
        } finally {
            workers.shutdownNow();
            deleteTree(export);
        }
        out.println(ok ? "all checks passed" : "SOME CHECKS FAILED");
        out.flush();
        return ok;
    }

    private void report(TransportStatistics rdma, EfaFabric client, EfaFabric server) {
        NfsWorkload.reportShapes(out, rdma);
        out.println("what moved how (EFA RDM protocol, messages sent / RDMA operations started):");
        for (EfaFabric side : new EfaFabric[] {client, server}) {
            TransportStatistics at = side.statistics();
            out.printf("  %s: eager %d, medium %d, long-CTS %d, long-read %d; RDMA reads %d, writes %d%n",
                    side == client ? "client" : "server", at.fabricCounter(EndpointCounter.EAGER_MESSAGES_SENT.name()),
                    at.fabricCounter(EndpointCounter.MEDIUM_MESSAGES_SENT.name()),
                    at.fabricCounter(EndpointCounter.LONG_CTS_MESSAGES_SENT.name()),
                    at.fabricCounter(EndpointCounter.LONG_READ_MESSAGES_SENT.name()),
                    at.fabricCounter(EndpointCounter.DIRECT_READS.name()),
                    at.fabricCounter(EndpointCounter.DIRECT_WRITES.name()));
        }
    }

    /** An EFA address as people write one: the GID in IPv6's short form, and the QP number. */
    static String readable(FabricAddress address) {
        return shortIpv6(address.inetAddress()) + " QPN " + address.number();
    }

    /** RFC 5952's form: the longest run of two or more zero groups becomes "::". */
    static String shortIpv6(InetAddress address) {
        String[] groups = address.getHostAddress().split(":");
        int bestAt = -1;
        int bestLength = 1;
        for (int i = 0; i < groups.length; ) {
            int j = i;
            while (j < groups.length && groups[j].equals("0")) {
                j++;
            }
            if (j - i > bestLength) {
                bestAt = i;
                bestLength = j - i;
            }
            i = Math.max(j, i + 1);
        }
        if (bestAt < 0) {
            return String.join(":", groups);
        }
        return String.join(":", Arrays.copyOfRange(groups, 0, bestAt)) + "::"
                + String.join(":", Arrays.copyOfRange(groups, bestAt + bestLength, groups.length));
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
