package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/** What the transport refuses, and how: security it has no filter for, and connections beyond its limit. */
class RefusalTest extends SimTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 5531);
    /** RFC 5531 §9: MSG_DENIED, AUTH_ERROR; RFC 5531 §8.2: AUTH_BADCRED. */
    private static final int MSG_DENIED = 1;
    private static final int AUTH_ERROR = 1;
    private static final int AUTH_BADCRED = 1;
    /** RFC 2203: the RPCSEC_GSS flavor. */
    private static final int RPCSEC_GSS = 6;

    RefusalTest() {
        super(SEED);
    }

    private void serve(TransportConfig config) {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(config)
                .withWorkerThreadExecutionService(sim.workers)
                .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
        svc.start();
    }

    @Test
    void rpcsecGssIsDeniedWithAuthBadcredAsWithoutOncrpc4jsGssFilter() throws Exception {
        serve(TransportConfig.DEFAULT);
        RawPeer peer = new RawPeer(sim.rawFabric);
        peer.connect(sim.serverFabric.localAddress());
        // An ECHO call whose credential is RPCSEC_GSS (RFC 2203 rpc_gss_cred_vers_1_t: version 1, DATA,
        // sequence 1, service none, an empty context handle) and whose verifier is an empty GSS token.
        ByteBuffer rpc = ByteBuffer.allocate(80).putInt(0x6000).putInt(0).putInt(2)
                .putInt(TestProgram.PROGRAM.getNumber()).putInt(TestProgram.PROGRAM.getVersion()).putInt(TestProgram.ECHO)
                .putInt(RPCSEC_GSS).putInt(20).putInt(1).putInt(0).putInt(1).putInt(1).putInt(0)
                .putInt(RPCSEC_GSS).putInt(0)
                .putInt(0);
        byte[] call = java.util.Arrays.copyOf(rpc.array(), rpc.position());
        RpcRdmaHeader header = RpcRdmaHeader.msg(0x6000, 128, null, null, null);
        ByteBuffer message = ByteBuffer.allocate(HeaderEncoder.encodedLength(header) + call.length);
        message.put(HeaderEncoder.encode(header, message, 0), call);

        peer.send(message.array());
        byte[] answer = RawPeer.next(peer.data).bytes();

        int at = new HeaderDecoder().decode(answer).payloadOffset();
        ByteBuffer reply = ByteBuffer.wrap(answer, at, answer.length - at).slice();
        assertThat(reply.getInt(0)).isEqualTo(0x6000);
        assertThat(reply.getInt(4)).as("REPLY").isEqualTo(1);
        assertThat(reply.getInt(8)).isEqualTo(MSG_DENIED);
        assertThat(reply.getInt(12)).isEqualTo(AUTH_ERROR);
        assertThat(reply.getInt(16)).isEqualTo(AUTH_BADCRED);
    }

    @Test
    void tlsIsRefusedByTheClientsTransport() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = sim.connect(TransportConfig.DEFAULT);

        assertThatThrownBy(() -> client.transport().startTLS()).isInstanceOf(RpcAuthException.class)
                .hasMessageContaining("TLS");
        assertThat(client.transport().isTLS()).isFalse();
    }

    @Test
    void aConnectionBeyondTheLimitIsClosedAtOnce() throws Exception {
        serve(TransportConfig.DEFAULT.withMaxConnections(1));
        client = sim.connect(TransportConfig.DEFAULT);

        RawPeer second = new RawPeer(sim.rawFabric);

        assertThat(second.connect(sim.serverFabric.localAddress())).as("refused").isNull();
        assertThat(RawPeer.next(second.ends)).isEqualTo(FabricStatus.REFUSED);
    }
}
