package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;

/**
 * A simulated RC network in this JVM: RDMA-CM and RC queue pairs as {@link RcFabric} drives them on an
 * RDMA device, without one. A fabric {@link #open opened} on it is the real {@code RcFabric} (connection
 * states, completion routing, flushes, private data, chunk pools and memory windows) on a simulated
 * device of its own at the address it is given; fabrics of one network reach each other by IP address
 * and port, and nothing outside this JVM reaches them. The fabric named {@code rc-sim}
 * ({@link RcSimFabricProvider}) opens its fabrics on one such network.
 *
 * <p>What it models, so that the fabric meets what a device and RDMA-CM do:
 * <ul>
 * <li>CONNECT_REQUEST carries a 56-byte room and the requester's ESTABLISHED a 196-byte room,
 *     zero-padded, whatever was sent; no listener is a REJECTED (status 8), a reject REJECTED (28); an
 *     address no device ever had is an ADDR_ERROR;</li>
 * <li>a Send lands in the peer's oldest posted receive; longer than it, the receiver completes
 *     LOC_LEN_ERR and the sender REM_INV_REQ_ERR; no receive, it waits (RNR) while fewer Sends wait
 *     than the RNR retry count the receiver gave in its REQ or REP (7: without end), else the sender
 *     completes RNR_RETRY_EXC_ERR: at once with Linux's count of 0;</li>
 * <li>RDMA Read and Write reach only the peer's memory registered with the right right and within
 *     bounds, otherwise REM_ACCESS_ERR; a bad local key is LOC_PROT_ERR; their scatter/gather lists
 *     are filled or drained in order, and one longer than the device's limit is refused with EINVAL,
 *     as {@code ibv_post_send} refuses it;</li>
 * <li>a failed completion puts the queue pair in the error state: everything posted, and everything
 *     posted afterwards, completes WR_FLUSH_ERR; {@code disconnect} does the same on both ends and
 *     reports DISCONNECTED to both;</li>
 * <li>a Send with Invalidate is delivered like a Send; when the key is one of the receiver's bound
 *     windows', the window is invalidated and the receive completion carries the key
 *     ({@code IBV_WC_WITH_INV}); any other key fails the receive (LOC_QP_OP_ERR) and the Send
 *     (REM_OP_ERR);</li>
 * <li>type 2 memory windows: bound by a work request over memory registered for windows, with the
 *     window's key index and a new low byte, only when unbound (else MW_BIND_ERR); the key reaches the
 *     bound range with the bound rights, through the queue pair it was bound on only, until a local
 *     invalidate or a Send with Invalidate; a stale key fails the peer's RDMA with REM_ACCESS_ERR;</li>
 * <li>registered memory no peer may touch has rkey 0, as on rdma_rxe.</li>
 * </ul>
 *
 * <p>The RC fabric's own tests reach each host's device ({@link Device}, through {@code device(address)})
 * for the faults a device brings and the figures they check: ESTABLISHED held back, destroys that
 * block, RDMA Reads held in flight, full queues, a queue pair made fatal, the device removed, no memory
 * windows or no Send with Invalidate, smaller queue and scatter/gather limits; and what was posted,
 * sent, invalidated, failed and left behind.
 *
 * <p>One lock guards the whole network. It has no thread: a device hands its events over in
 * {@link RcDevice#poll} on the fabric's thread, and wakes that thread itself.
 */
public final class SimulatedRc {

    /** The REQ's private data room, as librdmacm reports it. */
    static final int REQ_ROOM = 56;
    /** The REP's private data room, as librdmacm reports it. */
    static final int REP_ROOM = 196;

    private final Map<InetSocketAddress, Id> listeners = new HashMap<>();
    /** Every address a device had: a host stays on the network when its fabric closes. */
    private final Set<InetAddress> hosts = new HashSet<>();
    private int nextQp = 0x11;
    private int nextKey = 0x100;
    private int nextPort = 40000;

    /** A network with no host yet. */
    public SimulatedRc() {
    }

    /**
     * Opens an RC fabric, with {@link RcFabric.Config#DEFAULT}, on a device of its own at {@code bind}.
     *
     * @param bind an IP address for the fabric, not the wildcard, and the port it listens on when asked
     *             to ({@link RcFabric#NFS_RDMA_PORT} for NFS)
     * @return the fabric, its progress thread running; closing it releases its device
     * @throws IllegalArgumentException if {@code bind} has no address of its own
     */
    public RcFabric open(InetSocketAddress bind) {
        return open(bind, RcFabric.Config.DEFAULT);
    }

    /**
     * Opens an RC fabric on a device of its own at {@code bind}.
     *
     * @param bind   as for {@link #open(InetSocketAddress)}
     * @param config the sizes of each connection, and its retry counts
     * @return the fabric, its progress thread running; closing it releases its device
     * @throws IllegalArgumentException if {@code bind} has no address of its own
     */
    public RcFabric open(InetSocketAddress bind, RcFabric.Config config) {
        if (bind.isUnresolved() || bind.getAddress().isAnyLocalAddress()) {
            throw new IllegalArgumentException("a fabric of a simulated RC network needs an address of its own, "
                    + "not " + bind);
        }
        return new RcFabric(device(bind.getAddress()), bind, config);
    }

