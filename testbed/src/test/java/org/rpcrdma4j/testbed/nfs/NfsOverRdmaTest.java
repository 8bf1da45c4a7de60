package org.rpcrdma4j.testbed.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.sim.SimulatedNetwork;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The whole stack: the NFSv3 test service on RdmaRpcSvc over the simulated EFA device, with the NFS
 * upper-layer binding on both sides, driven by the client helper over RdmaRpcClient. WRITE data goes
 * in Read chunks, READ data in Write chunks, long directory listings and READLINK in Reply chunks.
 */
class NfsOverRdmaTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8267);

    @TempDir
    Path export;
    @TempDir
    Path targetStore;

    private SimulatedNetwork network;
    private ExecutorService workers;
    private RdmaRpcSvc svc;
    private RdmaRpcClient rdma;
    private Nfs3Client client;
    private byte[] root;

    @BeforeEach
    void setUp() throws Exception {
        network = new SimulatedNetwork(SEED);
        workers = Executors.newFixedThreadPool(4);
        FileHandles handles = new FileHandles(export, 100_000);
        OncRpcProgram nfs = new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3);
        svc = new RdmaRpcSvcBuilder().withFabric(network.server()).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(workers)
                .withRpcService(nfs, new Nfs3Service(handles, new SymlinkTargets(targetStore))).withDdpPolicy(new NfsDdpPolicy())
                .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3), new MountService("/export", handles))
                .build();
        svc.start();
        rdma = RdmaRpcClient.builder(network.client(), network.server().localAddress())
                .withDdpPolicy(new NfsDdpPolicy()).withConnectTimeout(Duration.ofSeconds(30)).connect();
        client = new Nfs3Client(rdma.transport(), new RpcAuthTypeNone(), 60, TimeUnit.SECONDS);
        root = client.mount("/export");
    }

    @AfterEach
    void tearDown() throws Exception {
        rdma.close();
        svc.stop();
        network.close();
        workers.shutdownNow();
    }

    @Test
    void filesOfEverySizeGoThereAndBackIntact() throws Exception {
        Random random = new Random(SEED);
        for (int size : new int[] {0, 1, 1024, 4095, 4096, 4097, 65537, 1 << 20, (1 << 20) + 3}) {
            byte[] data = new byte[size];
            random.nextBytes(data);
            byte[] fh = client.create(root, "file-" + size);

            client.writeAll(fh, data, 256 << 10, Nfs3.FILE_SYNC);

            assertThat(Files.readAllBytes(export.resolve("file-" + size))).as("%d bytes on disk", size).isEqualTo(data);
            assertThat(client.readAll(fh, 256 << 10)).as("%d bytes read back", size).isEqualTo(data);
        }
        assertThat(rdma.statistics().chunkRegistrations()).isZero();
        assertThat(rdma.statistics().callsInProgress()).isZero();
    }

    @Test
    void aBigDirectoryListsCompletelyAndASymlinkReadsBack() throws Exception {
        byte[] dir = client.mkdir(root, "big");
        for (int i = 0; i < 2000; i++) {
            Files.createFile(export.resolve("big").resolve("entry_with_a_longish_name_" + i));
        }
        // 4000 bytes, as in the Linux traces: the target travels in a Read chunk, the READLINK reply in a Reply chunk.
        String target = "t".repeat(4000);
        client.symlink(root, "link", target);
        // the same size, with what a String or a java.nio path would alter: repeated and trailing '/', not UTF-8
        byte[] raw = new byte[4000];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = (byte) (i % 5 == 4 ? '/' : i % 5 == 3 ? '/' : 0x80 + i % 3);
        }
        client.symlink(root, new byte[] {'r', (byte) 0xFF}, raw);

        List<Nfs3Results.Entry> plain = client.list(dir, false, 32768);
        List<Nfs3Results.Entry> plus = client.list(dir, true, 32768);

        assertThat(plain).hasSize(2000);
        assertThat(plus).hasSize(2000);
        assertThat(client.readlink(client.lookup(root, "link"))).isEqualTo(target);
        assertThat(client.readlinkBytes(client.lookup(root, new byte[] {'r', (byte) 0xFF}))).isEqualTo(raw);
        assertThat(rdma.statistics().chunkRegistrations()).isZero();
    }
}
