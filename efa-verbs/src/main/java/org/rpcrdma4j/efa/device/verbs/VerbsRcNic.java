package org.rpcrdma4j.efa.device.verbs;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.AsyncEvent;
import org.rpcrdma4j.verbs.AsyncEventType;
import org.rpcrdma4j.verbs.CmEvent;
import org.rpcrdma4j.verbs.CmEventChannel;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.CmId;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionParameters;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.FdPoller;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.SharedReceiveQueue;
import org.rpcrdma4j.verbs.VerbsContext;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RcNic} on libibverbs and librdmacm: one CM event channel and its ids, and on the device the
 * listener is bound to, one protection domain, one completion queue and one shared receive queue for
 * every queue pair. Ids that connect out resolve from the listener's address, so that every queue pair
 * lands on that device.
 *
 * <p>{@link #poll} makes one {@code poll(2)} over the CM channel's and the device's asynchronous-event
 * descriptors (both non-blocking) and reads only those that are readable; the completion queue is
 * polled every time, in user space, and the notifications of its completion channel taken and acked.
 * {@link #await} blocks in a {@code poll(2)} of its own over the same descriptors and the completion
 * channel's, for the device's notifier thread. CM events are acked as they are read, their private
 * data copied first, so an id can be destroyed at any time. Teardown: ids (with their queue pairs),
 * then registrations, the shared receive queue, the completion queue and its channel and the
 * protection domain, then the CM channel.
 *
 * <p>The completion queue never overflows: the device has at most its ops, its RESULT slots and its
 * shared receives outstanding at once, whatever the number of queue pairs, and the queue is sized to
 * that sum ({@link VerbsDevice#completionsOutstanding}).
 */
final class VerbsRcNic implements RcNic {

    /** Transport retries before a queue pair gives a peer up: Linux's RPC-over-RDMA value. */
    static final int RETRY_COUNT = 6;
    /** RDMA Reads in flight per queue pair, each way, at most (the device may allow fewer). */
    private static final int RDMA_READ_DEPTH = 16;
    private static final int LISTEN_BACKLOG = 128;
    private static final int ENOMEM = 12;
    private static final int ENODEV = 19;
    private static final int EINVAL = 22;
    private static final Logger LOG = LoggerFactory.getLogger(VerbsRcNic.class);
    /** The device events after which a queue pair is in the error state. */
    private static final Set<AsyncEventType> BREAKS_QUEUE_PAIR = EnumSet.of(AsyncEventType.QP_FATAL,
            AsyncEventType.QP_REQ_ERR, AsyncEventType.QP_ACCESS_ERR, AsyncEventType.PATH_MIG_ERR);

    private final int completionEntries;
    private final int sharedReceives;
    private final CmEventChannel channel;
    private final FdPoller poller;
    private final int cmIndex;
    private final FdPoller sleeper;
    private final Map<Long, CmId> ids = new HashMap<>();
    private final Map<CmId, Long> numbers = new HashMap<>();
    private final Map<Registration, MemoryRegion> regions = new HashMap<>();
    private final WorkCompletions completions = new WorkCompletions(32);
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    private long nextId = 1;

    private InetSocketAddress local;
    private VerbsContext context;
    private ProtectionDomain pd;
    private CompletionChannel completionChannel;
    private CompletionQueue cq;
    private SharedReceiveQueue srq;
    private int readDepth;
    private int maxQueueDepth;
    private int asyncIndex = -1;

    private VerbsRcNic(int completionEntries, int sharedReceives, CmEventChannel channel, FdPoller poller,
                       FdPoller sleeper) {
        this.completionEntries = completionEntries;
        this.sharedReceives = sharedReceives;
        this.channel = channel;
        this.poller = poller;
        this.cmIndex = poller.register(channel.fd());
        this.sleeper = sleeper;
        sleeper.register(channel.fd());
    }

    /**
     * @param completionEntries the most completions the device can have outstanding at once
     * @param sharedReceives    receives the device keeps on its shared receive queue
     * @return a NIC with its CM channel; the device's objects are made by {@link #listen}
     * @throws VerbsException if the libraries are missing or the kernel has no RDMA-CM
     */
    static VerbsRcNic open(int completionEntries, int sharedReceives) throws VerbsException {
        CmEventChannel channel = CmEventChannel.create();
        FdPoller poller = null;
        try {
            poller = new FdPoller(2);
            return new VerbsRcNic(completionEntries, sharedReceives, channel, poller, new FdPoller(3));
        } catch (VerbsException | RuntimeException e) {
            if (poller != null) {
                poller.close();
            }
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

    @Override
    public InetSocketAddress listen(InetSocketAddress address) throws VerbsException {
        if (context != null) {
            throw new IllegalStateException("the NIC listens already, on " + local);
        }
        CmId cmId = channel.createId();
        try {
            cmId.bind(address);
            cmId.listen(LISTEN_BACKLOG);
            VerbsContext on = cmId.verbsContext();
            if (on == null) {
                throw new VerbsException("rdma_bind_addr(" + address + ": on no RDMA device)", ENODEV);
            }
            local = cmId.localAddress();
            useDevice(on);
        } catch (VerbsException | RuntimeException e) {
            cmId.close();
            throw e;
        }
        adopt(cmId);
        return local;
    }

    /** Makes the device's shared objects. */
    private void useDevice(VerbsContext on) throws VerbsException {
        DeviceAttributes attributes = on.queryDevice();
        readDepth = Math.min(RDMA_READ_DEPTH, Math.min(attributes.maxQpRdAtom(), attributes.maxQpInitRdAtom()));
        maxQueueDepth = attributes.maxQpWr();
        pd = on.allocateProtectionDomain();
        completionChannel = on.createCompletionChannel();
        cq = on.createCompletionQueue(Math.min(completionEntries, attributes.maxCqe()), completionChannel, 0);
        if (cq.capacity() < completionEntries) {
            throw new VerbsException("ibv_create_cq (" + completionEntries + " entries needed, the device allows "
                    + cq.capacity() + ")", EINVAL);
        }
        srq = pd.createSharedReceiveQueue(sharedReceives, 1);
        context = on;
        asyncIndex = poller.register(on.asyncEventFd());
        sleeper.register(on.asyncEventFd());
        sleeper.register(completionChannel.fd());
        LOG.info("verbs device on {} at {}: a completion queue of {} entries, a shared receive queue of {},"
                + " {} RDMA Reads in flight per queue pair", on.deviceName(), local, cq.capacity(), srq.capacity(),
                readDepth);
    }

    @Override
    public long createId() throws VerbsException {
        return adopt(channel.createId());
    }

    @Override
    public void resolveAddress(long id, InetSocketAddress peer, int timeoutMillis) throws VerbsException {
        // From the listener's address: the queue pair must be on the device of the SRQ and CQ.
        id(id).resolveAddress(new InetSocketAddress(local.getAddress(), 0), peer, timeoutMillis);
    }

    @Override
    public void resolveRoute(long id, int timeoutMillis) throws VerbsException {
        id(id).resolveRoute(timeoutMillis);
    }

    @Override
    public int createQueuePair(long id, int sendDepth) throws VerbsException {
        CmId cmId = id(id);
        if (!context.equals(cmId.verbsContext())) {
            throw new VerbsException("rdma_create_qp (the id is on another device than the listener's)", ENODEV);
        }
        if (sendDepth > maxQueueDepth) {
            throw new VerbsException("rdma_create_qp (" + sendDepth + " sends asked for; the device allows "
                    + maxQueueDepth + ")", EINVAL);
        }
        return cmId.createQueuePair(pd, new QueuePairConfig(cq, cq, sendDepth, 1, 1, 1, 0, false), srq).qpNum();
    }

    @Override
    public void connect(long id, byte[] privateData, int rnrRetryCount) throws VerbsException {
        id(id).connect(new ConnectionParameters(privateData, readDepth, readDepth, RETRY_COUNT, rnrRetryCount));
    }

    @Override
    public void accept(long id, byte[] privateData, int rnrRetryCount) throws VerbsException {
        id(id).accept(new ConnectionParameters(privateData, readDepth, readDepth, RETRY_COUNT, rnrRetryCount));
    }

    @Override
    public void reject(long id, byte[] privateData) throws VerbsException {
        id(id).reject(privateData);
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
        numbers.remove(cmId);
        cmId.close();
    }

    @Override
    public Registration register(ByteBuffer memory, boolean remoteRead, boolean remoteWrite) throws VerbsException {
        if (pd == null) {
            throw new VerbsException("ibv_reg_mr (no device yet: listen first)", ENODEV);
        }
        List<Access> rights = new ArrayList<>(List.of(Access.LOCAL_WRITE));
        if (remoteRead) {
            rights.add(Access.REMOTE_READ);
        }
        if (remoteWrite) {
            rights.add(Access.REMOTE_WRITE);
        }
        MemoryRegion region;
        try {
            region = pd.register(MemorySegment.ofBuffer(memory), rights.toArray(Access[]::new));
        } catch (VerbsException e) {
            if (e.errno() == ENOMEM) {
                return null;
            }
            throw e;
        }
        Registration registration = new Registration(region.address(), region.length(), region.lkey(), region.rkey());
        regions.put(registration, region);
        return registration;
    }

    @Override
    public void deregister(Registration registration) throws VerbsException {
        MemoryRegion region = regions.remove(registration);
        if (region != null) {
            region.close();
        }
    }

    @Override
    public boolean postReceive(long wrId, long address, int length, int lkey) throws VerbsException {
        return srq.tryPost(receive.reset(wrId).add(address, length, lkey));
    }

    @Override
    public boolean postSend(long id, long wrId, long address, int length, int lkey) throws VerbsException {
        return id(id).queuePair().tryPost(send.reset(wrId).send().add(address, length, lkey).signaled());
    }

    @Override
    public boolean postRead(long id, long wrId, long address, int length, int lkey, long remoteAddress, int rkey)
            throws VerbsException {
        return id(id).queuePair().tryPost(send.reset(wrId).rdmaRead(remoteAddress, rkey).add(address, length, lkey)
                .signaled());
    }

    @Override
    public boolean postWrite(long id, long wrId, long address, int length, int lkey, long remoteAddress, int rkey)
            throws VerbsException {
        return id(id).queuePair().tryPost(send.reset(wrId).rdmaWrite(remoteAddress, rkey).add(address, length, lkey)
                .signaled());
    }

    @Override
    public int poll(Events events) throws VerbsException {
        poller.poll(0);
        int n = poller.isReadable(cmIndex) ? drainCm(events) : 0;
        n += drainCompletions(events);
        if (asyncIndex >= 0 && poller.isReadable(asyncIndex)) {
            n += drainAsync(events);
        }
        return n;
    }

    private int drainCm(Events events) throws VerbsException {
        int n = 0;
        CmEvent next;
        while ((next = channel.getEvent()) != null) {
            n++;
            byte[] privateData;
            Long id;
            try (CmEvent event = next) {
                privateData = event.privateData();
                id = numbers.get(event.id());
                if (id == null && event.type() == CmEventType.CONNECT_REQUEST) {
                    id = adopt(event.id());
                }
            }
            // An event of an id already destroyed concerns nothing the device keeps.
            if (id != null) {
                events.cmEvent(id, next.type(), privateData);
            }
        }
        return n;
    }

    @Override
    public void requestNotification() throws VerbsException {
        if (cq != null) {
            cq.requestNotify(false);
        }
    }

    @Override
    public void await() throws VerbsException {
        sleeper.poll(-1);
    }

    @Override
    public void interruptAwait() {
        try {
            sleeper.wakeup();
        } catch (VerbsException e) {
            // an eventfd that cannot be written is full: the wake-up is there already
        }
    }

    private int drainCompletions(Events events) throws VerbsException {
        if (cq == null) {
            return 0;
        }
        // The notifications a requested completion left, taken so that the channel reads empty again.
        CompletionQueue notified;
        do {
            notified = completionChannel.getEvent();
        } while (notified != null);
        cq.ackEvents();
        int total = 0;
        int n;
        do {
            n = cq.poll(completions);
            for (int i = 0; i < n; i++) {
                events.completion(completions.qpNum(i), completions.wrId(i), completions.status(i),
                        completions.byteLength(i));
            }
            total += n;
        } while (n == completions.capacity());
        return total;
    }

    private int drainAsync(Events events) throws VerbsException {
        int n = 0;
        AsyncEvent event;
        while ((event = context.getAsyncEvent()) != null) {
            n++;
            if (BREAKS_QUEUE_PAIR.contains(event.type())) {
                LOG.warn("device {}: {}", context.deviceName(), event);
                events.queuePairFailed(event.qpNum());
            } else {
                LOG.debug("device {}: {}", context.deviceName(), event);
            }
        }
        return n;
    }

    @Override
    public void close() {
        try {
            for (long id : new ArrayList<>(ids.keySet())) {
                destroy(id);
            }
            for (MemoryRegion region : regions.values()) {
                region.close();
            }
            regions.clear();
            if (srq != null) {
                srq.close();
            }
            if (cq != null) {
                cq.close();
            }
            if (completionChannel != null) {
                completionChannel.close();
            }
            if (pd != null) {
                pd.close();
            }
        } catch (VerbsException e) {
            LOG.warn("releasing the verbs device failed: {}", e.getMessage());
        } finally {
            poller.close();
            sleeper.close();
            channel.close();
        }
    }
}