    /** @return a new device at this address, for a fabric of its own */
    synchronized Device device(InetAddress address) {
        hosts.add(address);
        return new Device(address);
    }

    /** A registration; {@code forWindows} when only windows bound over it reach it from afar. */
    private record Region(MemorySegment memory, Set<MemoryAccess> access, boolean forWindows) {
    }

    /** A type 2 memory window: its key, and while bound, where it reaches and through which queue pair. */
    private static final class Window {
        int rkey;
        Id boundTo;
        MemorySegment range;
        Set<MemoryAccess> rights;

        Window(int rkey) {
            this.rkey = rkey;
        }
    }

    /** A posted receive; its device reuses it once a message has arrived in it. */
    private static final class Receive {
        private long wrId;
        private long address;
        private int length;
        private int lkey;

        long wrId() {
            return wrId;
        }

        long address() {
            return address;
        }

        int length() {
            return length;
        }

        int lkey() {
            return lkey;
        }
    }

    /** A message waiting for a receive, and who sent it; {@code invalidate} is the key it names, or null. */
    private record Waiting(Id sender, long wrId, MemorySegment bytes, Integer invalidate) {
    }

    private final class Id {
        final Device device;
        final long number;
        InetSocketAddress local;
        InetSocketAddress peer;
        Id remote;
        Id requester;
        boolean connected;
        boolean hasQp;
        int qpNum = -1;
        boolean error;
        /** The RNR retry count this side sent in its REQ, for the peer's queue pair. */
        int requestedRnrRetries;
        /** The RNR retry count of this side's queue pair: the one the peer sent. */
        int rnrRetries;
        final ArrayDeque<Receive> receives = new ArrayDeque<>();
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
        /** RDMA Reads posted while the device held them, by work request id: how to carry each out. */
        final Map<Long, Runnable> heldReads = new LinkedHashMap<>();

        Id(Device device, long number) {
            this.device = device;
            this.number = number;
        }
    }

    /**
     * One fabric's device: the {@link RcDevice} it drives, plus, for the RC fabric's tests, the faults a
     * device brings (each from the call on) and the figures they check.
     */
    final class Device implements RcDevice {

        private final InetAddress address;
        private final Map<Long, Id> ids = new HashMap<>();
        private final Map<Integer, Region> regions = new HashMap<>();
        /** The registration {@link #resolve} found last, and its key: messages use the same few again and again. */
        private Region lastRegion;
        private int lastKey;
        private final ArrayDeque<Receive> spareReceives = new ArrayDeque<>();
        private final Map<Long, SimulatedRc.Window> windows = new HashMap<>();
        private long nextWindow = 1;
        private int freeWindowInvalidations;
        private int destroyedWithBoundWindows;
        private boolean memoryWindows = true;
        /** The device's reports, in order; its monitor guards it and {@link #spare}. */
        private final ArrayDeque<Consumer<Events>> queue = new ArrayDeque<>();
        /** Completion reports handed over already, reused so that carrying a message allocates none. */
        private final ArrayDeque<Completion> spare = new ArrayDeque<>();
        private final AtomicInteger awaits = new AtomicInteger();
        private final AtomicInteger wakeups = new AtomicInteger();
        private final ArrayDeque<Consumer<Events>> heldEstablished = new ArrayDeque<>();
        private long nextId = 1;
        private boolean closed;
        private boolean holdEstablished;
        /** While not null, destroying an id with a queue pair waits for it. */
        private CountDownLatch destroyGate;
        private int destroysBlocked;
        private boolean remoteInvalidation = true;
        private boolean holdReads;
        private int maxQueueDepth = 16384;
        /** Posts the device refuses as a full queue would, from now on. */
        private int fullPosts;
        private int maxReadSge = 32;
        private int maxWriteSge = 32;
        private final List<List<Sge>> rdmaRequests = new ArrayList<>();
        private final List<Integer> invalidatedKeys = new ArrayList<>();
        private final List<Integer> sentWithInvalidate = new ArrayList<>();
        private final List<int[]> queueDepths = new ArrayList<>();
        private final List<WcStatus> failedCompletions = new ArrayList<>();

        Device(InetAddress address) {
            this.address = address;
        }

        /** @return how many times the fabric's thread went to sleep on this device */
        int awaits() {
            return awaits.get();
        }

        /** @return how many times another thread woke the fabric's thread */
        int wakeups() {
            return wakeups.get();
        }

        private void report(Consumer<Events> event) {
            synchronized (queue) {
                queue.add(event);
                queue.notifyAll();
            }
        }

        /** Reports a CM event on the device the id belongs to. */
        private void cm(Id id, CmEventType type, int status, byte[] privateData) {
            id.device.report(events -> events.cmEvent(id.number, type, status, privateData));
        }

        /** Reports a completion on the device the id belongs to. */
        private void completion(Id id, long wrId, WcStatus status, int length) {
            completion(id, wrId, status, length, NOT_INVALIDATED);
        }

