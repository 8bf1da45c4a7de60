package org.rpcrdma4j.verbs.rc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The transport's oncrpc4j server and client over two RC fabrics on the fake: inline calls, a long
 * call the server pulls by RDMA Read (Position-zero Read chunk) and a long reply the server RDMA-Writes
 * into the client's Reply chunk, all from and into the transport's heap buffers.
 */
class TransportOverRcFabricTest {

    private static final OncRpcProgram PROGRAM = new OncRpcProgram(0x2000_0124, 1);
    private static final int ECHO = 1;

    private final FakeRcNetwork network = new FakeRcNetwork();
    private final ExecutorService workers = Executors.newFixedThreadPool(2);
    private FakeRcNetwork.Device serverDevice;
    private FakeRcNetwork.Device clientDevice;
    private RcFabric serverFabric;
    private RcFabric clientFabric;
    private RdmaRpcSvc svc;
    private RdmaRpcClient client;

    /** Variable-length opaque data. */
    private static final class Opaque implements XdrAble {
        byte[] bytes = new byte[0];

        Opaque() {
        }

        Opaque(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            bytes = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            xdr.xdrEncodeDynamicOpaque(bytes);
        }
    }

    private static final RpcDispatchable ECHO_PROGRAM = call -> {
        Opaque data = new Opaque();
        call.retrieveCall(data);
        call.reply(data);
    };

    /** Nothing DDP-eligible; a reply of up to 1 MiB, so a long one goes in a Reply chunk. */
    private static final DdpPolicy LONG_REPLIES = new DdpPolicy() {
        @Override
        public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
            return List.of();
        }

        @Override
        public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
            return new ReplySize(1 << 20, List.of());
        }

        @Override
        public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
            return List.of();
        }
    };

    @BeforeEach
    void serveAndConnect() throws Exception {
        InetAddress serverIp = InetAddress.getByAddress(new byte[] {10, 0, 1, 1});
        InetAddress clientIp = InetAddress.getByAddress(new byte[] {10, 0, 1, 2});
        InetSocketAddress listen = new InetSocketAddress(serverIp, RcFabric.NFS_RDMA_PORT);
        serverDevice = network.device(serverIp);
        clientDevice = network.device(clientIp);
        serverFabric = new RcFabric(serverDevice, listen, RcFabric.Config.DEFAULT);
        clientFabric = new RcFabric(clientDevice, new InetSocketAddress(clientIp, 0), RcFabric.Config.DEFAULT);
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers)
                .withRpcService(PROGRAM, ECHO_PROGRAM).build();
        svc.start();
        client = RdmaRpcClient.connect(clientFabric, serverFabric.localAddress(), TransportConfig.DEFAULT,
                LONG_REPLIES, Duration.ofSeconds(30));
    }

    @AfterEach
    void tearDown() throws Exception {
        client.close();
        svc.stop();
        workers.shutdownNow();
        clientFabric.close();
        serverFabric.close();
        assertTrue(clientDevice.closed() && serverDevice.closed(), "ids or registrations were left behind");
    }

    private static int registrations(RcFabric fabric) throws Exception {
        CompletableFuture<Integer> count = new CompletableFuture<>();
        fabric.execute(() -> count.complete(fabric.registrations()));
        return count.get(10, TimeUnit.SECONDS);
    }

    private byte[] echo(byte[] data) throws Exception {
        Opaque result = new Opaque();
        new RpcCall(PROGRAM.getNumber(), PROGRAM.getVersion(), new RpcAuthTypeNone(), client.transport())
                .call(ECHO, new Opaque(data), result, 30, TimeUnit.SECONDS);
        return result.bytes;
    }

    private static byte[] pattern(int length) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (i * 31 + (i >>> 8));
        }
        return data;
    }

    @Test
    void inlineAndChunkedCallsAndRepliesArriveIntact() throws Exception {
        byte[] small = pattern(100);
        assertArrayEquals(small, echo(small), "inline both ways");
        byte[] large = pattern(300_000);
        assertArrayEquals(large, echo(large), "a Read chunk pulled by RDMA Read, a Reply chunk filled by RDMA Write");
        assertArrayEquals(small, echo(small), "the connection is still up");
        assertEquals(0, registrations(clientFabric), "the client's chunks were deregistered");
        assertEquals(0, registrations(serverFabric), "the server's RDMA Read target and sources were deregistered");
    }

    /**
     * Memory no peer may touch has rkey 0 on rxe (the fake does the same): the server's RDMA Read
     * targets of calls in flight together share that key and must still be told apart.
     */
    @Test
    void chunkedCallsInFlightTogetherArriveIntact() throws Exception {
        List<CompletableFuture<byte[]>> echoes = new ArrayList<>();
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            for (int i = 0; i < 4; i++) {
                byte[] large = pattern(200_000 + i);
                echoes.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return echo(large);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, callers));
            }
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(pattern(200_000 + i), echoes.get(i).get(60, TimeUnit.SECONDS), "call " + i);
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(0, registrations(serverFabric), "every RDMA Read target was deregistered");
    }

    @Test
    void theServerSeesTheClientsRdmaCmAddress() throws Exception {
        InetSocketAddress local = client.transport().getLocalSocketAddress();
        assertEquals(InetAddress.getByAddress(new byte[] {10, 0, 1, 2}), local.getAddress());
        assertEquals(RcFabric.NFS_RDMA_PORT, client.transport().getRemoteSocketAddress().getPort());
        assertTrue(local.getPort() > 0);
    }
}
