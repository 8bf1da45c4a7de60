package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.AsyncEvent;
import org.rpcrdma4j.verbs.AsyncEventType;
import org.rpcrdma4j.verbs.CmEvent;
import org.rpcrdma4j.verbs.CmEventChannel;
import org.rpcrdma4j.verbs.CmId;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionParameters;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.FdPoller;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.MemoryWindow;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsContext;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RcDevice} over libibverbs and librdmacm: one CM event channel and its ids, and on the device
 * the first id is bound or resolved to, one protection domain, one completion channel and one
 * completion queue shared by every queue pair; an {@link FdPoller} watches the CM, completion and
 * asynchronous-event descriptors.
 *
 * <p>One device per fabric: an id that lands on another device is refused. Each queue pair's
 * completions need room in the shared queue, whose size ({@link #CQ_ENTRIES}, or less if the device
 * has less) therefore bounds the connections.
 *
 * <p>Teardown: events are acked as they are read (their private data copied out first), so an id can
 * be destroyed at any time; an id's queue pair goes with it; the completion queue, its channel, the
 * protection domain go at {@link #close()}, after every id and registration.
 */
final class VerbsRcDevice implements RcDevice {

    /** Entries of the shared completion queue (rdma_rxe allows 32767). */
    static final int CQ_ENTRIES = 32767;
    /** RDMA Reads in flight per queue pair, each way, at most (the device may allow fewer). */
    private static final int RDMA_READ_DEPTH = 16;
    /**
     * Scatter/gather entries per RDMA Read or Write at most (the device may allow fewer): the chunk
     * pool's blocks under a transfer of the transport's largest I/O that starts inside a block.
     */
    static final int MAX_SGE = TransportConfig.DEFAULT_MAX_MESSAGE_SIZE / ChunkPool.MAX_BLOCK + 1;
    private static final int EINVAL = 22;
    private static final int ENODEV = 19;
    private static final int ENOSPC = 28;
    private static final Logger LOG = LoggerFactory.getLogger(VerbsRcDevice.class);
    /** The device events after which a queue pair is in the error state. */
    private static final Set<AsyncEventType> BREAKS_QUEUE_PAIR = EnumSet.of(AsyncEventType.QP_FATAL,
            AsyncEventType.QP_REQ_ERR, AsyncEventType.QP_ACCESS_ERR, AsyncEventType.PATH_MIG_ERR);

    private final CmEventChannel channel;
    private final FdPoller poller;
    // Concurrent: the fabric's reaper destroys ids, windows and registrations of ended connections
    // on its own thread (RcDevice's thread rules).
    private final Map<Long, CmId> ids = new ConcurrentHashMap<>();
    private final Map<CmId, Long> numbers = new ConcurrentHashMap<>();
    private final Map<Memory, MemoryRegion> regions = new ConcurrentHashMap<>();
    private final Map<Long, MemoryWindow> windows = new ConcurrentHashMap<>();
    private final WorkCompletions completions = new WorkCompletions(32);
    private final SendWorkRequest send = new SendWorkRequest(MAX_SGE);
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    /** Guards {@link #cqFree} and {@link #cqRoom}: queue pairs are made in the turn and destroyed by the reaper. */
    private final Object cqLock = new Object();
    private final Map<Long, Integer> cqRoom = new HashMap<>();
    private long nextId = 1;
    private long nextWindow = 1;

    private VerbsContext context;
    private ProtectionDomain pd;
    private CompletionChannel completionChannel;
    private CompletionQueue cq;
    private int cqFree;
    private int readDepth;
    private int readSge = 1;
    private int writeSge = 1;
    private int maxQueueDepth;
    private boolean remoteInvalidation;
    private boolean memoryWindows;
    private int completionIndex = -1;
    private int asyncIndex = -1;
    /** Whether the last {@link #await} found the device's asynchronous events readable. */
    private boolean asyncReady;

    private VerbsRcDevice(CmEventChannel channel, FdPoller poller) throws VerbsException {
        this.channel = channel;
        this.poller = poller;
        poller.register(channel.fd());
    }

    /**
     * @return a device with its CM channel; the verbs device itself is opened at first use
     * @throws VerbsException if the libraries are missing or the kernel has no RDMA-CM
     */
    static VerbsRcDevice open() throws VerbsException {
        CmEventChannel channel = CmEventChannel.create();
        try {
            return new VerbsRcDevice(channel, new FdPoller(3));
        } catch (VerbsException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private CmId id(long id) {
        CmId cmId = ids.get(id);
        if (cmId == null) {
            throw new IllegalStateException("no id " + id);
        }
        return cmId;
    }

    private long adopt(CmId cmId) {
        long number = nextId++;
        ids.put(number, cmId);
        numbers.put(cmId, number);
        return number;
    }

    /** Opens the device's shared resources the first time an id is on a device; refuses a second device. */
    private void useDevice(CmId cmId) throws VerbsException {
        VerbsContext on = cmId.verbsContext();
        if (on == null) {
            return;
        }
        if (context != null) {
            if (!context.equals(on)) {
                throw new VerbsException("one device per RC fabric: " + on.deviceName() + " besides "
                        + context.deviceName(), ENODEV);
            }
            return;
        }
        DeviceAttributes attributes = on.queryDevice();
        pd = on.allocateProtectionDomain();
        completionChannel = on.createCompletionChannel();
        cq = on.createCompletionQueue(Math.min(CQ_ENTRIES, attributes.maxCqe()), completionChannel, 0);
        cqFree = cq.capacity();
        readDepth = Math.min(RDMA_READ_DEPTH, Math.min(attributes.maxQpRdAtom(), attributes.maxQpInitRdAtom()));
        maxQueueDepth = attributes.maxQpWr();
        writeSge = Math.min(MAX_SGE, attributes.maxSge());
        readSge = Math.min(writeSge, attributes.maxSgeRd());
        remoteInvalidation = attributes.memoryManagementExtensions();
        memoryWindows = attributes.memoryWindowsType2();
        context = on;
        completionIndex = poller.register(completionChannel.fd());
        asyncIndex = poller.register(on.asyncEventFd());
        LOG.info("RC fabric on device {}: completion queue of {} entries, {} RDMA Reads in flight per queue pair,"
                + " at most {} work requests per queue, {} and {} scatter/gather entries per RDMA Read and Write,"
                + " Send with Invalidate {}, type 2 memory windows {}", on.deviceName(), cqFree, readDepth,
                maxQueueDepth, readSge, writeSge, remoteInvalidation ? "supported" : "not supported",
                memoryWindows ? "supported" : "not supported");
    }

    @Override
    public long listen(InetSocketAddress address, int backlog) throws VerbsException {
        CmId cmId = channel.createId();
        try {
            cmId.bind(address);
            cmId.listen(backlog);
            useDevice(cmId);
        } catch (VerbsException | RuntimeException e) {
            cmId.close();
            throw e;
        }
        return adopt(cmId);
    }

    @Override
    public long createId() throws VerbsException {
        return adopt(channel.createId());
    }

    @Override
    public void resolveAddress(long id, InetSocketAddress peer, int timeoutMillis) throws VerbsException {
        id(id).resolveAddress(null, peer, timeoutMillis);
    }

    @Override
    public void resolveRoute(long id, int timeoutMillis) throws VerbsException {
        id(id).resolveRoute(timeoutMillis);
    }

    @Override
    public InetSocketAddress localAddress(long id) {
        return id(id).localAddress();
    }

    @Override
    public InetSocketAddress peerAddress(long id) {
        return id(id).peerAddress();
    }

    @Override
    public int createQueuePair(long id, int sendDepth, int receiveDepth) throws VerbsException {
        CmId cmId = id(id);
        useDevice(cmId);
        if (cq == null) {
            throw new VerbsException("rdma_create_qp (the id is on no device)", ENODEV);
        }
        if (sendDepth > maxQueueDepth || receiveDepth > maxQueueDepth) {
            throw new VerbsException("rdma_create_qp (" + sendDepth + " sends and " + receiveDepth
                    + " receives asked for; the device allows " + maxQueueDepth + " work requests per queue)", EINVAL);
        }
        int room = sendDepth + receiveDepth;
        synchronized (cqLock) {
            if (room > cqFree) {
                throw new VerbsException("rdma_create_qp (" + cqFree + " entries left in the shared completion queue, "
                        + room + " needed)", ENOSPC);
            }
            cqFree -= room;
            cqRoom.put(id, room);
        }
        int qpNum;
        try {
            qpNum = cmId.createQueuePair(pd, new QueuePairConfig(cq, cq, sendDepth, receiveDepth, writeSge, 1, 0, false))
                    .qpNum();
        } catch (VerbsException | RuntimeException e) {
            giveBackRoom(id);
            throw e;
        }
        return qpNum;
    }

    @Override
    public void connect(long id, byte[] privateData, int retryCount, int rnrRetryCount) throws VerbsException {
        id(id).connect(new ConnectionParameters(privateData, readDepth, readDepth, retryCount, rnrRetryCount));
    }

    @Override
    public void accept(long id, byte[] privateData, int retryCount, int rnrRetryCount) throws VerbsException {
        id(id).accept(new ConnectionParameters(privateData, readDepth, readDepth, retryCount, rnrRetryCount));
    }

    @Override
    public void reject(long id) throws VerbsException {
        id(id).reject(new byte[0]);
    }

    @Override
    public void disconnect(long id) throws VerbsException {
        id(id).disconnect();
    }

    @Override
    public void destroy(long id) throws VerbsException {
        CmId cmId = ids.remove(id);
        if (cmId == null) {
            return;
        }
        giveBackRoom(id);
        try {
            cmId.close();
        } finally {
            // Only now: an event the progress thread reads while the id is destroyed must still find
            // its number (the fabric ignores it, the connection being gone), not be taken for a new id.
            numbers.remove(cmId);
        }
    }

    private void giveBackRoom(long id) {
        synchronized (cqLock) {
            Integer room = cqRoom.remove(id);
            if (room != null) {
                cqFree += room;
            }
        }
    }

    @Override
    public Memory register(MemorySegment memory, Set<MemoryAccess> access) throws VerbsException {
        List<Access> rights = new ArrayList<>(List.of(Access.LOCAL_WRITE));
        rights.addAll(remoteRights(access));
        return registered(memory, rights.toArray(Access[]::new));
    }

    @Override
    public Memory registerForWindows(MemorySegment memory) throws VerbsException {
        return registered(memory, Access.LOCAL_WRITE, Access.MW_BIND);
    }

    private Memory registered(MemorySegment memory, Access... rights) throws VerbsException {
        MemoryRegion region = protectionDomain("ibv_reg_mr").register(memory, rights);
        Memory registered = new Memory(region.address(), region.length(), region.lkey(), region.rkey());
        regions.put(registered, region);
        return registered;
    }

    /** @return the protection domain, which exists once the fabric has its device */
    private ProtectionDomain protectionDomain(String call) throws VerbsException {
        if (pd == null) {
            throw new VerbsException(call + " (no device yet: listen on a device's address or connect first)",
                    ENODEV);
        }
        return pd;
    }

    @Override
    public Window allocateWindow() throws VerbsException {
        MemoryWindow window = protectionDomain("ibv_alloc_mw").allocateWindow();
        long handle = nextWindow++;
        windows.put(handle, window);
        return new Window(handle, window.rkey());
    }

    @Override
    public void deallocateWindow(long handle) throws VerbsException {
        MemoryWindow window = windows.remove(handle);
        if (window != null) {
            window.close();
        }
    }

    @Override
    public void postBind(long id, long wrId, long window, int rkey, Memory memory, long address, long length,
                         Set<MemoryAccess> rights) throws VerbsException {
        MemoryWindow mw = windows.get(window);
        MemoryRegion region = regions.get(memory);
        if (mw == null || region == null) {
            throw new IllegalStateException("no window " + window + " or registration " + memory);
        }
        id(id).queuePair().post(send.reset(wrId).bindWindow(mw, rkey, region, address - region.address(), length,
                remoteRights(rights).toArray(Access[]::new)).signaled());
        // The provider names the window by its current key in the next bind's request (rxe checks it
        // against the kernel's), which is this one from now on.
        mw.bound(rkey);
    }

    /** @return the verbs rights of the transport's remote ones */
    private static List<Access> remoteRights(Set<MemoryAccess> access) {
        List<Access> rights = new ArrayList<>(2);
        if (access.contains(MemoryAccess.REMOTE_READ)) {
            rights.add(Access.REMOTE_READ);
        }
        if (access.contains(MemoryAccess.REMOTE_WRITE)) {
            rights.add(Access.REMOTE_WRITE);
        }
        return rights;
    }

    @Override
    public void postLocalInvalidate(long id, long wrId, int rkey) throws VerbsException {
        id(id).queuePair().post(send.reset(wrId).localInvalidate(rkey).signaled());
    }

    @Override
    public void deregister(Memory memory) throws VerbsException {
        MemoryRegion region = regions.remove(memory);
        if (region != null) {
            region.close();
        }
    }

    @Override
    public boolean postReceive(long id, long wrId, long address, int length, int lkey) throws VerbsException {
        return id(id).queuePair().tryPost(receive.reset(wrId).add(address, length, lkey));
    }

    @Override
    public boolean postSend(long id, long wrId, long address, int length, int lkey) throws VerbsException {
        return id(id).queuePair().tryPost(send.reset(wrId).send().add(address, length, lkey).signaled());
    }

    @Override
    public boolean remoteInvalidation() {
        return remoteInvalidation;
    }

    @Override
    public boolean memoryWindows(long id) throws VerbsException {
        useDevice(id(id));
        return memoryWindows;
    }

    @Override
    public boolean postSendWithInvalidate(long id, long wrId, long address, int length, int lkey, int rkey)
            throws VerbsException {
        return id(id).queuePair().tryPost(sendWithInvalidate(send, wrId, address, length, lkey, rkey));
    }

    /** @return {@code wr} made a signaled Send with Invalidate of one buffer, naming the peer's key */
    static SendWorkRequest sendWithInvalidate(SendWorkRequest wr, long wrId, long address, int length, int lkey,
                                              int rkey) {
        return wr.reset(wrId).sendWithInvalidate(rkey).add(address, length, lkey).signaled();
    }

    @Override
    public int maxReadSge() {
        return readSge;
    }

    @Override
    public int maxWriteSge() {
        return writeSge;
    }

    @Override
    public boolean postRead(long id, long wrId, List<Sge> local, long remoteAddress, int rkey)
            throws VerbsException {
        return id(id).queuePair().tryPost(rdma(send, wrId, true, local, remoteAddress, rkey));
    }

    @Override
    public boolean postWrite(long id, long wrId, List<Sge> local, long remoteAddress, int rkey)
            throws VerbsException {
        return id(id).queuePair().tryPost(rdma(send, wrId, false, local, remoteAddress, rkey));
    }

    /** @return {@code wr} made a signaled RDMA Read or Write of the peer's memory and local buffers, in order */
    static SendWorkRequest rdma(SendWorkRequest wr, long wrId, boolean read, List<Sge> local, long remoteAddress,
                                int rkey) {
        wr.reset(wrId);
        if (read) {
            wr.rdmaRead(remoteAddress, rkey);
        } else {
            wr.rdmaWrite(remoteAddress, rkey);
        }
        for (Sge sge : local) {
            wr.add(sge.address(), sge.length(), sge.lkey());
        }
        return wr.signaled();
    }

    @Override
    public int poll(Events events) throws VerbsException {
        return drainCm(events) + drainCompletions(events) + drainAsync(events);
    }

    @Override
    public int arm(Events events) throws VerbsException {
        if (cq == null) {
            return 0;
        }
        // Armed before the last look, so a completion between the look and the sleep still wakes it.
        cq.requestNotify(false);
        return drainCompletions(events);
    }

    @Override
    public void await(int timeoutMillis) throws VerbsException {
        poller.poll(timeoutMillis);
        if (completionIndex >= 0 && poller.isReadable(completionIndex)) {
            while (completionChannel.getEvent() != null) {
                // each notification is counted by the queue and acked below in one call
            }
            cq.ackEvents();
        }
        asyncReady = asyncIndex >= 0 && poller.isReadable(asyncIndex);
    }

    private int drainCm(Events events) throws VerbsException {
        int n = 0;
        while (true) {
            CmEvent next = channel.getEvent();
            if (next == null) {
                return n;
            }
            n++;
            byte[] privateData;
            long id;
            try (CmEvent event = next) {
                privateData = event.privateData();
                Long known = numbers.get(event.id());
                id = known != null ? known : adopt(event.id());
            }
            events.cmEvent(id, next.type(), next.status(), privateData);
        }
    }

    private int drainCompletions(Events events) throws VerbsException {
        if (cq == null) {
            return 0;
        }
        int total = 0;
        int n;
        do {
            n = cq.poll(completions);
            for (int i = 0; i < n; i++) {
                long invalidated = completions.succeeded(i) && completions.withInvalidate(i)
                        ? Integer.toUnsignedLong(completions.invalidatedRkey(i)) : NOT_INVALIDATED;
                events.completion(completions.qpNum(i), completions.wrId(i), completions.status(i),
                        completions.byteLength(i), invalidated);
            }
            total += n;
        } while (n == completions.capacity());
        return total;
    }

    /** Device events, looked at after a sleep: a broken queue pair also flushes, which a busy loop sees. */
    private int drainAsync(Events events) throws VerbsException {
        if (!asyncReady) {
            return 0;
        }
        asyncReady = false;
        int n = 0;
        AsyncEvent event;
        while ((event = context.getAsyncEvent()) != null) {
            n++;
            LOG.warn("device {}: {}", context.deviceName(), event);
            if (BREAKS_QUEUE_PAIR.contains(event.type())) {
                events.queuePairFailed(event.qpNum(), event.type().description());
            }
        }
        return n;
    }

    @Override
    public void wakeup() {
        try {
            poller.wakeup();
        } catch (VerbsException e) {
            LOG.warn("waking the RC fabric's progress thread failed: {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        try {
            for (long id : new ArrayList<>(ids.keySet())) {
                destroy(id);
            }
            for (MemoryWindow window : windows.values()) {
                window.close();
            }
            windows.clear();
            for (MemoryRegion region : regions.values()) {
                region.close();
            }
            regions.clear();
            if (cq != null) {
                cq.close();
                completionChannel.close();
                pd.close();
            }
        } catch (VerbsException e) {
            LOG.warn("releasing the RC device failed: {}", e.getMessage());
        } finally {
            poller.close();
            channel.close();
        }
    }
}