        private void completion(Id id, long wrId, WcStatus status, int length, long invalidated) {
            if (status != WcStatus.SUCCESS && status != WcStatus.WR_FLUSH_ERR) {
                id.device.failedCompletions.add(status);
            }
            Device device = id.device;
            Completion completion;
            synchronized (device.queue) {
                completion = device.spare.poll();
            }
            if (completion == null) {
                completion = new Completion();
            }
            completion.set(id.qpNum, wrId, status, length, invalidated);
            device.report(completion);
        }

        private Id id(long number) {
            Id id = ids.get(number);
            if (id == null) {
                throw new IllegalStateException("no id " + number + " (destroyed?)");
            }
            return id;
        }

        private Id newId() {
            Id id = new Id(this, nextId++);
            ids.put(id.number, id);
            return id;
        }

        /** @return ids not destroyed, for leak checks */
        int liveIds() {
            synchronized (SimulatedRc.this) {
                return ids.size();
            }
        }

        /** @return registrations not released, for leak checks */
        int liveRegistrations() {
            synchronized (SimulatedRc.this) {
                return regions.size();
            }
        }

        /** @return whether {@link #close()} was called */
        boolean closed() {
            synchronized (SimulatedRc.this) {
                return closed;
            }
        }

        /**
         * Holds this (passive) side's ESTABLISHED events back until {@link #releaseEstablished()}, as
         * when the completion queue shows the requester's first message before the CM shows the RTU.
         */
        void holdEstablished() {
            synchronized (SimulatedRc.this) {
                holdEstablished = true;
            }
        }

        /** Reports the ESTABLISHED events held back. */
        void releaseEstablished() {
            synchronized (SimulatedRc.this) {
                holdEstablished = false;
                heldEstablished.forEach(this::report);
                heldEstablished.clear();
            }
        }

        /**
         * From now on, destroying an id with a queue pair blocks until {@link #releaseDestroys()}, as
         * rdma_rxe's {@code rxe_destroy_qp} has for 30-40 s.
         */
        void holdDestroys() {
            synchronized (SimulatedRc.this) {
                destroyGate = new CountDownLatch(1);
            }
        }

        /** Lets the blocked destroys go on, and later ones not block. */
        void releaseDestroys() {
            CountDownLatch gate;
            synchronized (SimulatedRc.this) {
                gate = destroyGate;
                destroyGate = null;
            }
            if (gate != null) {
                gate.countDown();
            }
        }

        /** @return destroys blocked now */
        int destroysBlocked() {
            synchronized (SimulatedRc.this) {
                return destroysBlocked;
            }
        }

        /** The device goes away: every connection's id hears DEVICE_REMOVAL. */
        void remove() {
            synchronized (SimulatedRc.this) {
                for (Id id : ids.values()) {
                    if (id.hasQp) {
                        cm(id, CmEventType.DEVICE_REMOVAL, 0, new byte[0]);
                    }
                }
            }
        }

        /**
         * Holds the RDMA Reads this device posts from now on: they stay in flight, as a read of a
         * peer that went quiet does, until the queue pair fails (they flush) or the peer goes.
         */
        void holdReads() {
            synchronized (SimulatedRc.this) {
                holdReads = true;
            }
        }

        /** Stops holding RDMA Reads and carries out those held, in order, against the peer's memory now. */
        void releaseReads() {
            synchronized (SimulatedRc.this) {
                holdReads = false;
                for (Id id : ids.values()) {
                    List<Runnable> held = new ArrayList<>(id.heldReads.values());
                    id.heldReads.clear();
                    held.forEach(Runnable::run);
                }
            }
        }

        /** @return the RDMA Reads held in flight now */
        int heldReads() {
            synchronized (SimulatedRc.this) {
                return ids.values().stream().mapToInt(id -> id.heldReads.size()).sum();
            }
        }

        /** Makes the device one without type 2 memory windows. */
        void withoutMemoryWindows() {
            synchronized (SimulatedRc.this) {
                memoryWindows = false;
            }
        }

        /** @return the numbers of this device's queue pairs that are connected now */
        List<Integer> connectedQueuePairs() {
            synchronized (SimulatedRc.this) {
                return ids.values().stream().filter(id -> id.hasQp && id.connected).map(id -> id.qpNum).toList();
            }
        }

        /** @return windows allocated and not deallocated, for leak checks */
        int liveWindows() {
            synchronized (SimulatedRc.this) {
                return windows.size();
            }
        }

        /** Makes the device one without memory management extensions: no Send with Invalidate. */
        void withoutRemoteInvalidation() {
            synchronized (SimulatedRc.this) {
                remoteInvalidation = false;
            }
        }

        /** Sets the device's {@code max_qp_wr}: a deeper queue pair is refused with EINVAL. */
        void maxQueueDepth(int depth) {
            synchronized (SimulatedRc.this) {
                maxQueueDepth = depth;
            }
        }

        /** The next {@code posts} Sends, RDMA requests and receives find their queue full. */
        void fullQueues(int posts) {
            synchronized (SimulatedRc.this) {
                fullPosts = posts;
            }
        }

