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
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.FileHandles;
import org.rpcrdma4j.testbed.nfs.MountService;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.testbed.nfs.Nfs3Service;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The README's demo: the NFSv3 test service served over RPC-over-RDMA, mounted and used by the client
 * helper, the way the Linux client uses an NFS/RDMA server, with the workload of {@link NfsWorkload}.
 * Server and client run in this JVM, each on a fabric of its own from one provider: on the simulated
 * EFA network (the default) that fabric stands in for the RDMA hardware and the network.
 */
public final class NfsDemo {

    private static final long CALL_TIMEOUT_S = 60;

    private final PrintWriter out;
    private final MountedWorkload workload;
    private final FabricProvider provider;
    private final FabricOptions server;
    private final FabricOptions client;

    /**
     * @param out      where the report goes
     * @param workload what to do on the mounted export
     * @param provider the fabric to serve and mount on
     * @param server   the options of the server's fabric
     * @param client   the options of the client's fabric
     */
    public NfsDemo(PrintWriter out, MountedWorkload workload, FabricProvider provider, FabricOptions server,
                   FabricOptions client) {
        this.out = out;
        this.workload = workload;
        this.provider = provider;
        this.server = server;
        this.client = client;
    }

    /**
     * Runs the demo in a fresh temporary export directory, deleted afterwards.
     *
     * @return whether every check passed
     * @throws Exception if a fabric does not open, or the service or a call fails
     */
    public boolean run() throws Exception {
        Path export = Files.createTempDirectory("rpcrdma4j-demo");
        ExecutorService workers = Executors.newFixedThreadPool(4);
        boolean ok;
        try (Fabric serverFabric = provider.open(server); Fabric clientFabric = provider.open(client)) {
            FileHandles handles = new FileHandles(export, 100_000);
            OncRpcProgram nfs = new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3);
            RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withConfig(TransportConfig.DEFAULT)
                    .withWorkerThreadExecutionService(workers)
                    .withRpcService(nfs, new Nfs3Service(handles)).withDdpPolicy(new NfsDdpPolicy())
                    .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3),
                            new MountService("/export", handles))
                    .build();
            svc.start();
            out.println("rpcrdma4j demo: NFSv3 over RPC-over-RDMA v1 on the " + provider.name() + " fabric ("
                    + provider.description() + ")");
            out.println("server " + readable(serverFabric.localAddress()) + ", client "
                    + readable(clientFabric.localAddress()) + (server.deviceProfile() == DeviceProfile.READ_WRITE ? ""
                    : ", devices of profile " + server.deviceProfile().label()));
            try (RdmaRpcClient rdma = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                    .withDdpPolicy(new NfsDdpPolicy()).withConnectTimeout(Duration.ofSeconds(30)).connect()) {
                Nfs3Client client = new Nfs3Client(rdma.transport(), new RpcAuthTypeNone(), CALL_TIMEOUT_S,
                        TimeUnit.SECONDS);
                byte[] root = client.mount("/export");
                out.println("mounted /export over RDMA (inline thresholds 4096/4096, 128 credits asked)");
                ok = workload.run(client, root);
                client.umount("/export");
                report(rdma.statistics(), clientFabric, serverFabric);
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

    private void report(TransportStatistics rdma, Fabric clientFabric, Fabric serverFabric) {
        NfsWorkload.reportShapes(out, rdma);
        out.println("what moved how on the fabrics:");
        out.println("  client: " + NfsWorkload.fabricSummary(clientFabric.statistics()));
        FabricStatistics server = serverFabric.statistics();
        out.println("  server: " + NfsWorkload.fabricSummary(server));
        String subprotocols = EfaSubprotocols.line(server);
        if (subprotocols != null) {
            out.println("  " + subprotocols);
        }
    }

    /** A fabric address as people write one: the address in IPv6's short form, and the number after '#'. */
    static String readable(FabricAddress address) {
        return shortIpv6(address.inetAddress()) + " #" + address.number();
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
