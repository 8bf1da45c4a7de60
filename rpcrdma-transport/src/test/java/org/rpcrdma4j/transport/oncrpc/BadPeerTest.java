package org.rpcrdma4j.transport.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.Channel;
import org.rpcrdma4j.transport.FabricListener;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conn.ControlMessage;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * A peer that connects properly and then sends malformed RPC-over-RDMA headers, or a backward reply
 * (RFC 8167) to no backward call, gets the answers Linux svcrdma gives (ERR_VERS, ERR_CHUNK, or
 * nothing), and the server goes on serving everyone.
 */
class BadPeerTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8167);
    private static final long HANG_GUARD_S = 30;

    private final SimHarness sim = new SimHarness(SEED);
    private final BlockingQueue<byte[]> control = new LinkedBlockingQueue<>();
    private final BlockingQueue<byte[]> data = new LinkedBlockingQueue<>();
    private RdmaRpcSvc svc;
    private RdmaRpcClient client;
    private long server;

    @AfterEach
    void tearDown() throws Exception {
        if (client != null) {
            client.close();
        }
        svc.stop();
        sim.close();
    }

    @Test
    void malformedHeadersGetSvcrdmasAnswersAndTheServerKeepsServing() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(sim.serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(sim.workers)
                .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
        svc.start();
        sim.rawFabric.execute(this::connectByHand);
        byte[] accept = next(control);
        assertThat(ControlMessage.decode(ByteBuffer.wrap(accept), 0, accept.length).orElseThrow().type())
                .isEqualTo(ControlMessage.Type.ACCEPT);

        send(words(0x1001, 2, 128, 0, 0, 0, 0));      // version 2: ERR_VERS
        send(words(0x1002, 1, 128, 3));                // RDMA_DONE: dropped
        send(words(0x1003, 1, 128, 0, 2));            // discriminator 2: ERR_CHUNK
        send(words(0x1004, 1, 128, 4, 2));            // an RDMA_ERROR: never answered
        send(new byte[] {1, 2});                       // no XID: dropped
        send(words(0x1005, 1, 128, 0, 0, 0, 0, 0));   // a good header, then a truncated RPC call
        send(words(0x1006, 1, 128, 0, 0, 0, 0, 0x1006, 1, 0, 0)); // a backward reply to no backward call: dropped

        RpcRdmaHeader first = new HeaderDecoder().decode(next(data)).header();
        RpcRdmaHeader second = new HeaderDecoder().decode(next(data)).header();
        assertThat(first).isEqualTo(RpcRdmaHeader.error(0x1001, 2, TransportConfig.DEFAULT.responderCredits(),
                RdmaError.errVers(1, 1)));
        assertThat(second).isEqualTo(RpcRdmaHeader.error(0x1003, 1, TransportConfig.DEFAULT.responderCredits(),
                RdmaError.errChunk()));

        // The server still serves a well-behaved client.
        client = sim.connect(TransportConfig.DEFAULT);
        TestProgram.Opaque result = new TestProgram.Opaque();
        new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(new byte[] {7}), result,
                HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(result.bytes).containsExactly(7);
        // Answers come in order, so nothing answered the dropped messages in between.
        assertThat(data).isEmpty();
    }

    /** On the progress thread: listen, post receives and send CONNECT with Linux's private data. */
    private void connectByHand() {
        sim.rawFabric.listen(new FabricListener() {
            @Override
            public void onReceived(Channel channel, long peer, ByteBuffer buffer, int length) {
                byte[] message = new byte[length];
                buffer.get(buffer.position(), message);
                (channel == Channel.CONTROL ? control : data).add(message);
            }

            @Override
            public void onReceiveFailed(Channel channel, long peer, ByteBuffer buffer, String reason) {
                throw new AssertionError("receive failed: " + reason);
            }

            @Override
            public void onSendCompleted(long context, String error) {
                assertThat(error).isNull();
            }

            @Override
            public void onRdmaCompleted(long context, String error) {
                throw new AssertionError("this peer starts no RDMA");
            }
        });
        for (int i = 0; i < 4; i++) {
            sim.rawFabric.postReceive(Channel.CONTROL, -1, ByteBuffer.allocate(ControlMessage.MAX_LENGTH));
            sim.rawFabric.postReceive(Channel.DATA, -1, ByteBuffer.allocate(4096));
        }
        server = sim.rawFabric.insert(sim.serverFabric.localAddress());
        sim.rawFabric.send(Channel.CONTROL, server, ControlMessage.connect(new ConnectPrivateData(true, 4096, 4096),
                sim.rawFabric.localAddress()).encode(), 0);
    }

    private void send(byte[] message) {
        sim.rawFabric.execute(() -> sim.rawFabric.send(Channel.DATA, server, ByteBuffer.wrap(message), 1));
    }

    private static byte[] next(BlockingQueue<byte[]> queue) throws InterruptedException {
        byte[] message = queue.poll(HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(message).as("an answer within the hang guard").isNotNull();
        return message;
    }

    private static byte[] words(int... words) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * words.length);
        for (int word : words) {
            buffer.putInt(word);
        }
        return buffer.array();
    }
}
