package org.rpcrdma4j.transport.fake;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;

/**
 * An in-JVM stand-in for verbs RC queue pairs set up by RDMA-CM, for unit tests of what sits above
 * the {@link Fabric} seam: the connection-oriented kind of fabric, as the EFA fabric is the
 * connectionless kind. One thread runs every fabric of the network.
 *
 * <p>What it models of RC and RDMA-CM, since the transport must cope with each:
 * <ul>
 * <li>RDMA-CM private data arrives in a REQ of 56 bytes and a REP of 196 whatever was sent, so a
 *     receiver recognises RFC 8797 data by its magic, not its length;</li>
 * <li>messages are delivered in order into the posted receives; a message longer than its receive
 *     is a local length error that breaks the connection, as it puts a queue pair in the error
 *     state;</li>
 * <li>a message that finds no receive waits (receiver not ready, retried); more than
 *     {@link #RNR_RETRIES} waiting exhaust the retries and break the connection;</li>
 * <li>RDMA Read and Write reach only the peer's registered memory with the right access, inside
 *     its bounds; anything else is a remote access error that breaks the connection;</li>
 * <li>when a connection ends, by a disconnect or an error, both sides get everything they posted
 *     back flushed and then the disconnect event;</li>
 * <li>a Send with Invalidate makes the receiver's handle reach nothing from the moment the message
 *     is received (its owner still deregisters it); {@link #invalidations()} lists the handles.</li>
 * </ul>
 */
public final class RcFakeNetwork implements AutoCloseable {

    /** The gauge, among a fake fabric's statistics, of the receives posted on its connections. */
    public static final String POSTED_RECEIVES = "POSTED_RECEIVES";
    /** Messages that may wait for a receive before the sender's RNR retries run out. */
    public static final int RNR_RETRIES = 7;
    /** The REQ's private data room, as librdmacm reports it. */
    static final int REQ_ROOM = 56;
    /** The REP's private data room, as librdmacm reports it. */
    static final int REP_ROOM = 196;

