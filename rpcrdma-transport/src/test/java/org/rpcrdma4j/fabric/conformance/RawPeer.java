package org.rpcrdma4j.fabric.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Test helper: a peer that writes RPC-over-RDMA messages by hand on a fabric connection, as a
 * requester or a responder, to play a peer that misbehaves. What it receives lands in {@link #data};
 * how its connection ended, in {@link #ends}.
 */
public final class RawPeer implements ConnectionListener {

    public static final long HANG_GUARD_S = 30;
    /** Linux's private data: Send With Invalidate accepted, 4096-byte Sends both ways. */
    public static final ConnectPrivateData LINUX = new ConnectPrivateData(true, 4096, 4096);

    private final Fabric fabric;
    public final BlockingQueue<Received> data = new LinkedBlockingQueue<>();
    public final BlockingQueue<FabricStatus> ends = new LinkedBlockingQueue<>();
    /** What the fabric said of the last end, set before its status is added to {@link #ends}. */
    public volatile String endDetail;
    private volatile CompletableFuture<FabricConnection> established = new CompletableFuture<>();
    private volatile FabricConnection connection;
    /** Whether a receive buffer is posted again once its message is taken; a stuck peer does not. */
    public volatile boolean repost = true;

    /** @param bytes a message received */
    public record Received(byte[] bytes) {
    }

    public RawPeer(Fabric fabric) {
        this.fabric = fabric;
    }

    private static List<ByteBuffer> receives() {
        List<ByteBuffer> buffers = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            buffers.add(ByteBuffer.allocate(4096));
        }
        return buffers;
    }

    /**
     * As a requester: connects to a server with Linux's private data.
     *
     * @return the connection once established, or {@code null} if the server refused it
     */
    public FabricConnection connect(FabricAddress server) throws Exception {
        established = new CompletableFuture<>();
        fabric.execute(() -> connection = fabric.connect(server, LINUX, receives(), this));
        return established.get(HANG_GUARD_S, TimeUnit.SECONDS);
    }

    /**
     * As a responder: listens, and accepts the next requester's connection with Linux's private data.
     *
     * @return completes with the connection once it is established; the fabric listens when this returns
     */
    public CompletableFuture<FabricConnection> accept() throws Exception {
        established = new CompletableFuture<>();
        CompletableFuture<FabricConnection> accepted = established;
        CompletableFuture<Void> listening = new CompletableFuture<>();
        fabric.execute(() -> {
            fabric.listen(request -> connection = request.accept(LINUX, receives(), this));
            listening.complete(null);
        });
        listening.get(HANG_GUARD_S, TimeUnit.SECONDS);
        return accepted;
    }

    /** Registers memory for the peer of its connection to read or write, as a requester's chunks. */
    public Registration register(ByteBuffer memory, Set<MemoryAccess> access) throws Exception {
        CompletableFuture<Registration> registered = new CompletableFuture<>();
        fabric.execute(() -> registered.complete(fabric.register(connection, memory, access)));
        return registered.get(HANG_GUARD_S, TimeUnit.SECONDS);
    }

    /** Sends one RPC-over-RDMA message on the connection. */
    public void send(byte[] message) {
        fabric.execute(() -> connection.send(ByteBuffer.wrap(message), 1));
    }

    /** Closes the connection and waits until the fabric reports it ended. */
    public void close() throws InterruptedException {
        fabric.execute(() -> connection.close());
        assertThat(ends.poll(HANG_GUARD_S, TimeUnit.SECONDS)).isEqualTo(FabricStatus.CLOSED);
    }

    /** @return the next message of a queue, failing the test if none comes within the hang guard */
    public static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T message = queue.poll(HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(message).as("a message within the hang guard").isNotNull();
        return message;
    }

    /** @return an RDMA_MSG carrying an ECHO call of the test program with AUTH_NONE */
    public static byte[] echoCall(int xid, byte[] data) {
        return call(xid, TestProgram.ECHO, data);
    }

    /** @return an RDMA_MSG carrying a call of the test program with AUTH_NONE and an opaque argument */
    public static byte[] call(int xid, int procedure, byte[] data) {
        ByteBuffer rpc = ByteBuffer.allocate(48 + 4 + (data.length + 3) / 4 * 4).putInt(xid).putInt(0).putInt(2)
                .putInt(TestProgram.PROGRAM.getNumber()).putInt(TestProgram.PROGRAM.getVersion())
                .putInt(procedure).putInt(0).putInt(0).putInt(0).putInt(0).putInt(data.length).put(data);
        return message(RpcRdmaHeader.msg(xid, 128, null, null, null), rpc.array());
    }

    /** @return the transport header followed by the RPC message */
    public static byte[] message(RpcRdmaHeader header, byte[] rpc) {
        ByteBuffer message = ByteBuffer.allocate(HeaderEncoder.encodedLength(header) + rpc.length);
        int at = HeaderEncoder.encode(header, message, 0);
        message.put(at, rpc);
        return message.array();
    }

    @Override
    public void onEstablished(ConnectPrivateData peerData) {
        established.complete(connection);
    }

    @Override
    public void onReceived(ByteBuffer buffer, int length) {
        byte[] bytes = new byte[length];
        buffer.get(buffer.position(), bytes);
        data.add(new Received(bytes));
        if (repost) {
            connection.postReceive(buffer.clear());
        }
    }

    @Override
    public void onReceiveFailed(ByteBuffer buffer, FabricStatus status) {
        assertThat(status).isEqualTo(FabricStatus.FLUSHED);
    }

    @Override
    public void onSendCompleted(long context, FabricStatus status) {
        assertThat(status.ok() || status == FabricStatus.FLUSHED).as("send: %s", status).isTrue();
    }

    @Override
    public void onRdmaCompleted(long context, FabricStatus status) {
        throw new AssertionError("this peer starts no RDMA");
    }

    @Override
    public void onDisconnected(FabricStatus status, String detail) {
        // In this order: whoever waits for the end may start the next connection, with a new future.
        established.complete(null);
        endDetail = detail;
        ends.add(status);
    }
}
