package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.DecodedHeader;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Peers that break the rules without breaking the wire format: a responder that answers a call twice
 * and answers calls nobody made, a requester that sends more calls than it was granted, and one that
 * vanishes in the middle of a call.
 */
class MisbehavingPeerTest extends SimTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_3);
    private static final int GRANT = 4;

    MisbehavingPeerTest() {
        super(SEED);
    }

    @Test
    void duplicateRepliesAndRepliesToUnknownXidsAreDropped() throws Exception {
        RawPeer server = new RawPeer(sim.rawFabric);
        CompletableFuture<FabricConnection> accepted = server.accept();
        client = RdmaRpcClient.builder(sim.clientFabric, sim.rawFabric.localAddress())
                .withConnectTimeout(Duration.ofSeconds(RawPeer.HANG_GUARD_S)).connect();
        accepted.get(RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);
        TestProgram.Opaque result = new TestProgram.Opaque();
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
            try {
                new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                        client.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(new byte[] {1, 2, 3}), result,
                        RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });

        DecodedHeader request = new HeaderDecoder().decode(RawPeer.next(server.data).bytes());
        int xid = request.header().xid();
        server.send(reply(xid + 1, new byte[] {9}));          // nobody called xid + 1
        server.send(reply(xid, new byte[] {7, 8}));
        server.send(reply(xid, new byte[] {6}));             // the same call answered again
        call.get(RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);

        assertThat(result.bytes).containsExactly(7, 8);
        assertThat(client.statistics().callsInProgress()).isZero();
        assertThat(client.statistics().chunkRegistrations()).isZero();
    }

    @Test
    void aRequesterOverrunningItsGrantIsServedAsReceivesAllowAndOthersStillAre() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric)
                .withConfig(TransportConfig.DEFAULT.withResponderCredits(GRANT))
                .withWorkerThreadExecutionService(sim.workers)
                .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
        svc.start();
        RawPeer greedy = new RawPeer(sim.rawFabric);
        greedy.connect(sim.serverFabric.localAddress());
        int calls = 5 * GRANT;

        for (int i = 0; i < calls; i++) {
            greedy.send(RawPeer.echoCall(0x4000 + i, new byte[] {(byte) i}));
        }
        List<Integer> answered = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            RpcRdmaHeader answer = new HeaderDecoder().decode(RawPeer.next(greedy.data).bytes()).header();
            assertThat(answer.proc()).isEqualTo(Proc.RDMA_MSG);
            assertThat(answer.credits()).isEqualTo(GRANT);
            answered.add(answer.xid() - 0x4000);
        }

        // Extra Sends wait for receives at the fabric (receiver-not-ready, retried); none is lost.
        assertThat(answered).containsExactlyInAnyOrderElementsOf(java.util.stream.IntStream.range(0, calls).boxed().toList());
        client = sim.connect(TransportConfig.DEFAULT);
        TestProgram.Opaque result = new TestProgram.Opaque();
        new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(new byte[] {42}), result,
                RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(result.bytes).containsExactly(42);
        assertThat(svc.statistics().callsInProgress()).isZero();
    }

    @Test
    void aRequesterThatVanishesMidCallLeavesNothingBehindAndOthersAreServed() throws Exception {
        TestProgram program = new TestProgram();
        program.gate = new java.util.concurrent.CountDownLatch(1);
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(sim.workers)
                .withRpcService(TestProgram.PROGRAM, program).build();
        svc.start();
        RawPeer doomed = new RawPeer(sim.rawFabric);
        doomed.connect(sim.serverFabric.localAddress());
        doomed.send(RawPeer.call(0x5000, TestProgram.GATED, new byte[0]));
        HangGuard.waitFor(() -> program.inProgress.get() == 1);

        // The requester's process dies: its queue pair comes back with a new connid, knowing nothing.
        sim.network.restart(sim.rawFabric);
        program.gate.countDown();

        // The reply goes to a queue pair that no longer exists and is lost, as on EFA; the call is done.
        HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 0);
        client = sim.connect(TransportConfig.DEFAULT);
        TestProgram.Opaque result = new TestProgram.Opaque();
        new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(new byte[] {5}), result,
                RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(result.bytes).containsExactly(5);
        assertThat(svc.statistics().callsInProgress()).isZero();
        assertThat(svc.statistics().chunkRegistrations()).isZero();
    }

    /** An RDMA_MSG carrying an accepted, successful reply whose result is an opaque. */
    private static byte[] reply(int xid, byte[] data) {
        ByteBuffer rpc = ByteBuffer.allocate(24 + 4 + (data.length + 3) / 4 * 4).putInt(xid).putInt(1).putInt(0)
                .putInt(0).putInt(0).putInt(0).putInt(data.length).put(data);
        return RawPeer.message(RpcRdmaHeader.msg(xid, 64, null, null, null), rpc.array());
    }
}
