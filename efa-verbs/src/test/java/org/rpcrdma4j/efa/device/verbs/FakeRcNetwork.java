package org.rpcrdma4j.efa.device.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;

/**
 * RDMA-CM and RC queue pairs with a shared receive queue, in the JVM, behind {@link RcNic}: what a
 * Soft-RoCE network does that the verbs device must cope with. Hosts are IP addresses; a NIC listens
 * on a port of its host. No thread: each NIC hands its events over in {@link RcNic#poll}; a Send, RDMA
 * Read or Write is carried out as it is posted.
 *
 * <ul>
 *   <li>CM: an address no NIC has is ADDR_ERROR; a port no one listens on, or a reject, is REJECTED
 *       (with the REJ's private data); the REQ's and REP's private data come in the 56- and 196-byte
 *       rooms whatever was sent, as librdmacm hands them over.</li>
 *   <li>A Send lands in the oldest receive of the peer's shared receive queue; with none posted it
 *       waits there (RNR retried without end) and completes at the sender when it lands. Longer than
 *       the receive: LOC_LEN_ERR at the receiver, REM_INV_REQ_ERR at the sender.</li>
 *   <li>RDMA Read and Write reach only memory registered with the right right, within bounds
 *       (REM_ACCESS_ERR otherwise, and the target's queue pair reports an asynchronous error); a bad
 *       local key or range is LOC_PROT_ERR.</li>
 *   <li>A failed work request puts its queue pair in the error state: what is posted then, or still
 *       waits, comes back WR_FLUSH_ERR. A disconnect, a destroyed id and a closed NIC flush both ends
 *       and report DISCONNECTED to both.</li>
 *   <li>Faults for tests: {@link #holdSends()} keeps Sends in flight until {@link #releaseSends()};
 *       {@link #breakLinks(FakeNic)} fails a NIC's connections as a dead link does.</li>
 * </ul>
 */
final class FakeRcNetwork {

    private static final int REQ_ROOM = 56;
    private static final int REP_ROOM = 196;
    private static final int REJ_ROOM = 148;

    private final Map<InetSocketAddress, FakeNic> listeners = new HashMap<>();
    private final Set<InetAddress> hosts = new HashSet<>();
    private final List<Send> held = new ArrayList<>();
    private boolean holding;
    private int nextQpNum = 1;
    private int nextKey = 0x100;
    private int nextPort = 20_000;
    private long nextId = 1;
    private long nextAddress = 0x8000_0000_0000_0000L;

    /** A Send in flight: its bytes are read at the post. */
    private record Send(Endpoint from, long wrId, byte[] bytes) {
    }

    private record Receive(long wrId, long address, int length, int lkey) {
    }

    private record Region(long address, long length, ByteBuffer memory, boolean remoteRead, boolean remoteWrite) {
        ByteBuffer range(long at, long count) {
            if (count < 0 || Long.compareUnsigned(at, address) < 0 || at - address > length
                    || count > length - (at - address)) {
                return null;
            }
            return memory.slice((int) (at - address), (int) count);
        }
    }

    /** An RDMA-CM id with its queue pair. */
    private static final class Endpoint {
        final long id;
        final FakeNic nic;
        InetSocketAddress resolved;
        Endpoint peer;
        int qpNum = -1;
        boolean connected;
        boolean error;
        boolean destroyed;

        Endpoint(long id, FakeNic nic) {
            this.id = id;
            this.nic = nic;
        }
    }

    /**
     * @param host the host's IP address
     * @return a new NIC on that host
     */
    FakeNic nic(InetAddress host) {
        hosts.add(host);
        return new FakeNic(host);
    }

    /** From now on Sends stay in flight, neither landing nor completing, until {@link #releaseSends()}. */
    void holdSends() {
        holding = true;
    }

    /** Lands the Sends held, in the order posted, and stops holding. */
    void releaseSends() {
        holding = false;
        final List<Send> sends = new ArrayList<>(held);
        held.clear();
        sends.forEach(this::land);
    }

    /**
     * Every connection of the NIC fails as over a dead link: Sends in flight from either end fail with
     * RETRY_EXC_ERR, both queue pairs go to the error state, and both ends hear DISCONNECTED.
     */
    void breakLinks(FakeNic nic) {
        for (Endpoint endpoint : new ArrayList<>(nic.endpoints.values())) {
            if (endpoint.connected && endpoint.peer != null) {
                failHeld(endpoint, WcStatus.RETRY_EXC_ERR);
                failHeld(endpoint.peer, WcStatus.RETRY_EXC_ERR);
                disconnect(endpoint);
            }
        }
    }