        /** @return whether this post finds its queue full, as {@code ibv_post_send} returning ENOMEM */
        private boolean full() {
            if (fullPosts == 0) {
                return false;
            }
            fullPosts--;
            return true;
        }

        /** Sets the scatter/gather entries an RDMA Read and an RDMA Write may have (rxe: 32 each). */
        void maxSge(int read, int write) {
            synchronized (SimulatedRc.this) {
                maxReadSge = read;
                maxWriteSge = write;
            }
        }

        /** @return the local scatter/gather list of every RDMA Read and Write posted, in order */
        List<List<Sge>> rdmaRequests() {
            synchronized (SimulatedRc.this) {
                return List.copyOf(rdmaRequests);
            }
        }

        /** @return the send and receive depths of every queue pair made, in order */
        List<int[]> queueDepths() {
            synchronized (SimulatedRc.this) {
                return List.copyOf(queueDepths);
            }
        }

        /** @return the keys the Sends with Invalidate this device received named, in order */
        List<Integer> invalidatedKeys() {
            synchronized (SimulatedRc.this) {
                return List.copyOf(invalidatedKeys);
            }
        }

        /** @return the keys of the Sends with Invalidate this device posted, in order */
        List<Integer> sentWithInvalidate() {
            synchronized (SimulatedRc.this) {
                return List.copyOf(sentWithInvalidate);
            }
        }

        /** @return the statuses of this device's completions that failed (flushes not counted), in order */
        List<WcStatus> failedCompletions() {
            synchronized (SimulatedRc.this) {
                return List.copyOf(failedCompletions);
            }
        }

        /** The device reports a connection's queue pair broken (QP_FATAL). */
        void fatal(int qpNum) {
            report(events -> events.queuePairFailed(qpNum, "IBV_EVENT_QP_FATAL"));
        }

        @Override
        public long listen(InetSocketAddress at, int backlog) throws VerbsException {
            synchronized (SimulatedRc.this) {
                if (!at.getAddress().equals(address)) {
                    throw new VerbsException("rdma_bind_addr", 99); // EADDRNOTAVAIL
                }
                if (listeners.containsKey(at)) {
                    throw new VerbsException("rdma_bind_addr", 98); // EADDRINUSE
                }
                Id id = newId();
                id.local = at;
                listeners.put(at, id);
                return id.number;
            }
        }

        @Override
        public long createId() {
            synchronized (SimulatedRc.this) {
                return newId().number;
            }
        }

        @Override
        public void resolveAddress(long number, InetSocketAddress peer, int timeoutMillis) {
            synchronized (SimulatedRc.this) {
                Id id = id(number);
                if (!hosts.contains(peer.getAddress())) {
                    cm(id, CmEventType.ADDR_ERROR, -110, new byte[0]); // -ETIMEDOUT
                    return;
                }
                id.local = new InetSocketAddress(address, nextPort++);
                id.peer = peer;
                cm(id, CmEventType.ADDR_RESOLVED, 0, new byte[0]);
            }
        }

        @Override
        public void resolveRoute(long number, int timeoutMillis) {
            synchronized (SimulatedRc.this) {
                cm(id(number), CmEventType.ROUTE_RESOLVED, 0, new byte[0]);
            }
        }

        @Override
        public InetSocketAddress localAddress(long number) {
            synchronized (SimulatedRc.this) {
                return id(number).local;
            }
        }

        @Override
        public InetSocketAddress peerAddress(long number) {
            synchronized (SimulatedRc.this) {
                return id(number).peer;
            }
        }

        @Override
        public int createQueuePair(long number, int sendDepth, int receiveDepth) throws VerbsException {
            synchronized (SimulatedRc.this) {
                if (sendDepth > maxQueueDepth || receiveDepth > maxQueueDepth) {
                    throw new VerbsException("rdma_create_qp", 22); // EINVAL
                }
                queueDepths.add(new int[] {sendDepth, receiveDepth});
                Id id = id(number);
                if (id.hasQp) {
                    throw new IllegalStateException("the id already has a queue pair");
                }
                id.hasQp = true;
                id.qpNum = nextQp++;
                return id.qpNum;
            }
        }

        @Override
        public void connect(long number, byte[] privateData, int retryCount, int rnrRetryCount)
                throws VerbsException {
            synchronized (SimulatedRc.this) {
                Id id = id(number);
                if (!id.hasQp || privateData.length > REQ_ROOM) {
                    throw new VerbsException("rdma_connect", 22); // EINVAL
                }
                id.requestedRnrRetries = rnrRetryCount;
                Id listener = listeners.get(id.peer);
                if (listener == null) {
                    cm(id, CmEventType.REJECTED, 8, new byte[0]); // no one listens on that service id
                    return;
                }
                Id request = listener.device.newId();
                request.local = listener.local;
                request.peer = id.local;
                request.requester = id;
                listener.device.cm(request, CmEventType.CONNECT_REQUEST, 0, room(privateData, REQ_ROOM));
            }
        }

