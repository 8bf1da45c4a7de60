package org.rpcrdma4j.transport.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.transport.Channel;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.FabricAddress;
import org.rpcrdma4j.transport.FabricListener;
import org.rpcrdma4j.transport.conn.ControlMessage;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * Test helper: an endpoint that speaks the wire protocol by hand, as a requester or a responder, to
 * play a peer that misbehaves. Everything it receives lands in a queue per channel.
 */
final class RawPeer implements FabricListener {

    static final long HANG_GUARD_S = 30;
    /** Linux's private data: Send With Invalidate accepted, 4096-byte Sends both ways. */
    static final ConnectPrivateData LINUX = new ConnectPrivateData(true, 4096, 4096);

    private final Fabric fabric;
    final BlockingQueue<Received> control = new LinkedBlockingQueue<>();
    final BlockingQueue<Received> data = new LinkedBlockingQueue<>();
    private volatile long peer = -1;

    /**
     * A message and the fabric's handle of its sender.
     *
     * @param peer  the sender's handle
     * @param bytes the message
     */
    record Received(long peer, byte[] bytes) {
    }

    RawPeer(Fabric fabric) {
        this.fabric = fabric;
        fabric.execute(() -> {
            fabric.listen(this);
            for (int i = 0; i < 32; i++) {
                fabric.postReceive(Channel.CONTROL, Fabric.ANY_PEER, ByteBuffer.allocate(ControlMessage.MAX_LENGTH));
                fabric.postReceive(Channel.DATA, Fabric.ANY_PEER, ByteBuffer.allocate(4096));
            }
        });
    }

    /** As a requester: sends CONNECT to a server and waits for its ACCEPT. */
    ControlMessage connect(FabricAddress server) throws InterruptedException {
        fabric.execute(() -> {
            peer = fabric.insert(server);
            fabric.send(Channel.CONTROL, peer, ControlMessage.connect(LINUX, fabric.localAddress()).encode(), 0);
        });
        return control(next(control));
    }

    /** As a responder: waits for a requester's CONNECT and answers ACCEPT with Linux's private data. */
    void accept() throws InterruptedException {
        Received connect = next(control);
        assertThat(control(connect).type()).isEqualTo(ControlMessage.Type.CONNECT);
        peer = connect.peer();
        fabric.execute(() -> fabric.send(Channel.CONTROL, peer, ControlMessage.accept(LINUX, 1).encode(), 0));
    }

    /** Sends one RPC-over-RDMA message to the connected peer. */
    void send(byte[] message) {
        fabric.execute(() -> fabric.send(Channel.DATA, peer, ByteBuffer.wrap(message), 1));
    }

    /** @return the next message of a queue, failing the test if none comes within the hang guard */
    static Received next(BlockingQueue<Received> queue) throws InterruptedException {
        Received message = queue.poll(HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(message).as("a message within the hang guard").isNotNull();
        return message;
    }

    private static ControlMessage control(Received message) {
        return ControlMessage.decode(ByteBuffer.wrap(message.bytes()), 0, message.bytes().length).orElseThrow();
    }

    @Override
    public void onReceived(Channel channel, long from, ByteBuffer buffer, int length) {
        byte[] bytes = new byte[length];
        buffer.get(buffer.position(), bytes);
        (channel == Channel.CONTROL ? control : data).add(new Received(from, bytes));
        fabric.postReceive(channel, Fabric.ANY_PEER, buffer.clear());
    }

    @Override
    public void onReceiveFailed(Channel channel, long from, ByteBuffer buffer, String reason) {
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
}