    private void failHeld(Endpoint endpoint, WcStatus status) {
        held.removeIf(send -> {
            if (send.from() == endpoint) {
                endpoint.nic.completion(endpoint.qpNum, send.wrId(), status, 0);
                return true;
            }
            return false;
        });
    }

    /**
     * The NIC's host dies: from now on its connections end without a word to their peers, whose queue
     * pairs stay up until they use them, as when a host loses power.
     */
    void crash(FakeNic nic) {
        nic.crashed = true;
    }

    private void disconnect(Endpoint endpoint) {
        final Endpoint peer = endpoint.peer;
        if (!endpoint.connected) {
            return;
        }
        endpoint.connected = false;
        toError(endpoint);
        endpoint.nic.cm(endpoint.id, CmEventType.DISCONNECTED, new byte[0]);
        if (peer != null && peer.connected && !endpoint.nic.crashed) {
            peer.connected = false;
            toError(peer);
            peer.nic.cm(peer.id, CmEventType.DISCONNECTED, new byte[0]);
        }
    }

    /** The queue pair goes to the error state: what waits of it is flushed. */
    private void toError(Endpoint endpoint) {
        endpoint.error = true;
        failHeld(endpoint, WcStatus.WR_FLUSH_ERR);
        if (endpoint.peer != null) {
            endpoint.peer.nic.rnrWaiting.removeIf(send -> {
                if (send.from() == endpoint) {
                    endpoint.nic.completion(endpoint.qpNum, send.wrId(), WcStatus.WR_FLUSH_ERR, 0);
                    return true;
                }
                return false;
            });
        }
    }

    private void land(Send send) {
        final Endpoint from = send.from();
        final Endpoint to = from.peer;
        if (from.destroyed) {
            return;
        }
        if (to != null && to.destroyed) {
            // Its host is gone without a word: the transport retries run out.
            from.nic.completion(from.qpNum, send.wrId(), WcStatus.RETRY_EXC_ERR, 0);
            toError(from);
            return;
        }
        if (from.error || to == null || to.error) {
            from.nic.completion(from.qpNum, send.wrId(), WcStatus.WR_FLUSH_ERR, 0);
            return;
        }
        final Receive receive = to.nic.srq.poll();
        if (receive == null) {
            to.nic.rnrWaiting.add(send);
            return;
        }
        if (send.bytes().length > receive.length()) {
            to.nic.completion(to.qpNum, receive.wrId(), WcStatus.LOC_LEN_ERR, 0);
            from.nic.completion(from.qpNum, send.wrId(), WcStatus.REM_INV_REQ_ERR, 0);
            toError(from);
            toError(to);
            return;
        }
        final ByteBuffer target = to.nic.local(receive.lkey(), receive.address(), send.bytes().length);
        target.put(0, send.bytes());
        to.nic.completion(to.qpNum, receive.wrId(), WcStatus.SUCCESS, send.bytes().length);
        from.nic.completion(from.qpNum, send.wrId(), WcStatus.SUCCESS, send.bytes().length);
    }

    private static byte[] room(byte[] data, int room) {
        final byte[] padded = new byte[Math.max(room, data.length)];
        System.arraycopy(data, 0, padded, 0, data.length);
        return padded;
    }

    /** One NIC: a listener, ids with queue pairs, a shared receive queue, one event queue. */
    final class FakeNic implements RcNic {

        private final InetAddress host;
        private final ArrayDeque<Consumer<Events>> events = new ArrayDeque<>();
        /**
         * What would make the real NIC's poll(2) return (notifications, CM and asynchronous events, interruptions),
         * which {@link #poll} takes as the real one reads its channels: the only state the notifier thread shares.
         */
        private final Semaphore signals = new Semaphore(0);
        private final AtomicBoolean notificationRequested = new AtomicBoolean();
        private final Map<Long, Endpoint> endpoints = new HashMap<>();
        private final ArrayDeque<Receive> srq = new ArrayDeque<>();
        private final ArrayDeque<Send> rnrWaiting = new ArrayDeque<>();
        private final Map<Integer, Region> regions = new HashMap<>();
        private InetSocketAddress listening;
        private boolean crashed;
        private int registrationLimit = Integer.MAX_VALUE;
        private boolean closed;

        private FakeNic(InetAddress host) {
            this.host = host;
        }

        /** @return ids not destroyed, the listener not counted */
        int ids() {
            return endpoints.size();
        }