        @Override
        public void accept(long number, byte[] privateData, int retryCount, int rnrRetryCount)
                throws VerbsException {
            synchronized (SimulatedRc.this) {
                Id id = id(number);
                if (!id.hasQp || id.requester == null || privateData.length > REP_ROOM) {
                    throw new VerbsException("rdma_accept", 22);
                }
                Id client = id.requester;
                id.rnrRetries = client.requestedRnrRetries;
                client.rnrRetries = rnrRetryCount;
                id.remote = client;
                client.remote = id;
                id.connected = true;
                client.connected = true;
                client.device.cm(client, CmEventType.ESTABLISHED, 0, room(privateData, REP_ROOM));
                if (holdEstablished) {
                    heldEstablished.add(events -> events.cmEvent(id.number, CmEventType.ESTABLISHED, 0, new byte[0]));
                } else {
                    cm(id, CmEventType.ESTABLISHED, 0, new byte[0]);
                }
            }
        }

        @Override
        public void reject(long number) throws VerbsException {
            synchronized (SimulatedRc.this) {
                Id id = id(number);
                if (id.requester == null) {
                    throw new VerbsException("rdma_reject", 22);
                }
                id.requester.device.cm(id.requester, CmEventType.REJECTED, 28, new byte[0]);
            }
        }

        @Override
        public void disconnect(long number) throws VerbsException {
            synchronized (SimulatedRc.this) {
                Id id = id(number);
                if (!id.hasQp) {
                    throw new VerbsException("rdma_disconnect", 22);
                }
                toError(id);
                if (id.connected) {
                    id.connected = false;
                    cm(id, CmEventType.DISCONNECTED, 0, new byte[0]);
                    Id other = id.remote;
                    if (other != null && other.connected) {
                        other.connected = false;
                        toError(other);
                        other.device.cm(other, CmEventType.DISCONNECTED, 0, new byte[0]);
                    }
                }
            }
        }

        @Override
        public void destroy(long number) {
            CountDownLatch gate;
            synchronized (SimulatedRc.this) {
                Id id = ids.get(number);
                gate = id != null && id.hasQp ? destroyGate : null;
                if (gate != null) {
                    destroysBlocked++;
                }
            }
            if (gate != null) {
                awaitUninterruptibly(gate);
                synchronized (SimulatedRc.this) {
                    destroysBlocked--;
                }
            }
            synchronized (SimulatedRc.this) {
                Id id = ids.remove(number);
                if (id != null) {
                    listeners.values().remove(id);
                    if (windows.values().stream().anyMatch(window -> window.boundTo == id)) {
                        destroyedWithBoundWindows++;
                    }
                }
            }
        }

