package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * A peer that connects properly and then sends malformed RPC-over-RDMA headers gets the answers Linux
 * svcrdma gives (ERR_VERS, ERR_CHUNK, or nothing), and the server goes on serving everyone.
 */
class BadPeerTest extends SimTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8167);

    BadPeerTest() {
        super(SEED);
    }

    @Test
    void malformedHeadersGetSvcrdmasAnswersAndTheServerKeepsServing() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(sim.workers)
                .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
        svc.start();
        RawPeer peer = new RawPeer(sim.rawFabric);
        assertThat(peer.connect(sim.serverFabric.localAddress())).isNotNull();

        peer.send(words(0x1001, 2, 128, 0, 0, 0, 0));      // version 2: ERR_VERS
        peer.send(words(0x1002, 1, 128, 3));                // RDMA_DONE: dropped
        peer.send(words(0x1003, 1, 128, 0, 2));            // discriminator 2: ERR_CHUNK
        peer.send(words(0x1004, 1, 128, 4, 2));            // an RDMA_ERROR: never answered
        peer.send(new byte[] {1, 2});                       // no XID: dropped
        peer.send(words(0x1005, 1, 128, 0, 0, 0, 0, 0));   // a good header, then a truncated RPC call
        peer.send(words(0x1006, 1, 128, 0, 0, 0, 0, 0x1006, 1, 0, 0)); // a backward reply to no backward call

        RpcRdmaHeader first = new HeaderDecoder().decode(RawPeer.next(peer.data).bytes()).header();
        RpcRdmaHeader second = new HeaderDecoder().decode(RawPeer.next(peer.data).bytes()).header();
        assertThat(first).isEqualTo(RpcRdmaHeader.error(0x1001, 2, TransportConfig.DEFAULT.responderCredits(),
                RdmaError.errVers(1, 1)));
        assertThat(second).isEqualTo(RpcRdmaHeader.error(0x1003, 1, TransportConfig.DEFAULT.responderCredits(),
                RdmaError.errChunk()));

        // The server still serves a well-behaved client.
        client = sim.connect(TransportConfig.DEFAULT);
        TestProgram.Opaque result = new TestProgram.Opaque();
        new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(new byte[] {7}), result,
                RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(result.bytes).containsExactly(7);
        // Answers come in order, so nothing answered the dropped messages in between.
        assertThat(peer.data).isEmpty();
        TransportStatistics counted = svc.statistics();
        assertThat(counted.protocolErrors()).isEqualTo(7);
        assertThat(counted.rdmaErrorsSent()).isEqualTo(2);
        assertThat(counted.connectionsClosedForErrors()).isZero();

        // Up to the bound each is answered; the bound-th closes the connection.
        int more = TransportConfig.PROTOCOL_ERRORS_PER_CONNECTION - 7;
        for (int i = 0; i < more; i++) {
            peer.send(words(0x2000 + i, 2, 128, 0, 0, 0, 0));
        }
        assertThat(peer.ends.poll(RawPeer.HANG_GUARD_S, TimeUnit.SECONDS)).isEqualTo(FabricStatus.CLOSED);
        assertThat(peer.data).hasSize(more);
        assertThat(svc.statistics().connectionsClosedForErrors()).isEqualTo(1);
        assertThat(svc.statistics().protocolErrors()).isEqualTo(TransportConfig.PROTOCOL_ERRORS_PER_CONNECTION);
        assertThat(svc.statistics().connections()).isEqualTo(1);
    }

    private static byte[] words(int... words) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * words.length);
        for (int word : words) {
            buffer.putInt(word);
        }
        return buffer.array();
    }
}