        /** @return registrations left, the device's own included */
        int registrations() {
            return regions.size();
        }

        /** @return receives posted on the shared receive queue */
        int sharedReceives() {
            return srq.size();
        }

        /** From now on registrations beyond {@code limit} are refused (ENOMEM). */
        void limitRegistrations(int limit) {
            registrationLimit = limit;
        }

        void cm(long id, CmEventType type, byte[] privateData) {
            if (!closed) {
                report(e -> e.cmEvent(id, type, privateData));
            }
        }

        void completion(int qpNum, long wrId, WcStatus status, int byteLength) {
            if (!closed) {
                events.add(e -> e.completion(qpNum, wrId, status, byteLength));
                // As a completion queue: the first completion after a request notifies, once.
                if (notificationRequested.getAndSet(false)) {
                    signals.release();
                }
            }
        }

        /** Queues an event for {@link #poll} and ends an {@link #await}, as a CM or asynchronous event does. */
        private void report(Consumer<Events> event) {
            events.add(event);
            signals.release();
        }

        ByteBuffer local(int lkey, long address, long length) {
            final Region region = regions.get(lkey);
            return region == null ? null : region.range(address, length);
        }

        private Endpoint endpoint(long id) throws VerbsException {
            final Endpoint endpoint = endpoints.get(id);
            if (endpoint == null) {
                throw new VerbsException("rdma id " + id, 22);
            }
            return endpoint;
        }

        private Endpoint newEndpoint() {
            final Endpoint endpoint = new Endpoint(nextId++, this);
            endpoints.put(endpoint.id, endpoint);
            return endpoint;
        }

        @Override
        public InetSocketAddress listen(InetSocketAddress address) throws VerbsException {
            final InetSocketAddress bound = new InetSocketAddress(host,
                    address.getPort() == 0 ? nextPort++ : address.getPort());
            if (listeners.containsKey(bound)) {
                throw new VerbsException("rdma_bind_addr", 98);
            }
            listeners.put(bound, this);
            listening = bound;
            return bound;
        }

        @Override
        public long createId() {
            return newEndpoint().id;
        }

        @Override
        public void resolveAddress(long id, InetSocketAddress peer, int timeoutMillis) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            endpoint.resolved = peer;
            cm(id, hosts.contains(peer.getAddress()) ? CmEventType.ADDR_RESOLVED : CmEventType.ADDR_ERROR, new byte[0]);
        }

        @Override
        public void resolveRoute(long id, int timeoutMillis) throws VerbsException {
            endpoint(id);
            cm(id, CmEventType.ROUTE_RESOLVED, new byte[0]);
        }

