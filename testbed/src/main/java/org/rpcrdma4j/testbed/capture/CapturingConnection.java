package org.rpcrdma4j.testbed.capture;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;

/**
 * One end of a connection of a {@link CapturingFabric}: the fabric's connection to the transport, the
 * transport's listener to the fabric, and between them what crosses the wire written into the capture
 * from the moment the connection is up (its RDMA-CM exchange first). Progress thread only, like the
 * connection it wraps.
 */
final class CapturingConnection implements FabricConnection, ConnectionListener {

    /** An RDMA Read posted and not yet completed. */
    private record PostedRead(Registration local, long localOffset, Segment remote) {
    }

    private final CapturingFabric fabric;
    private final ConnectionListener listener;
    private final boolean client;
    private final ConnectPrivateData ours;
    private final Map<Long, PostedRead> reads = new HashMap<>();
    private FabricConnection connection;
    private WireConnection wire;

    /**
     * @param fabric   the fabric it belongs to
     * @param listener the transport's listener
     * @param client   whether this end connected (else it accepted)
     * @param ours     this end's RFC 8797 private data
     */
    CapturingConnection(CapturingFabric fabric, ConnectionListener listener, boolean client, ConnectPrivateData ours) {
        this.fabric = fabric;
        this.listener = listener;
        this.client = client;
        this.ours = ours;
    }

    /** Takes the fabric's connection, which {@code connect} or {@code accept} returned. */
    void attach(FabricConnection wrapped) {
        this.connection = wrapped;
    }

    /** @return the fabric's connection */
    FabricConnection wrapped() {
        return connection;
    }

    /** The bytes of an RDMA Read this end posted are in its caller's buffer. */
    void readLanded(Segment remote, ByteBuffer data) {
        wire.read(client, remote, data);
    }

    @Override
    public void onEstablished(ConnectPrivateData peerData) {
        InetSocketAddress local = connection.localSocketAddress();
        InetSocketAddress remote = connection.remoteSocketAddress();
        wire = client ? fabric.capture().connect(local, remote, ours, peerData)
                : fabric.capture().connect(remote, local, peerData, ours);
        listener.onEstablished(peerData);
    }

    @Override
    public void onReceived(ByteBuffer buffer, int length) {
        if (wire != null) {
            wire.send(!client, buffer.duplicate().limit(buffer.position() + length), OptionalInt.empty());
        }
        listener.onReceived(buffer, length);
    }

    @Override
    public void onReceiveFailed(ByteBuffer buffer, FabricStatus status) {
        listener.onReceiveFailed(buffer, status);
    }

    @Override
    public void onSendCompleted(long context, FabricStatus status) {
        listener.onSendCompleted(context, status);
    }

    @Override
    public void onRdmaCompleted(long context, FabricStatus status) {
        PostedRead read = reads.remove(context);
        if (read != null && status == FabricStatus.SUCCESS) {
            fabric.readCompleted(read.local(), new CapturingFabric.CompletedRead(this, read.localOffset(),
                    read.remote()));
        }
        listener.onRdmaCompleted(context, status);
    }

    @Override
    public void onDisconnected(FabricStatus status, String detail) {
        listener.onDisconnected(status, detail);
    }

    @Override
    public FabricAddress peer() {
        return connection.peer();
    }

    @Override
    public InetSocketAddress localSocketAddress() {
        return connection.localSocketAddress();
    }

    @Override
    public InetSocketAddress remoteSocketAddress() {
        return connection.remoteSocketAddress();
    }

    @Override
    public boolean postReceive(ByteBuffer buffer) {
        return connection.postReceive(buffer);
    }

    @Override
    public boolean send(ByteBuffer message, long context) {
        boolean posted = connection.send(message, context);
        if (posted && wire != null) {
            wire.send(client, message, OptionalInt.empty());
        }
        return posted;
    }

    @Override
    public boolean remoteInvalidation() {
        return connection.remoteInvalidation();
    }

    @Override
    public boolean sendInvalidating(ByteBuffer message, int handle, long context) {
        boolean posted = connection.sendInvalidating(message, handle, context);
        if (posted && wire != null) {
            wire.send(client, message, OptionalInt.of(handle));
        }
        return posted;
    }

    @Override
    public boolean read(Registration local, long localOffset, Segment remote, long context) {
        boolean posted = connection.read(local, localOffset, remote, context);
        if (posted && wire != null) {
            reads.put(context, new PostedRead(local, localOffset, remote));
        }
        return posted;
    }

    @Override
    public boolean write(Registration local, long localOffset, Segment remote, long context) {
        boolean posted = connection.write(local, localOffset, remote, context);
        ByteBuffer data = posted && wire != null ? fabric.bytes(local, localOffset, remote.unsignedLength()) : null;
        if (data != null) {
            wire.write(client, remote, data);
        }
        return posted;
    }

    @Override
    public void close() {
        connection.close();
    }
}