    private final LinkedBlockingQueue<Runnable> work = new LinkedBlockingQueue<>();
    private final Map<FabricAddress, FakeFabric> listeners = new HashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private int nextHost;
    private int nextPort = 49152;
    private int nextHandle = 1;
    private final List<Integer> invalidations = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Starts the network's thread. */
    public RcFakeNetwork() {
        thread = new Thread(this::run, "rc-fake");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * @param port the port it listens on, if it listens (20049 for NFS)
     * @return a new fabric on a host of its own, 10.0.0.n
     */
    public Fabric fabric(int port) {
        int host = ++nextHost;
        byte[] identity = new byte[FabricAddress.IDENTITY_LENGTH];
        identity[10] = (byte) 0xff;
        identity[11] = (byte) 0xff;
        identity[12] = 10;
        identity[15] = (byte) host;
        return new FakeFabric(new FabricAddress(new byte[] {(byte) host}, identity, port));
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }

    /**
     * What a fabric of this network holds.
     *
     * @param connections    its connections
     * @param registrations  its registrations
     * @param postedReceives the receives posted on its connections and not yet taken
     */
    public record Statistics(int connections, int registrations, long postedReceives) implements FabricStatistics {

        /** @return none: the fake's Sends and receives stand for the device's transfers, not copies */
        @Override
        public long bytesCopied() {
            return 0;
        }

        /** @return none: the fake counts nothing */
        @Override
        public Map<String, Long> counters() {
            return Map.of();
        }

        /** @return {@link #postedReceives}, as {@link #POSTED_RECEIVES} */
        @Override
        public Map<String, Long> gauges() {
            return Map.of(POSTED_RECEIVES, postedReceives);
        }
    }

    /**
     * Breaks every connection of a fabric as a failed device does: each queue pair goes to the error
     * state, and both ends flush and disconnect with {@link FabricStatus#FABRIC_ERROR}.
     *
     * @param fabric a fabric of this network
     */
    public void breakConnections(Fabric fabric) {
        FakeFabric fake = (FakeFabric) fabric;
        later(() -> new ArrayList<>(fake.sides).forEach(side -> side.fail(FabricStatus.FABRIC_ERROR, "the device failed")));
    }

    /** @return the handles Sends with Invalidate invalidated at their receivers, in order */
    public List<Integer> invalidations() {
        return List.copyOf(invalidations);
    }

    private void run() {
        while (running) {
            try {
                work.take().run();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void later(Runnable task) {
        work.add(task);
    }

    /** A region registered on a fake fabric; an invalidated one reaches nothing. */
    private record Region(ByteBuffer memory, Set<MemoryAccess> access, long address, boolean invalidated) {
    }

    /** A message on its way; {@code invalidate} is the receiver's handle it invalidates, or null. */
    private record Message(byte[] bytes, Integer invalidate) {
    }

    private final class FakeFabric implements Fabric {

        private final FabricAddress address;
        private final Map<Integer, Region> regions = new HashMap<>();
        /** Connections not yet disconnected. */
        private final Set<Side> sides = new HashSet<>();
        private Consumer<ConnectRequest> acceptor;
        private boolean closed;

        FakeFabric(FabricAddress address) {
            this.address = address;
        }

        @Override
        public FabricAddress localAddress() {
            return address;
        }

        @Override
        public void execute(Runnable command) {
            if (!running) {
                throw new IllegalStateException("the network is closed");
            }
            later(command);
        }

        @Override
        public boolean onProgressThread() {
            return Thread.currentThread() == thread;
        }

        @Override
        public void listen(Consumer<ConnectRequest> newAcceptor) {
            if (acceptor != null) {
                throw new IllegalStateException("listening already");
            }
            acceptor = Objects.requireNonNull(newAcceptor);
            listeners.put(address, this);
        }

        @Override
        public void stopListening() {
            acceptor = null;
            listeners.remove(address, this);
        }

        @Override
        public FabricConnection connect(FabricAddress peer, ConnectPrivateData privateData, List<ByteBuffer> receives,
                                        ConnectionListener listener) {
            FabricAddress local = new FabricAddress(address.raw(), address.identity(), nextPort++);
            Side client = new Side(this, local, peer, listener);
            receives.forEach(client::postReceive);
            ByteBuffer req = room(privateData, REQ_ROOM);
            later(() -> {
                FakeFabric server = listeners.get(peer);
                if (server == null || server.acceptor == null) {
                    client.end(FabricStatus.REFUSED, "no listener at " + peer);
                    return;
                }
                server.acceptor.accept(new Request(server, client, req));
                if (client.peer == null) {
                    client.end(FabricStatus.REFUSED, "rejected");
                }
            });
            return client;
        }

        @Override
        public Registration register(ByteBuffer memory, Set<MemoryAccess> access) {
            int handle = nextHandle++;
            long base = (long) handle << 32;
            regions.put(handle, new Region(memory.slice(), Set.copyOf(access), base, false));
            return new Registration(handle, base, memory.remaining());
        }

        @Override
        public void deregister(Registration registration) {
            if (regions.remove(registration.handle()) == null && !closed) {
                throw new IllegalStateException("not registered: " + registration);
            }
        }

        /**
         * Closes as an owner does: the fabric stops listening, its connections end as by a disconnect
         * (flushed at both ends, each listener told once), and once they have, its registrations are
         * released (deregistering one later does nothing). Waits for all that.
         */
        @Override
        public void close() {
            CompletableFuture<Void> done = new CompletableFuture<>();
            later(() -> close(done));
            done.orTimeout(10, TimeUnit.SECONDS).join();
        }

        /** Ends every connection, then, once they have all disconnected, releases the registrations. */
        void close(CompletableFuture<Void> done) {
            if (!closed) {
                closed = true;
                stopListening();
                new ArrayList<>(sides).forEach(Side::close);
            }
            if (sides.isEmpty()) {
                regions.clear();
                done.complete(null);
            } else {
                later(() -> close(done));
            }
        }

        /** Reads the figures on the network's thread, which no test of this fake keeps busy. */
        @Override
        public Statistics statistics() {
            if (onProgressThread()) {
                return snapshot();
            }
            CompletableFuture<Statistics> snapshot = new CompletableFuture<>();
            execute(() -> snapshot.complete(snapshot()));
            return snapshot.orTimeout(10, TimeUnit.SECONDS).join();
        }

        private Statistics snapshot() {
            long posted = sides.stream().mapToLong(side -> side.receives.size()).sum();
            return new Statistics(sides.size(), regions.size(), posted);
        }

        /** @return the bytes a segment names, or null if they are not registered with that access */
        ByteBuffer resolve(Segment segment, MemoryAccess right) {
            Region region = regions.get(segment.handle());
            if (region == null || region.invalidated() || !region.access().contains(right)) {
                return null;
            }
            long offset = segment.offset() - region.address();
            if (offset < 0 || offset + segment.unsignedLength() > region.memory().capacity()) {
                return null;
            }
            return region.memory().duplicate().position((int) offset).limit((int) (offset + segment.unsignedLength()))
                    .slice();
        }

        /** A peer's Send with Invalidate named {@code handle}: it reaches nothing from now on. */
        void invalidate(int handle) {
            invalidations.add(handle);
            regions.computeIfPresent(handle, (h, r) -> new Region(r.memory(), r.access(), r.address(), true));
        }

        ByteBuffer local(Registration registration, long offset, long length) {
            Region region = regions.get(registration.handle());
            if (region == null) {
                throw new IllegalStateException("not registered here: " + registration);
            }
            return region.memory().duplicate().position((int) offset).limit((int) (offset + length)).slice();
        }
    }

    /** Pads private data to the CM's room, as the REQ and REP carry it. */
    private static ByteBuffer room(ConnectPrivateData data, int room) {
        ByteBuffer bytes = ByteBuffer.allocate(room);
        bytes.put(data.toBytes());
        return bytes.clear();
    }

    private static ConnectPrivateData decode(ByteBuffer room) {
        return ConnectPrivateData.decode(room, 0, room.capacity()).orElse(ConnectPrivateData.DEFAULT);
    }

    private final class Request implements Fabric.ConnectRequest {

        private final FakeFabric server;
        private final Side client;
        private final ByteBuffer req;
        private boolean answered;

        Request(FakeFabric server, Side client, ByteBuffer req) {
            this.server = server;
            this.client = client;
            this.req = req;
        }

        @Override
        public FabricAddress peer() {
            return client.local;
        }

        @Override
        public ConnectPrivateData privateData() {
            return decode(req);
        }

        @Override
        public FabricConnection accept(ConnectPrivateData ours, List<ByteBuffer> receives,
                                       ConnectionListener listener) {
            answer();
            Side side = new Side(server, server.address, client.local, listener);
            receives.forEach(side::postReceive);
            side.peer = client;
            client.peer = side;
            ByteBuffer rep = room(ours, REP_ROOM);
            ConnectPrivateData theirs = decode(req);
            later(() -> {
                side.listener.onEstablished(theirs);
                client.listener.onEstablished(decode(rep));
            });
            return side;
        }

        @Override
        public void reject() {
            answer();
        }

        private void answer() {
            if (answered) {
                throw new IllegalStateException("answered already");
            }
            answered = true;
        }
    }

    /** One end of a fake RC connection: its queue pair's receive queue and its peer. */
    private final class Side implements FabricConnection {

        private final FakeFabric fabric;
        private final FabricAddress local;
        private final FabricAddress remote;
        private final InetSocketAddress localSocket;
        private final InetSocketAddress remoteSocket;
        private final ConnectionListener listener;
        private final ArrayDeque<ByteBuffer> receives = new ArrayDeque<>();
        private final ArrayDeque<Message> waiting = new ArrayDeque<>();
        private Side peer;
        private boolean ended;
        /** Sends and RDMA operations whose completion is not reported yet: the disconnect waits for them. */
        private int outstanding;

        Side(FakeFabric fabric, FabricAddress local, FabricAddress remote, ConnectionListener listener) {
            this.fabric = fabric;
            this.local = local;
            this.remote = remote;
            this.listener = listener;
            this.localSocket = new InetSocketAddress(local.inetAddress(), local.number());
            this.remoteSocket = new InetSocketAddress(remote.inetAddress(), remote.number());
            fabric.sides.add(this);
        }

        @Override
        public FabricAddress peer() {
            return remote;
        }

        @Override
        public InetSocketAddress localSocketAddress() {
            return localSocket;
        }

        @Override
        public InetSocketAddress remoteSocketAddress() {
            return remoteSocket;
        }

        @Override
        public boolean postReceive(ByteBuffer buffer) {
            if (ended) {
                return false;
            }
            receives.add(buffer);
            if (!waiting.isEmpty()) {
                later(this::deliverWaiting);
            }
            return true;
        }

        @Override
        public boolean send(ByteBuffer message, long context) {
            return send(message, null, context);
        }

        @Override
        public boolean remoteInvalidation() {
            return true;
        }

        @Override
        public boolean sendInvalidating(ByteBuffer message, int handle, long context) {
            return send(message, handle, context);
        }

        private boolean send(ByteBuffer message, Integer invalidate, long context) {
            byte[] bytes = new byte[message.remaining()];
            message.duplicate().get(bytes);
            outstanding++;
            later(() -> {
                outstanding--;
                if (ended || peer == null) {
                    listener.onSendCompleted(context, FabricStatus.FLUSHED);
                    return;
                }
                peer.arrive(new Message(bytes, invalidate));
                listener.onSendCompleted(context, ended ? FabricStatus.FLUSHED : FabricStatus.SUCCESS);
            });
            return true;
        }

        @Override
        public boolean read(Registration localMemory, long localOffset, Segment remoteBytes, long context) {
            outstanding++;
            later(() -> rdma(true, localMemory, localOffset, remoteBytes, context));
            return true;
        }

        @Override
        public boolean write(Registration localMemory, long localOffset, Segment remoteBytes, long context) {
            outstanding++;
            later(() -> rdma(false, localMemory, localOffset, remoteBytes, context));
            return true;
        }

        private void rdma(boolean read, Registration localMemory, long localOffset, Segment remoteBytes,
                          long context) {
            outstanding--;
            if (ended || peer == null) {
                listener.onRdmaCompleted(context, FabricStatus.FLUSHED);
                return;
            }
            ByteBuffer theirs = peer.fabric.resolve(remoteBytes, read ? MemoryAccess.REMOTE_READ : MemoryAccess.REMOTE_WRITE);
            if (theirs == null) {
                // The queue pair is in error before its completion is read.
                fail(FabricStatus.REMOTE_ACCESS, "remote access error on " + remoteBytes);
                listener.onRdmaCompleted(context, FabricStatus.REMOTE_ACCESS);
                return;
            }
            ByteBuffer mine = fabric.local(localMemory, localOffset, remoteBytes.unsignedLength());
            if (read) {
                mine.put(theirs);
            } else {
                theirs.put(mine);
            }
            listener.onRdmaCompleted(context, FabricStatus.SUCCESS);
        }

        /** A message from the peer: into the next receive, or waiting for one (RNR). */
        private void arrive(Message message) {
            if (ended) {
                return;
            }
            waiting.add(message);
            if (waiting.size() > RNR_RETRIES) {
                peer.fail(FabricStatus.RECEIVER_NOT_READY, "RNR retries exhausted");
                return;
            }
            deliverWaiting();
        }

        private void deliverWaiting() {
            while (!ended && !waiting.isEmpty() && !receives.isEmpty()) {
                Message message = waiting.poll();
                ByteBuffer buffer = receives.poll();
                if (message.bytes().length > buffer.remaining()) {
                    listener.onReceiveFailed(buffer, FabricStatus.MESSAGE_TOO_LONG);
                    fail(FabricStatus.MESSAGE_TOO_LONG, "a " + message.bytes().length + "-byte message for a "
                            + buffer.remaining() + "-byte receive");
                    return;
                }
                if (message.invalidate() != null) {
                    fabric.invalidate(message.invalidate());
                }
                buffer.duplicate().put(message.bytes());
                listener.onReceived(buffer, message.bytes().length);
            }
        }

        @Override
        public void close() {
            fail(FabricStatus.CLOSED, "disconnected");
        }

        /** The queue pair goes to the error state: both ends flush and disconnect. */
        private void fail(FabricStatus status, String detail) {
            if (ended) {
                return;
            }
            end(status, detail);
            if (peer != null) {
                Side other = peer;
                later(() -> other.end(status, detail + " (by the peer)"));
            }
        }

        private void end(FabricStatus status, String detail) {
            if (ended) {
                return;
            }
            ended = true;
            List<ByteBuffer> flushed = new ArrayList<>(receives);
            receives.clear();
            waiting.clear();
            later(() -> flushed.forEach(buffer -> listener.onReceiveFailed(buffer, FabricStatus.FLUSHED)));
            later(() -> disconnect(status, detail));
        }

        /** Reports the end once every send and RDMA operation posted has come back. */
        private void disconnect(FabricStatus status, String detail) {
            if (outstanding > 0) {
                later(() -> disconnect(status, detail));
            } else {
                fabric.sides.remove(this);
                listener.onDisconnected(status, detail);
            }
        }

        @Override
        public String toString() {
            return "rc-fake " + localSocket + " -> " + remoteSocket;
        }
    }
}