        @Override
        public int createQueuePair(long id, int sendDepth) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            endpoint.qpNum = nextQpNum++;
            return endpoint.qpNum;
        }

        @Override
        public void connect(long id, byte[] privateData, int rnrRetryCount) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            final FakeNic listener = listeners.get(endpoint.resolved);
            if (listener == null) {
                cm(id, CmEventType.REJECTED, new byte[0]);
                return;
            }
            final Endpoint passive = listener.newEndpoint();
            passive.peer = endpoint;
            endpoint.peer = passive;
            listener.cm(passive.id, CmEventType.CONNECT_REQUEST, room(privateData, REQ_ROOM));
        }

        @Override
        public void accept(long id, byte[] privateData, int rnrRetryCount) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            final Endpoint active = endpoint.peer;
            if (active == null || active.destroyed) {
                // The requester gave up: no RTU comes.
                cm(id, CmEventType.CONNECT_ERROR, new byte[0]);
                return;
            }
            endpoint.connected = true;
            active.connected = true;
            cm(id, CmEventType.ESTABLISHED, new byte[0]);
            active.nic.cm(active.id, CmEventType.ESTABLISHED, room(privateData, REP_ROOM));
        }

        @Override
        public void reject(long id, byte[] privateData) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            final Endpoint active = endpoint.peer;
            endpoint.peer = null;
            if (active != null && !active.destroyed) {
                active.peer = null;
                active.nic.cm(active.id, CmEventType.REJECTED, room(privateData, REJ_ROOM));
            }
        }

        @Override
        public void disconnect(long id) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            if (!endpoint.connected) {
                throw new VerbsException("rdma_disconnect", 22);
            }
            FakeRcNetwork.this.disconnect(endpoint);
        }

        @Override
        public void destroy(long id) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            FakeRcNetwork.this.disconnect(endpoint);
            endpoint.destroyed = true;
            endpoints.remove(id);
        }

        @Override
        public Registration register(ByteBuffer memory, boolean remoteRead, boolean remoteWrite) {
            if (regions.size() >= registrationLimit) {
                return null;
            }
            final int key = nextKey++;
            final long address = nextAddress;
            nextAddress += (memory.remaining() / 4096 + 1) * 4096L;
            regions.put(key, new Region(address, memory.remaining(), memory.slice(), remoteRead, remoteWrite));
            // as rxe does: memory no peer may reach has rkey 0, so only its lkey tells such regions apart
            return new Registration(address, memory.remaining(), key, remoteRead || remoteWrite ? key : 0);
        }

        @Override
        public void deregister(Registration registration) throws VerbsException {
            if (regions.remove(registration.lkey()) == null) {
                throw new VerbsException("ibv_dereg_mr", 22);
            }
        }

        @Override
        public boolean postReceive(long wrId, long address, int length, int lkey) {
            srq.add(new Receive(wrId, address, length, lkey));
            while (!srq.isEmpty() && !rnrWaiting.isEmpty()) {
                land(rnrWaiting.poll());
            }
            return true;
        }

        @Override
        public boolean postSend(long id, long wrId, long address, int length, int lkey) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            if (endpoint.error) {
                completion(endpoint.qpNum, wrId, WcStatus.WR_FLUSH_ERR, 0);
                return true;
            }
            final ByteBuffer bytes = local(lkey, address, length);
            if (bytes == null) {
                completion(endpoint.qpNum, wrId, WcStatus.LOC_PROT_ERR, 0);
                toError(endpoint);
                return true;
            }
            final byte[] copy = new byte[length];
            bytes.get(0, copy);
            final Send send = new Send(endpoint, wrId, copy);
            if (holding) {
                held.add(send);
            } else {
                land(send);
            }
            return true;
        }

        @Override
        public boolean postRead(long id, long wrId, long address, int length, int lkey, long remoteAddress,
                                int rkey) throws VerbsException {
            return rdma(id, wrId, address, length, lkey, remoteAddress, rkey, true);
        }

        @Override
        public boolean postWrite(long id, long wrId, long address, int length, int lkey, long remoteAddress,
                                 int rkey) throws VerbsException {
            return rdma(id, wrId, address, length, lkey, remoteAddress, rkey, false);
        }

        private boolean rdma(long id, long wrId, long address, int length, int lkey, long remoteAddress, int rkey,
                             boolean read) throws VerbsException {
            final Endpoint endpoint = endpoint(id);
            if (endpoint.error || endpoint.peer == null) {
                completion(endpoint.qpNum, wrId, WcStatus.WR_FLUSH_ERR, 0);
                return true;
            }
            final ByteBuffer local = local(lkey, address, length);
            if (local == null) {
                completion(endpoint.qpNum, wrId, WcStatus.LOC_PROT_ERR, 0);
                toError(endpoint);
                return true;
            }
            final Endpoint target = endpoint.peer;
            final Region region = target.nic.regions.get(rkey);
            final ByteBuffer remote = region == null || !(read ? region.remoteRead() : region.remoteWrite())
                    ? null : region.range(remoteAddress, length);
            if (remote == null) {
                completion(endpoint.qpNum, wrId, WcStatus.REM_ACCESS_ERR, 0);
                toError(endpoint);
                toError(target);
                target.nic.report(e -> e.queuePairFailed(target.qpNum));
                return true;
            }
            if (read) {
                local.put(0, remote, 0, length);
            } else {
                remote.put(0, local, 0, length);
            }
            completion(endpoint.qpNum, wrId, WcStatus.SUCCESS, length);
            return true;
        }

        @Override
        public int poll(Events handler) {
            signals.drainPermits();
            int handed = 0;
            for (int n = events.size(); n > 0 && !events.isEmpty(); n--) {
                events.poll().accept(handler);
                handed++;
            }
            return handed;
        }

        @Override
        public void requestNotification() {
            notificationRequested.set(true);
        }

        @Override
        public void await() {
            signals.acquireUninterruptibly();
            signals.drainPermits();
        }

        @Override
        public void interruptAwait() {
            signals.release();
        }

        @Override
        public void close() {
            for (Endpoint endpoint : new ArrayList<>(endpoints.values())) {
                FakeRcNetwork.this.disconnect(endpoint);
                endpoint.destroyed = true;
            }
            endpoints.clear();
            if (listening != null) {
                listeners.remove(listening);
            }
            srq.clear();
            closed = true;
        }
    }
}
