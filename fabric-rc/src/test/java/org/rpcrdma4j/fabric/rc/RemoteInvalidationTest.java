package org.rpcrdma4j.fabric.rc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.fabric.conformance.ChunkProgram;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.ReplyChunk;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * The responder's Send with Invalidate, as svcrdma sends it to a Linux client that offered remote
 * invalidation ({@code f6ab0e18 01 01 ...}), over the RC fabric on a simulated network: a reply
 * invalidates the one key its call's chunks carried, the requester's memory window, which reaches
 * nothing from then on; two keys, no chunks, an RDMA_ERROR or a requester that did not offer it get a
 * plain Send. The Linux client is a {@link RawPeer} on an RC fabric, its chunks windows of its
 * connection, whose fabric offers remote invalidation.
 */
class RemoteInvalidationTest {

    private final SimulatedHosts hosts = new SimulatedHosts();
    private final RcFabric serverFabric = hosts.open(RcFabric.NFS_RDMA_PORT);
    private final RcFabric linuxFabric = hosts.open(0);
    private final ExecutorService workers = Executors.newFixedThreadPool(2);
    private final RawPeer linux = new RawPeer(linuxFabric);
    private RdmaRpcSvc svc;

    @BeforeEach
    void serveAndConnect() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers)
                .withRpcService(TestProgram.PROGRAM, new TestProgram()).withRpcService(ChunkProgram.PROGRAM, new ChunkProgram())
                .withDdpPolicy(ChunkProgram.POLICY).build();
        svc.start();
        assertThat(linux.connect(serverFabric.localAddress())).isNotNull();
    }

    @AfterEach
    void tearDown() throws Exception {
        svc.stop();
        workers.shutdownNow();
        hosts.close();
    }

    /** @return the keys the server's Sends with Invalidate named, checked against those the client's device received */
    private List<Integer> invalidations() {
        List<Integer> sent = hosts.device(serverFabric).sentWithInvalidate();
        assertThat(hosts.device(linuxFabric).invalidatedKeys()).as("received as sent").isEqualTo(sent);
        return sent;
    }

    /** The RPC call of the test program's ECHO up to its opaque's data, which follows at 44. */
    private static byte[] echoHead(int xid, int length) {
        return ByteBuffer.allocate(44).putInt(xid).putInt(0).putInt(2).putInt(TestProgram.PROGRAM.getNumber())
                .putInt(TestProgram.PROGRAM.getVersion()).putInt(TestProgram.ECHO).putInt(0).putInt(0).putInt(0)
                .putInt(0).putInt(length).array();
    }

    private static byte[] message(RpcRdmaHeader header, byte[] rpc) {
        ByteBuffer message = ByteBuffer.allocate(HeaderEncoder.encodedLength(header) + rpc.length);
        message.put(HeaderEncoder.encode(header, message, 0), rpc);
        return message.array();
    }

    /** @return the procedure of the next message the server sent */
    private Proc nextReply() throws InterruptedException {
        byte[] reply = RawPeer.next(linux.data).bytes();
        return Proc.fromValue(ByteBuffer.wrap(reply).getInt(12));
    }

    private Registration writable(int size) throws Exception {
        return linux.register(ByteBuffer.allocate(size), EnumSet.of(MemoryAccess.REMOTE_WRITE));
    }

    @Test
    void aReplyInvalidatesTheOneHandleOfItsCallsReplyChunk() throws Exception {
        Registration reply = writable(4096);
        byte[] data = new byte[8];
        byte[] rpc = ByteBuffer.allocate(52).put(echoHead(0x100, data.length)).put(data).array();
        linux.send(message(RpcRdmaHeader.msg(0x100, 128, null, null,
                new ReplyChunk(List.of(reply.segment(0, 4096)))), rpc));
        assertThat(nextReply()).isEqualTo(Proc.RDMA_NOMSG);
        assertThat(invalidations()).containsExactly(reply.handle());
    }

    @Test
    void aReadChunkAndAReplyChunkInOneRegistrationShareTheirHandle() throws Exception {
        // As the Linux client's 64 KiB WRITE: one key for the call's data; here the Reply chunk too.
        ByteBuffer memory = ByteBuffer.allocate(8192);
        Registration both = linux.register(memory, EnumSet.of(MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE));
        linux.send(message(RpcRdmaHeader.msg(0x101, 128, List.of(new ReadSegment(44, both.segment(0, 100))), null,
                new ReplyChunk(List.of(both.segment(4096, 4096)))), echoHead(0x101, 100)));
        assertThat(nextReply()).isEqualTo(Proc.RDMA_NOMSG);
        assertThat(invalidations()).containsExactly(both.handle());
    }

    @Test
    void twoHandlesOrNoChunksGetAPlainSend() throws Exception {
        Registration first = writable(64);
        Registration second = writable(4096);
        byte[] rpc = ByteBuffer.allocate(52).put(echoHead(0x102, 8)).put(new byte[8]).array();
        linux.send(message(RpcRdmaHeader.msg(0x102, 128, null, null,
                new ReplyChunk(List.of(first.segment(0, 64), second.segment(0, 4096)))), rpc));
        assertThat(nextReply()).isEqualTo(Proc.RDMA_NOMSG);
        rpc = ByteBuffer.allocate(52).put(echoHead(0x103, 8)).put(new byte[8]).array();
        linux.send(message(RpcRdmaHeader.msg(0x103, 128, null, null, null), rpc));
        assertThat(nextReply()).isEqualTo(Proc.RDMA_MSG);
        assertThat(invalidations()).isEmpty();
    }

    @Test
    void anRdmaErrorIsAPlainSend() throws Exception {
        // A Reply chunk too small for the reply: ERR_CHUNK, which svcrdma sends without invalidating.
        Registration tiny = writable(8);
        byte[] rpc = ByteBuffer.allocate(52).put(echoHead(0x104, 8)).put(new byte[8]).array();
        linux.send(message(RpcRdmaHeader.msg(0x104, 128, null, null, new ReplyChunk(List.of(tiny.segment(0, 8)))),
                rpc));
        assertThat(nextReply()).isEqualTo(Proc.RDMA_ERROR);
        assertThat(invalidations()).isEmpty();
    }

    @Test
    void aRequesterThatDoesNotOfferRemoteInvalidationGetsPlainSends() throws Exception {
        // Without memory windows the RC fabric registers each chunk on its own, whose key may not be
        // invalidated remotely, so it does not offer remote invalidation.
        RcFabric plain = hosts.open(0);
        hosts.device(plain).withoutMemoryWindows();
        RdmaRpcClient client = RdmaRpcClient.builder(plain, serverFabric.localAddress())
                .withDdpPolicy(ChunkProgram.POLICY).withConnectTimeout(Duration.ofSeconds(30)).connect();
        try {
            byte[] data = ChunkProgram.pattern(100_000);
            XdrInt crc = new XdrInt();
            new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                    client.transport()).call(ChunkProgram.PUT, new TestProgram.Opaque(data), crc, 30, TimeUnit.SECONDS);
            assertThat(crc.intValue()).as("a Read chunk of one key").isEqualTo(ChunkProgram.crc(data));
        } finally {
            client.close();
        }
        assertThat(plain.statistics().counter(RcCounter.PER_CALL_REGISTRATIONS)).isEqualTo(1);
        assertThat(invalidations()).isEmpty();
    }

    /** A handle the peer could reach before is refused once a reply invalidated it. */
    @Test
    void anInvalidatedHandleReachesNothing() throws Exception {
        Registration reply = writable(4096);
        byte[] rpc = ByteBuffer.allocate(52).put(echoHead(0x105, 8)).put(new byte[8]).array();
        linux.send(message(RpcRdmaHeader.msg(0x105, 128, null, null,
                new ReplyChunk(List.of(reply.segment(0, 4096)))), rpc));
        assertThat(nextReply()).isEqualTo(Proc.RDMA_NOMSG);
        // The same handle again: the server's RDMA Write into it fails, so it closes the connection.
        rpc = ByteBuffer.allocate(52).put(echoHead(0x106, 8)).put(new byte[8]).array();
        linux.send(message(RpcRdmaHeader.msg(0x106, 128, null, null,
                new ReplyChunk(List.of(reply.segment(0, 4096)))), rpc));
        assertThat(RawPeer.next(linux.ends)).isEqualTo(FabricStatus.CLOSED);
        assertThat(hosts.device(serverFabric).failedCompletions()).as("the server's RDMA Write")
                .containsExactly(WcStatus.REM_ACCESS_ERR);
    }
}