        private static void awaitUninterruptibly(CountDownLatch gate) {
            boolean interrupted = false;
            while (true) {
                try {
                    gate.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public Memory register(MemorySegment memory, Set<MemoryAccess> access) {
            return register(memory, access, false);
        }

        @Override
        public Memory registerForWindows(MemorySegment memory) {
            return register(memory, Set.of(MemoryAccess.LOCAL_WRITE), true);
        }

        private Memory register(MemorySegment memory, Set<MemoryAccess> access, boolean forWindows) {
            if (!memory.isNative()) {
                throw new IllegalArgumentException("only native memory can be registered");
            }
            synchronized (SimulatedRc.this) {
                int key = nextKey++;
                regions.put(key, new Region(memory, Set.copyOf(access), forWindows));
                // as rxe does: memory no peer may touch has rkey 0, so only the lkey tells such regions apart
                boolean remote = access.contains(MemoryAccess.REMOTE_READ) || access.contains(MemoryAccess.REMOTE_WRITE);
                return new Memory(memory.address(), memory.byteSize(), key, remote ? key : 0);
            }
        }

        @Override
        public void deregister(Memory memory) {
            synchronized (SimulatedRc.this) {
                if (regions.remove(memory.lkey()) == null) {
                    throw new IllegalStateException("not registered: " + memory);
                }
                if (lastKey == memory.lkey()) {
                    lastRegion = null;
                }
            }
        }

        @Override
        public boolean memoryWindows(long id) {
            synchronized (SimulatedRc.this) {
                return memoryWindows;
            }
        }

        @Override
        public Window allocateWindow() throws VerbsException {
            synchronized (SimulatedRc.this) {
                if (!memoryWindows) {
                    throw new VerbsException("ibv_alloc_mw", 95); // EOPNOTSUPP
                }
                long handle = nextWindow++;
                // rxe's layout: the index in the upper 24 bits, a variable low byte
                int rkey = 0x8000_0000 | (int) (handle << 8) | 0x5a;
                windows.put(handle, new SimulatedRc.Window(rkey));
                return new Window(handle, rkey);
            }
        }

        @Override
        public void deallocateWindow(long handle) {
            synchronized (SimulatedRc.this) {
                if (windows.remove(handle) == null) {
                    throw new IllegalStateException("no window " + handle);
                }
            }
        }

        @Override
        public void postBind(long number, long wrId, long handle, int rkey, Memory memory, long at, long length,
                             Set<MemoryAccess> rights) {
            synchronized (SimulatedRc.this) {
                Id id = id(number);
                if (id.error) {
                    completion(id, wrId, WcStatus.WR_FLUSH_ERR, 0);
                    return;
                }
                SimulatedRc.Window window = windows.get(handle);
                Region region = regions.get(memory.lkey());
                MemorySegment range = resolve(memory.lkey(), at, length, null);
                if (window == null || window.boundTo != null || (rkey & ~0xff) != (window.rkey & ~0xff)
                        || region == null || !region.forWindows() || range == null || length == 0) {
                    fail(id, wrId, WcStatus.MW_BIND_ERR);
                    return;
                }
                window.rkey = rkey;
                window.boundTo = id;
                window.range = range;
                window.rights = Set.copyOf(rights);
                completion(id, wrId, WcStatus.SUCCESS, 0);
            }
        }

        @Override
        public void postLocalInvalidate(long number, long wrId, int rkey) {
            synchronized (SimulatedRc.this) {
                Id id = id(number);
                if (id.error) {
                    completion(id, wrId, WcStatus.WR_FLUSH_ERR, 0);
                    return;
                }
                if (!invalidate(rkey)) {
                    fail(id, wrId, WcStatus.MW_BIND_ERR);
                    return;
                }
                completion(id, wrId, WcStatus.SUCCESS, 0);
            }
        }

        /**
         * @return whether {@code rkey} was a bound window's key, which reaches nothing from now on. The
         *     key of a window that is not bound is refused, and counted ({@link #freeWindowInvalidations}):
         *     rdma_rxe (Linux 6.1) does not refuse it, and dereferences the window's absent queue pair
         */
        private boolean invalidate(int rkey) {
            for (SimulatedRc.Window window : windows.values()) {
                if (window.rkey == rkey) {
                    if (window.boundTo == null) {
                        freeWindowInvalidations++;
                        return false;
                    }
                    window.boundTo = null;
                    window.range = null;
                    return true;
                }
            }
            return false;
        }

        /**
         * @return queue pairs destroyed while a window was bound to them: rxe waits in vain for the
         *     reference each holds (a kernel warning) and frees the queue pair under it
         */
        int destroyedWithBoundWindows() {
            synchronized (SimulatedRc.this) {
                return destroyedWithBoundWindows;
            }
        }

        /** @return invalidations, local or remote, that named the current key of a window not bound */
        int freeWindowInvalidations() {
            synchronized (SimulatedRc.this) {
                return freeWindowInvalidations;
            }
        }

        /**
         * @return the bytes a peer's key, address and length name on this device, arriving at queue
         *     pair {@code at}: a bound window's range through the queue pair it was bound on, or a
         *     registration's; null if the key does not cover them
         */
        private MemorySegment reach(Id at, int key, long address, long length, MemoryAccess right) {
            for (SimulatedRc.Window window : windows.values()) {
                if (window.rkey == key) {
                    if (window.boundTo != at || !window.rights.contains(right)) {
                        return null;
                    }
                    long offset = address - window.range.address();
                    if (offset < 0 || length < 0 || offset + length > window.range.byteSize()) {
                        return null;
                    }
                    return window.range.asSlice(offset, length);
                }
            }
            Region region = regions.get(key);
            if (region != null && region.forWindows()) {
                return null; // its own key has no remote right
            }
            return resolve(key, address, length, right);
        }

        /** @return the bytes a key, address and length name, or null if the key does not cover them */
        private MemorySegment resolve(int key, long at, long length, MemoryAccess right) {
            Region region = lastRegion != null && lastKey == key ? lastRegion : regions.get(key);
            if (region != null) {
                lastRegion = region;
                lastKey = key;
            }
            if (region == null || (right != null && !region.access().contains(right))) {
                return null;
            }
            long offset = at - region.memory().address();
            if (offset < 0 || length < 0 || offset + length > region.memory().byteSize()) {
                return null;
            }
            return region.memory().asSlice(offset, length);
        }

        @Override
        public boolean postReceive(long number, long wrId, long at, int length, int lkey) {
            synchronized (SimulatedRc.this) {
                if (full()) {
                    return false;
                }
                Id id = id(number);
                if (id.error) {
                    completion(id, wrId, WcStatus.WR_FLUSH_ERR, 0);
                    return true;
                }
                Receive receive = spareReceives.isEmpty() ? new Receive() : spareReceives.poll();
                receive.wrId = wrId;
                receive.address = at;
                receive.length = length;
                receive.lkey = lkey;
                id.receives.add(receive);
                deliver(id);
                return true;
            }
        }

        @Override
        public boolean remoteInvalidation() {
            synchronized (SimulatedRc.this) {
                return remoteInvalidation;
            }
        }

        @Override
        public boolean postSend(long number, long wrId, long at, int length, int lkey) {
            return send(number, wrId, at, length, lkey, null);
        }

        @Override
        public boolean postSendWithInvalidate(long number, long wrId, long at, int length, int lkey, int rkey) {
            synchronized (SimulatedRc.this) {
                if (!remoteInvalidation) {
                    throw new IllegalStateException("this device has no Send with Invalidate");
                }
                if (full()) {
                    return false;
                }
                sentWithInvalidate.add(rkey);
            }
            return send(number, wrId, at, length, lkey, rkey);
        }

        private boolean send(long number, long wrId, long at, int length, int lkey, Integer invalidate) {
            synchronized (SimulatedRc.this) {
                if (invalidate == null && full()) {
                    return false;
                }
                Id id = id(number);
                if (!postable(id, wrId)) {
                    return true;
                }
                MemorySegment source = local(id, wrId, at, length, lkey);
                if (source == null || !reachable(id, wrId)) {
                    return true;
                }
                Id other = id.remote;
                if (other.waiting.isEmpty() && !other.receives.isEmpty() && !other.error) {
                    // A receive waits: the message goes straight into it, as the wire would carry it.
                    other.device.deliver(other, other.receives.poll(), id, wrId, source, invalidate);
                    return true;
                }
                Waiting message = new Waiting(id, wrId,
                        MemorySegment.ofArray(source.toArray(ValueLayout.JAVA_BYTE)), invalidate);
                other.waiting.add(message);
                other.device.deliver(other);
                if (other.waiting.contains(message) && id.rnrRetries < 7 && other.waiting.size() > id.rnrRetries) {
                    other.waiting.removeLastOccurrence(message);
                    fail(id, wrId, WcStatus.RNR_RETRY_EXC_ERR);
                }
                return true;
            }
        }

        @Override
        public int maxReadSge() {
            synchronized (SimulatedRc.this) {
                return maxReadSge;
            }
        }

        @Override
        public int maxWriteSge() {
            synchronized (SimulatedRc.this) {
                return maxWriteSge;
            }
        }

        @Override
        public boolean postRead(long number, long wrId, List<Sge> local, long remoteAddress, int rkey)
                throws VerbsException {
            return rdma(number, wrId, local, remoteAddress, rkey, true);
        }

        @Override
        public boolean postWrite(long number, long wrId, List<Sge> local, long remoteAddress, int rkey)
                throws VerbsException {
            return rdma(number, wrId, local, remoteAddress, rkey, false);
        }

        private boolean rdma(long number, long wrId, List<Sge> sges, long remoteAddress, int rkey, boolean read)
                throws VerbsException {
            synchronized (SimulatedRc.this) {
                if (sges.size() > (read ? maxReadSge : maxWriteSge)) {
                    throw new VerbsException("ibv_post_send", 22); // EINVAL
                }
                if (full()) {
                    return false;
                }
                rdmaRequests.add(List.copyOf(sges));
                carryOut(number, wrId, List.copyOf(sges), remoteAddress, rkey, read);
                return true;
            }
        }

        private void carryOut(long number, long wrId, List<Sge> sges, long remoteAddress, int rkey, boolean read) {
            Id id = id(number);
            List<MemorySegment> local = posted(id, wrId, sges);
            if (local == null) {
                return;
            }
            Id other = id.remote;
            if (read && holdReads) {
                id.heldReads.put(wrId, () -> carryOut(number, wrId, sges, remoteAddress, rkey, true));
                return;
            }
            long length = local.stream().mapToLong(MemorySegment::byteSize).sum();
            MemorySegment theirs = other.device.reach(other, rkey, remoteAddress, length,
                    read ? MemoryAccess.REMOTE_READ : MemoryAccess.REMOTE_WRITE);
            if (theirs == null) {
                fail(id, wrId, WcStatus.REM_ACCESS_ERR);
                return;
            }
            long at = 0;
            for (MemorySegment buffer : local) {
                if (read) {
                    buffer.copyFrom(theirs.asSlice(at, buffer.byteSize()));
                } else {
                    theirs.asSlice(at, buffer.byteSize()).copyFrom(buffer);
                }
                at += buffer.byteSize();
            }
            completion(id, wrId, WcStatus.SUCCESS, (int) length);
        }

        /**
         * The checks a work request meets first, as a device makes them: a queue pair in error flushes
         * it, memory not registered fails it locally, a peer gone fails it after the retries.
         *
         * @return its local buffers, or {@code null} once it has completed in error
         */
        private List<MemorySegment> posted(Id id, long wrId, List<Sge> sges) {
            if (!postable(id, wrId)) {
                return null;
            }
            List<MemorySegment> local = new ArrayList<>(sges.size());
            for (Sge sge : sges) {
                MemorySegment buffer = local(id, wrId, sge.address(), sge.length(), sge.lkey());
                if (buffer == null) {
                    return null;
                }
                local.add(buffer);
            }
            return reachable(id, wrId) ? local : null;
        }

        /** @return whether the queue pair takes work; if not, the request is flushed */
        private boolean postable(Id id, long wrId) {
            if (id.error) {
                completion(id, wrId, WcStatus.WR_FLUSH_ERR, 0);
                return false;
            }
            return true;
        }

        /** @return the registered bytes a request names, or {@code null} once it has failed locally */
        private MemorySegment local(Id id, long wrId, long address, int length, int lkey) {
            MemorySegment buffer = resolve(lkey, address, length, null);
            if (buffer == null) {
                fail(id, wrId, WcStatus.LOC_PROT_ERR);
            }
            return buffer;
        }

        /** @return whether the peer is there; if not, the request fails after the retries */
        private boolean reachable(Id id, long wrId) {
            if (id.remote == null || id.remote.error) {
                fail(id, wrId, WcStatus.RETRY_EXC_ERR);
                return false;
            }
            return true;
        }

        /** Messages waiting for this id's receives go into them, in order. */
        private void deliver(Id id) {
            while (!id.error && !id.waiting.isEmpty() && !id.receives.isEmpty()) {
                Waiting message = id.waiting.poll();
                if (!deliver(id, id.receives.poll(), message.sender(), message.wrId(), message.bytes(),
                        message.invalidate())) {
                    return;
                }
            }
        }

        /**
         * A message arrives in a receive of this device's id: both ends complete.
         *
         * @return whether it arrived; if not, the id has failed
         */
        private boolean deliver(Id id, Receive receive, Id sender, long sentWrId, MemorySegment bytes,
                                Integer invalidate) {
            int length = (int) bytes.byteSize();
            if (length > receive.length()) {
                fail(id, receive.wrId(), WcStatus.LOC_LEN_ERR);
                sender.device.fail(sender, sentWrId, WcStatus.REM_INV_REQ_ERR);
                return false;
            }
            long invalidated = NOT_INVALIDATED;
            if (invalidate != null) {
                invalidatedKeys.add(invalidate);
                if (!invalidate(invalidate)) {
                    // no bound window of this device has the key: the receiver's queue pair fails
                    fail(id, receive.wrId(), WcStatus.LOC_QP_OP_ERR);
                    sender.device.fail(sender, sentWrId, WcStatus.REM_OP_ERR);
                    return false;
                }
                invalidated = Integer.toUnsignedLong(invalidate);
            }
            MemorySegment.copy(bytes, 0, resolve(receive.lkey(), receive.address(), length, null), 0, length);
            completion(id, receive.wrId(), WcStatus.SUCCESS, length, invalidated);
            sender.device.completion(sender, sentWrId, WcStatus.SUCCESS, 0);
            spareReceives.add(receive);
            return true;
        }

        /** A request failed: it completes with the error, and the queue pair goes to the error state. */
        private void fail(Id id, long wrId, WcStatus status) {
            completion(id, wrId, status, 0);
            toError(id);
        }

        private void toError(Id id) {
            if (id.error) {
                return;
            }
            id.error = true;
            for (Receive receive : id.receives) {
                completion(id, receive.wrId(), WcStatus.WR_FLUSH_ERR, 0);
            }
            id.receives.clear();
            for (long read : id.heldReads.keySet()) {
                completion(id, read, WcStatus.WR_FLUSH_ERR, 0);
            }
            id.heldReads.clear();
            for (Waiting message : id.waiting) {
                message.sender().device.fail(message.sender(), message.wrId(), WcStatus.RETRY_EXC_ERR);
            }
            id.waiting.clear();
        }

        @Override
        public int poll(Events events) {
            int n = 0;
            for (Consumer<Events> event = next(null); event != null; event = next(event)) {
                if (event != WAKEUP) {
                    event.accept(events);
                    n++;
                }
            }
            return n;
        }

        /** @return the next report, once {@code done}, the one handed over before, is free to reuse */
        private Consumer<Events> next(Consumer<Events> done) {
            synchronized (queue) {
                if (done instanceof Completion completion) {
                    spare.add(completion);
                }
                return queue.poll();
            }
        }

        /** The model has no completion notification to ask for: its queue wakes {@link #await} itself. */
        @Override
        public int arm(Events events) {
            return poll(events);
        }

        @Override
        public void await(int timeoutMillis) {
            awaits.incrementAndGet();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            synchronized (queue) {
                try {
                    for (long left = timeoutMillis; queue.isEmpty() && left > 0;
                            left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
                        queue.wait(left);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void wakeup() {
            wakeups.incrementAndGet();
            report(WAKEUP);
        }

        @Override
        public void close() {
            synchronized (SimulatedRc.this) {
                if (!ids.isEmpty() || !regions.isEmpty() || !windows.isEmpty()) {
                    throw new IllegalStateException(ids.size() + " ids, " + regions.size() + " registrations and "
                            + windows.size() + " windows are still open");
                }
                closed = true;
            }
        }
    }

    private static final Consumer<RcDevice.Events> WAKEUP = events -> { };

    /** A work completion to report; its device reuses it once handed over. */
    private static final class Completion implements Consumer<RcDevice.Events> {
        private int qpNum;
        private long wrId;
        private WcStatus status;
        private int length;
        private long invalidated;

        void set(int qpNum, long wrId, WcStatus status, int length, long invalidated) {
            this.qpNum = qpNum;
            this.wrId = wrId;
            this.status = status;
            this.length = length;
            this.invalidated = invalidated;
        }

        @Override
        public void accept(RcDevice.Events events) {
            events.completion(qpNum, wrId, status, length, invalidated);
        }
    }

    private static byte[] room(byte[] data, int room) {
        byte[] bytes = new byte[room];
        System.arraycopy(data, 0, bytes, 0, data.length);
        return bytes;
    }
}
