package org.rpcrdma4j.testbed.capture;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;

/**
 * A fabric that writes the traffic of its connections into a {@link RoceCapture} and otherwise is the
 * fabric it wraps: the same addresses, thread, registrations and statistics. It sees a Send when it is
 * posted, a received message when it is handed over, an RDMA Write when it is posted (its bytes are the
 * caller's from {@code register} on) and an RDMA Read once its target is deregistered, or once the
 * deregistration's continuation runs, which is when the bytes read are in the caller's buffer
 * ({@link Fabric}, "Buffer ownership"). A connection to a fabric
 * of the same capture is captured at that fabric's end only, so each message is written once; the RDMA
 * a peer outside the capture does to this side's memory is not seen (only the side that posts it sees an
 * operation).
 *
 * <p>Buffer ownership: it keeps a view of each registered buffer until it is deregistered, and reads
 * messages and registered bytes only where the fabric SPI has them stay put.
 */
final class CapturingFabric implements Fabric {

    /** Registered memory and the reads into it that completed, to write at {@code deregister}. */
    private record Registered(ByteBuffer memory, List<CompletedRead> reads) {
    }

    /** A successful RDMA Read into a registration, written once its bytes reach the caller's buffer. */
    record CompletedRead(CapturingConnection connection, long localOffset, Segment remote) {
    }

    private final Fabric fabric;
    private final RoceCapture capture;
    private final Map<Registration, Registered> registrations = new ConcurrentHashMap<>();

    CapturingFabric(Fabric fabric, RoceCapture capture) {
        this.fabric = fabric;
        this.capture = capture;
        capture.attach(this);
    }

    @Override
    public FabricAddress localAddress() {
        return fabric.localAddress();
    }

    @Override
    public void execute(Runnable command) {
        fabric.execute(command);
    }

    @Override
    public boolean onProgressThread() {
        return fabric.onProgressThread();
    }

    @Override
    public void listen(Consumer<ConnectRequest> acceptor) {
        fabric.listen(request -> acceptor.accept(new CapturedRequest(request)));
    }

    @Override
    public void stopListening() {
        fabric.stopListening();
    }

    @Override
    public FabricConnection connect(FabricAddress peer, ConnectPrivateData privateData, List<ByteBuffer> receives,
                                    ConnectionListener listener) {
        if (capture.capturedAt(peer)) {
            return fabric.connect(peer, privateData, receives, listener);
        }
        CapturingConnection connection = new CapturingConnection(this, listener, true, privateData);
        connection.attach(fabric.connect(peer, privateData, receives, connection));
        return connection;
    }

    @Override
    public MessageBuffers messageBuffers() {
        return fabric.messageBuffers();
    }

    @Override
    public Registration register(ByteBuffer memory, Set<MemoryAccess> access) {
        return remember(fabric.register(memory, access), memory);
    }

    @Override
    public Registration register(FabricConnection on, ByteBuffer memory, Set<MemoryAccess> access) {
        FabricConnection own = on instanceof CapturingConnection captured ? captured.wrapped() : on;
        return remember(fabric.register(own, memory, access), memory);
    }

    private Registration remember(Registration registration, ByteBuffer memory) {
        if (registration != null) {
            registrations.put(registration, new Registered(memory.duplicate(), new ArrayList<>()));
        }
        return registration;
    }

    @Override
    public void deregister(Registration registration) {
        fabric.deregister(registration);
        writeReads(registration, Long.MAX_VALUE);
    }

    @Override
    public void deregister(Registration registration, long readable) {
        fabric.deregister(registration, readable);
        writeReads(registration, readable);
    }

    @Override
    public void deregister(Registration registration, long readable, Runnable then) {
        fabric.deregister(registration, readable, () -> {
            writeReads(registration, readable);
            then.run();
        });
    }

    /** Writes the reads into a registration now deregistered, as far as the caller will read its bytes. */
    private void writeReads(Registration registration, long readable) {
        Registered registered = registrations.remove(registration);
        if (registered == null) {
            return;
        }
        for (CompletedRead read : registered.reads()) {
            long length = Math.min(read.remote().unsignedLength(), readable - read.localOffset());
            if (length > 0) {
                read.connection().readLanded(read.remote(), bytes(registered, read.localOffset(), length));
            }
        }
    }

    /**
     * @return the bytes of a registration, from its first byte, or {@code null} for a registration this
     *     fabric does not know (the caller's fault, which the fabric reports)
     */
    ByteBuffer bytes(Registration registration, long offset, long length) {
        Registered registered = registrations.get(registration);
        return registered == null || offset + length > registered.memory().remaining() ? null
                : bytes(registered, offset, length);
    }

    private static ByteBuffer bytes(Registered registered, long offset, long length) {
        ByteBuffer memory = registered.memory().duplicate();
        int from = memory.position() + (int) offset;
        return memory.limit(from + (int) length).position(from);
    }

    /** An RDMA Read into a registration completed: its bytes are written when it is deregistered. */
    void readCompleted(Registration registration, CompletedRead read) {
        Registered registered = registrations.get(registration);
        if (registered != null) {
            registered.reads().add(read);
        }
    }

    @Override
    public FabricStatistics statistics() {
        return fabric.statistics();
    }

    @Override
    public void close() {
        try {
            fabric.close();
        } finally {
            capture.detach(this);
        }
    }

    /** @return the capture this fabric writes into */
    RoceCapture capture() {
        return capture;
    }

    /** A connect request whose accepted connection is captured. */
    private final class CapturedRequest implements ConnectRequest {

        private final ConnectRequest request;

        CapturedRequest(ConnectRequest request) {
            this.request = request;
        }

        @Override
        public FabricAddress peer() {
            return request.peer();
        }

        @Override
        public ConnectPrivateData privateData() {
            return request.privateData();
        }

        @Override
        public FabricConnection accept(ConnectPrivateData ours, List<ByteBuffer> receives,
                                       ConnectionListener listener) {
            CapturingConnection connection = new CapturingConnection(CapturingFabric.this, listener, false, ours);
            connection.attach(request.accept(ours, receives, connection));
            return connection;
        }

        @Override
        public void reject() {
            request.reject();
        }
    }
}
