package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.fabric.rc.PostedWork.Kind;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RC connection of an {@link RcFabric}: an RDMA-CM id and its queue pair, the work posted on it,
 * and its state. Progress thread only, but for {@link #tearDown}, which the fabric's reaper runs.
 *
 * <h2>States</h2>
 * A requester's connection resolves the peer's address, then the route, then makes its queue pair,
 * posts the receives it was given and sends the CM REQ; a responder's makes its queue pair, posts its
 * receives and sends the REP. Both are up at ESTABLISHED. Anything that ends the connection (a CM
 * event, a failed completion, a broken queue pair, {@link #close}) calls {@code rdma_disconnect},
 * which puts the queue pair in the error state: everything posted comes back flushed, and when
 * nothing is outstanding any more the listener hears {@link ConnectionListener#onDisconnected} once,
 * with the first cause, and the fabric's reaper releases the windows, the id, queue pair and slots.
 *
 * <h2>Work requests</h2>
 * Each posted request has a {@code wr_id} unique on the connection, mapped to what the listener must
 * get back; completions find the connection by their queue pair number ({@link RcFabric}). An RDMA
 * Read or Write names its local bytes with a scatter/gather list, an entry per pool block they lie in
 * ({@link LocalRegion#gather}); a list longer than the device takes in one request is cut into
 * several requests on consecutive remote bytes, and the listener hears once, when all are back.
 *
 * <h2>Work held back for a copy</h2>
 * The fabric copies a registration's bytes into its memory outside the turn ({@link RcMemory}), after
 * the transport has registered it and posted what reads it. Until the copy is made, that work waits
 * here, in order, with what is posted after it (a send queue runs in order): an RDMA naming the
 * region, and, while memory registered for this connection is filled, every Send, one of which
 * carries its key to the peer. The transport hears it posted; it counts against the send queue's depth
 * as if it were, and flushes with the rest when the connection ends.
 *
 * <h2>Memory windows</h2>
 * A requester's connection on a device with type 2 windows binds one ({@link ChunkWindows}) over each
 * chunk registration of a call ({@link #bind}), and ends its key when the call's memory is released
 * ({@link #unbind}): the peer's Send with Invalidate, seen on a receive's completion, or a local
 * invalidate; the memory goes back to the fabric once the key reaches nothing.
 */
final class RcConnection implements FabricConnection {

    private static final Logger LOG = LoggerFactory.getLogger(RcConnection.class);
    /**
     * Send queue entries a window may hold at once: the local invalidate of its parking and its bind
     * when a call takes it, the local invalidate when the call ends, and the bind that parks it.
     */
    private static final int WINDOW_OPERATIONS = 4;

    enum State { RESOLVING, CONNECTING, ESTABLISHED, ENDING, CLOSED }

    /** A message received before ESTABLISHED. */
    private record EarlyMessage(ByteBuffer buffer, int length) {
    }

    /** Posts work requests taken already; false if the device's queue was full and took none. */
    @FunctionalInterface
    private interface Post {
        boolean post() throws VerbsException;
    }

    /**
     * A Send or an RDMA held back until a copy is made.
     *
     * @param reads the region it reads, or null for a Send
     * @param wrIds its work requests, taken: the first one completes in error if it cannot be posted
     * @param post  posts them
     */
    private record HeldWork(LocalRegion reads, long[] wrIds, Post post) {
    }

    private final RcFabric fabric;
    private final RcDevice device;
    private final long id;
    private final FabricAddress peer;
    private final ConnectionListener listener;
    private final boolean requester;
    private final PostedWork ops = new PostedWork();
    /** Receives given before the queue pair exists, posted when it is made. */
    private final List<ByteBuffer> early = new ArrayList<>();
    /**
     * Messages that completed before the CM reported ESTABLISHED (the peer may send as soon as it has
     * the REP or RTU, and the completion queue and the CM channel are read apart): the listener hears
     * them after {@link ConnectionListener#onEstablished}.
     */
    private final List<EarlyMessage> beforeEstablished = new ArrayList<>();
    private State state;
    private ConnectPrivateData peerData = ConnectPrivateData.DEFAULT;
    private InetSocketAddress localSocket;
    private InetSocketAddress remoteSocket;
    private int qpNum = -1;
    /** A requester's windows when the device has them, else null. */
    private ChunkWindows windows;
    /** Regions whose window's local invalidate is posted, by its work request. */
    private final Map<Long, LocalRegion.Windowed> invalidating = new HashMap<>();
    /**
     * Regions released while their window could not be invalidated (the queue pair is in the error
     * state): their memory is released when the queue pair is destroyed.
     */
    private final List<LocalRegion.Windowed> retired = new ArrayList<>();
    private BounceSlots receiveSlots;
    private BounceSlots sendSlots;
    /** Set on the progress thread once the reaper has destroyed the windows and the queue pair. */
    private boolean queuePairGone;
    /** The windows the reaper deallocated, for the fabric's gauge, counted back on the progress thread. */
    private int windowsDeallocated;
    private int sendsOutstanding;
    /** Sends and RDMA waiting for copies into the memory they can expose, in the order posted. */
    private final ArrayDeque<HeldWork> held = new ArrayDeque<>();
    /** Copies into memory registered for this connection being made: its Sends wait for them. */
    private int filling;
    private FabricStatus cause;
    private String causeDetail;

    /**
     * @param requester whether this side connects (and reads the peer's data from the REP) rather than
     *                  accepts (and has it from the REQ)
     */
    RcConnection(RcFabric fabric, RcDevice device, long id, FabricAddress peer, ConnectionListener listener,
                 boolean requester) {
        this.fabric = fabric;
        this.device = device;
        this.id = id;
        this.peer = peer;
        this.listener = listener;
        this.requester = requester;
        this.state = requester ? State.RESOLVING : State.CONNECTING;
    }

    long id() {
        return id;
    }

    int qpNum() {
        return qpNum;
    }

    State state() {
        return state;
    }

    /** Remembers the requester's data from the CM REQ, for {@link ConnectionListener#onEstablished}. */
    void peerData(ConnectPrivateData data) {
        peerData = data;
    }

    /** Builds the two socket addresses once, from RDMA-CM's own source and destination of the id. */
    void addressesKnown() {
        if (localSocket == null) {
            localSocket = fabric.socketAddress(device.localAddress(id));
            remoteSocket = fabric.socketAddress(device.peerAddress(id));
        }
    }

    /**
     * Makes the queue pair and the connection's slots and posts the receives given so far. The
     * receive queue is as deep as the receives the transport gave (its credits and backchannel
     * receives), so the queue pair posts exactly what the transport keeps posted.
     *
     * @throws VerbsException if the device refuses (a depth over its {@code max_qp_wr}, no room in
     *                        the completion queue); the caller ends the connection
     */
    void createQueuePair(RcFabric.Config config) throws VerbsException {
        int receiveDepth = Math.max(1, early.size());
        int sendDepth = config.sendDepth();
        if (requester && device.memoryWindows(id)) {
            // Room beside the Sends for the operations of every window.
            windows = new ChunkWindows(device, config.sendDepth(), fabric::windowsAllocated);
            sendDepth += WINDOW_OPERATIONS * windows.max();
        }
        qpNum = device.createQueuePair(id, sendDepth, receiveDepth);
        fabric.routed(this);
        receiveSlots = new BounceSlots(device, receiveDepth, config.slotSize());
        sendSlots = new BounceSlots(device, config.sendDepth(), config.slotSize());
        for (ByteBuffer buffer : early) {
            postReceive(buffer);
        }
        fabric.receivesPosted(-early.size());
        early.clear();
    }

    /**
     * The CM said ESTABLISHED.
     *
     * @param privateData the event's private data: the REP's room on the requester
     */
    void established(byte[] privateData) {
        if (state != State.CONNECTING) {
            return;
        }
        state = State.ESTABLISHED;
        addressesKnown();
        listener.onEstablished(requester ? CmPrivateData.recognise(privateData) : peerData);
        for (EarlyMessage message : beforeEstablished) {
            listener.onReceived(message.buffer(), message.length());
        }
        beforeEstablished.clear();
    }

    void connecting() {
        state = State.CONNECTING;
    }

    @Override
    public FabricAddress peer() {
        return peer;
    }

    /** @return this side's RDMA-CM address; null until the requester's address is resolved */
    @Override
    public InetSocketAddress localSocketAddress() {
        return localSocket;
    }

    /** @return the peer's RDMA-CM address; null until the requester's address is resolved */
    @Override
    public InetSocketAddress remoteSocketAddress() {
        return remoteSocket;
    }

    @Override
    public boolean postReceive(ByteBuffer buffer) {
        if (state == State.CLOSED) {
            return false;
        }
        if (receiveSlots == null) {
            if (state == State.ENDING) {
                return false;
            }
            early.add(buffer);
            fabric.receivesPosted(1);
            return true;
        }
        MemorySegment bytes = MemorySegment.ofBuffer(buffer);
        int lkey = fabric.messages().lkey(bytes);
        int slot = -1;
        if (lkey < 0) {
            // Heap memory: received in a slot and copied out.
            checkFits(buffer.remaining(), receiveSlots);
            slot = receiveSlots.take();
            if (slot < 0) {
                return false;
            }
            bytes = receiveSlots.slot(slot);
            lkey = receiveSlots.lkey();
        }
        long wrId = ops.add(Kind.RECEIVE, buffer, 0, slot, null);
        fabric.receivesPosted(1);
        if (state == State.ENDING) {
            fabric.later(() -> completed(wrId, WcStatus.WR_FLUSH_ERR, 0));
            return true;
        }
        try {
            return posted(wrId, device.postReceive(id, wrId, bytes.address(), buffer.remaining(), lkey));
        } catch (VerbsException e) {
            return failedToPost(wrId, "ibv_post_recv failed: " + e.getMessage());
        }
    }

    @Override
    public boolean send(ByteBuffer message, long context) {
        return send(message, context, false, 0);
    }

    /** Whether the device can Send with Invalidate; the transport asks only once the connection is up. */
    @Override
    public boolean remoteInvalidation() {
        return device.remoteInvalidation();
    }

    @Override
    public boolean sendInvalidating(ByteBuffer message, int handle, long context) {
        if (!device.remoteInvalidation()) {
            throw new UnsupportedOperationException("the device cannot Send with Invalidate");
        }
        return send(message, context, true, handle);
    }

    private boolean send(ByteBuffer message, long context, boolean invalidate, int rkey) {
        if (!readyToSend()) {
            return false;
        }
        MemorySegment bytes = MemorySegment.ofBuffer(message);
        int lkey = fabric.messages().lkey(bytes);
        int slot = -1;
        if (lkey < 0) {
            // Heap memory: copied into a slot and sent from it.
            checkFits(message.remaining(), sendSlots);
            slot = sendSlots.take();
            if (slot < 0) {
                return false;
            }
            MemorySegment.copy(bytes, 0, sendSlots.slot(slot), 0, message.remaining());
            fabric.memory().copied(message.remaining());
            bytes = sendSlots.slot(slot);
            lkey = sendSlots.lkey();
        }
        long wrId = ops.add(Kind.SEND, null, context, slot, null);
        sendsPosted(1);
        if (state == State.ENDING) {
            fabric.later(() -> completed(wrId, WcStatus.WR_FLUSH_ERR, 0));
            return true;
        }
        long address = bytes.address();
        int length = message.remaining();
        int key = lkey;
        if (mustHold(null)) {
            hold(null, new long[] {wrId}, () -> postSend(wrId, address, length, key, invalidate, rkey));
            return true;
        }
        try {
            return posted(wrId, postSend(wrId, address, length, key, invalidate, rkey));
        } catch (VerbsException e) {
            return failedToPost(wrId, "ibv_post_send failed: " + e.getMessage());
        }
    }

    private boolean postSend(long wrId, long address, int length, int lkey, boolean invalidate, int rkey)
            throws VerbsException {
        return invalidate ? device.postSendWithInvalidate(id, wrId, address, length, lkey, rkey)
                : device.postSend(id, wrId, address, length, lkey);
    }

    @Override
    public boolean read(Registration local, long localOffset, Segment remote, long context) {
        return rdma(Kind.READ, local, localOffset, remote, context);
    }

    @Override
    public boolean write(Registration local, long localOffset, Segment remote, long context) {
        return rdma(Kind.WRITE, local, localOffset, remote, context);
    }

    private boolean rdma(Kind kind, Registration local, long localOffset, Segment remote, long context) {
        if (!readyToSend()) {
            return false;
        }
        LocalRegion region = fabric.memory().region(local);
        long length = remote.unsignedLength();
        if (localOffset < 0 || localOffset + length > local.length()) {
            throw new IllegalArgumentException("[" + localOffset + ", +" + length + ") is outside " + local);
        }
        List<List<RcDevice.Sge>> requests = requests(region.gather(localOffset, length),
                kind == Kind.READ ? device.maxReadSge() : device.maxWriteSge());
        int depth = fabric.config().sendDepth();
        if (requests.size() > depth) {
            throw new IllegalArgumentException("[" + localOffset + ", +" + length + ") of " + local + " needs "
                    + requests.size() + " work requests; the send queue holds " + depth);
        }
        if (sendsOutstanding + requests.size() > depth) {
            return false;
        }
        PostedWork.RdmaParts parts = new PostedWork.RdmaParts(requests.size());
        long[] wrIds = new long[requests.size()];
        for (int i = 0; i < wrIds.length; i++) {
            wrIds[i] = ops.add(kind, null, context, -1, parts);
            sendsPosted(1);
        }
        if (state == State.ENDING) {
            for (long wrId : wrIds) {
                fabric.later(() -> completed(wrId, WcStatus.WR_FLUSH_ERR, 0));
            }
            return true;
        }
        if (mustHold(region)) {
            hold(region, wrIds, () -> postRdma(kind, wrIds, requests, remote, parts, false));
            return true;
        }
        return postRdma(kind, wrIds, requests, remote, parts, true);
    }

    /**
     * Posts the work requests of an RDMA, on consecutive remote bytes.
     *
     * @param mayRefuse whether a full queue before the first request is room to wait for: the RDMA is
     *                  taken back; otherwise (work held back, which the transport counts as posted), and
     *                  after the first, a failure that ends the connection
     * @return false if the RDMA was taken back
     */
    private boolean postRdma(Kind kind, long[] wrIds, List<List<RcDevice.Sge>> requests, Segment remote,
                             PostedWork.RdmaParts parts, boolean mayRefuse) {
        String what = kind == Kind.READ ? "RDMA Read" : "RDMA Write";
        long remoteAddress = remote.offset();
        for (int posted = 0; posted < requests.size(); posted++) {
            List<RcDevice.Sge> sges = requests.get(posted);
            String failure = null;
            try {
                boolean queued = kind == Kind.READ
                        ? device.postRead(id, wrIds[posted], sges, remoteAddress, remote.handle())
                        : device.postWrite(id, wrIds[posted], sges, remoteAddress, remote.handle());
                if (!queued && posted == 0 && mayRefuse) {
                    for (long wrId : wrIds) {
                        release(ops.remove(wrId));
                    }
                    return false;
                }
                if (!queued) {
                    // Once part of it is posted it cannot be taken back: no room to wait for then.
                    failure = what + " found the send queue full" + (posted == 0 ? "" : " midway");
                }
            } catch (VerbsException e) {
                failure = what + " failed: " + e.getMessage();
            }
            if (failure != null) {
                for (int never = posted + 1; never < wrIds.length; never++) {
                    release(ops.remove(wrIds[never]));
                }
                parts.neverPosted(wrIds.length - posted - 1);
                return failedToPost(wrIds[posted], failure);
            }
            for (RcDevice.Sge sge : sges) {
                remoteAddress += sge.length();
            }
        }
        return true;
    }

    /** @return whether work must wait: behind work held back, or for a copy into what it can expose */
    private boolean mustHold(LocalRegion reads) {
        return filling > 0 || !held.isEmpty() || fabric.memory().filling(reads);
    }

    private void hold(LocalRegion reads, long[] wrIds, Post post) {
        held.add(new HeldWork(reads, wrIds, post));
        fabric.memory().holding(this);
    }

    /** A copy into memory registered for this connection begins: its Sends wait until it is made. */
    void filling() {
        filling++;
    }

    /** That copy is made; the fabric then drains what connections hold back ({@link #drain}). */
    void filled() {
        filling--;
    }

    /** Posts the work held back, in order, as far as the copies it waits for are made. */
    void drain() {
        while (!held.isEmpty() && !(filling > 0 || fabric.memory().filling(held.peek().reads()))) {
            HeldWork work = held.poll();
            try {
                if (!work.post().post()) {
                    failedToPost(work.wrIds()[0], "the send queue was full for work held back for a copy");
                }
            } catch (VerbsException e) {
                failedToPost(work.wrIds()[0], "ibv_post_send failed: " + e.getMessage());
            }
        }
        if (held.isEmpty()) {
            fabric.memory().notHolding(this);
        }
    }

    /**
     * @return the scatter/gather list cut into work requests of at most {@code maxSge} entries each;
     *     one request with none for no bytes
     */
    private static List<List<RcDevice.Sge>> requests(List<RcDevice.Sge> sges, int maxSge) {
        if (sges.isEmpty()) {
            return List.of(sges);
        }
        List<List<RcDevice.Sge>> requests = new ArrayList<>((sges.size() + maxSge - 1) / maxSge);
        for (int at = 0; at < sges.size(); at += maxSge) {
            requests.add(sges.subList(at, Math.min(sges.size(), at + maxSge)));
        }
        return requests;
    }

    /** @return whether chunk memory a peer reaches over this connection goes through its windows */
    boolean windowed() {
        return windows != null;
    }

    /**
     * Binds a free window over registered memory for the peer, posted before anything posted after
     * it, so that the call's Send, which carries the key, is not waited for.
     *
     * @return the window, its key the one to give the peer; null if the connection is not up, has
     *     every window in use, or the bind could not be posted
     */
    ChunkWindows.Window bind(RcDevice.Memory memory, long address, long length, Set<MemoryAccess> rights) {
        if (windows == null || state != State.ESTABLISHED) {
            return null;
        }
        ChunkWindows.Window window;
        try {
            window = windows.take();
        } catch (VerbsException e) {
            LOG.warn("{}: ibv_alloc_mw failed: {}", this, e.getMessage());
            return null;
        }
        if (window == null) {
            return null;
        }
        long wrId = 0;
        try {
            if (window.parked()) {
                wrId = windowOperation(Kind.INVALIDATE);
                device.postLocalInvalidate(id, wrId, window.rkey());
                windows.invalidatedLocally(window);
            }
            wrId = windowOperation(Kind.BIND);
            device.postBind(id, wrId, window.handle(), windows.bindKey(window), memory, address, length, rights);
            return window;
        } catch (VerbsException e) {
            // The send queue has room for every window's operations: the queue pair is broken. The
            // window stays out of the free list until it is deallocated with the queue pair.
            ops.remove(wrId);
            fail(FabricStatus.FABRIC_ERROR, "binding a memory window failed: " + e.getMessage());
            return null;
        }
    }

    private long windowOperation(Kind kind) {
        return ops.add(kind, null, 0, -1, null);
    }

    /** Parks a window invalidated locally (see {@link ChunkWindows}) and frees it. */
    private void park(ChunkWindows.Window window) {
        if (state != State.ESTABLISHED) {
            return; // the queue pair is in the error state: no peer names the key through it any more
        }
        long wrId = windowOperation(Kind.BIND);
        try {
            RcDevice.Memory parking = fabric.memory().parking();
            device.postBind(id, wrId, window.handle(), windows.parkKey(window), parking, parking.address(), 1,
                    Set.of());
            windows.free(window);
        } catch (VerbsException e) {
            ops.remove(wrId);
            fail(FabricStatus.FABRIC_ERROR, "parking a memory window failed: " + e.getMessage());
        }
    }

    /**
     * The transport released a region reached through one of this connection's windows, its bytes
     * copied out. Its memory goes back once the window's key reaches nothing: at once if the peer
     * invalidated it or the queue pair is gone, after a local invalidate if the connection is up,
     * with the queue pair if it is ending or its teardown has not destroyed it yet (a type 2 window
     * is reached only through its queue pair, and one in the error state takes no requests).
     */
    void unbind(LocalRegion.Windowed region) {
        ChunkWindows.Window window = region.window();
        if (queuePairGone) {
            fabric.memory().release(region);
            return;
        }
        if (state == State.CLOSED) {
            retired.add(region); // the reaper is destroying the queue pair
            return;
        }
        if (!window.valid()) {
            windows.free(window);
            fabric.memory().release(region);
            return;
        }
        if (state == State.ESTABLISHED) {
            long wrId = windowOperation(Kind.INVALIDATE);
            invalidating.put(wrId, region);
            try {
                device.postLocalInvalidate(id, wrId, window.rkey());
                fabric.memory().invalidatingLocally();
                return;
            } catch (VerbsException e) {
                ops.remove(wrId);
                invalidating.remove(wrId);
                fail(FabricStatus.FABRIC_ERROR, "IBV_WR_LOCAL_INV failed: " + e.getMessage());
            }
        }
        retired.add(region);
    }

    /** Sends, RDMA and their room: only once up, and within the send queue's depth. */
    private boolean readyToSend() {
        if (state == State.CLOSED) {
            throw new IllegalStateException("the connection has ended: " + this);
        }
        return (state == State.ESTABLISHED || state == State.ENDING) && sendsOutstanding < fabric.config().sendDepth();
    }

    private static void checkFits(int length, BounceSlots slots) {
        if (length > slots.slotSize()) {
            throw new IllegalArgumentException("a " + length + "-byte message does not fit the fabric's "
                    + slots.slotSize() + "-byte slots: configure RcFabric's slot size to the inline sizes");
        }
    }

    /**
     * @param queued whether the device took the request; a full queue is room to wait for, and the
     *               request is taken back
     * @return {@code queued}
     */
    private boolean posted(long wrId, boolean queued) {
        if (!queued) {
            release(ops.remove(wrId));
        }
        return queued;
    }

    /** The request completes in error and the connection ends. */
    private boolean failedToPost(long wrId, String why) {
        fabric.later(() -> completed(wrId, WcStatus.GENERAL_ERR, 0));
        fail(FabricStatus.FABRIC_ERROR, why);
        return true;
    }

    /** Counts Sends, RDMA Reads and Writes posted (positive) or back (negative), here and in the fabric's gauge. */
    private void sendsPosted(int count) {
        sendsOutstanding += count;
        fabric.sendsPosted(count);
    }

    private void release(PostedWork.Work op) {
        switch (op.kind()) {
            case RECEIVE -> {
                if (op.slot() >= 0) {
                    receiveSlots.give(op.slot());
                }
                fabric.receivesPosted(-1);
            }
            case SEND -> {
                if (op.slot() >= 0) {
                    sendSlots.give(op.slot());
                }
                sendsPosted(-1);
            }
            case READ, WRITE -> sendsPosted(-1);
            case BIND, INVALIDATE -> {
                // within the room made for windows at the queue pair's creation
            }
        }
    }

    /**
     * A work completion of this connection's queue pair, from the device or made up for a request the
     * device never saw.
     */
    void completed(long wrId, WcStatus wcStatus, int byteLength) {
        completed(wrId, wcStatus, byteLength, RcDevice.NOT_INVALIDATED);
    }

    /**
     * A work completion, as {@link #completed(long, WcStatus, int)}.
     *
     * @param invalidated for a Send with Invalidate received, the key the peer invalidated, else
     *                    {@link RcDevice#NOT_INVALIDATED}
     */
    void completed(long wrId, WcStatus wcStatus, int byteLength, long invalidated) {
        if (invalidated != RcDevice.NOT_INVALIDATED) {
            if (windows != null && windows.invalidatedRemotely((int) invalidated)) {
                fabric.memory().invalidatedRemotely();
            } else {
                LOG.debug("{}: the peer invalidated key {}, no window of ours", this, Long.toHexString(invalidated));
            }
        }
        PostedWork.Work op = ops.remove(wrId);
        if (op == null) {
            // A real flush after this side flushed what rdma_disconnect may have left posted.
            LOG.debug("{}: a completion for unknown work request {} ({})", this, wrId, wcStatus.description());
            return;
        }
        // The record is free for the next post, which a listener may make: read it now.
        Kind kind = op.kind();
        ByteBuffer buffer = op.buffer();
        long context = op.context();
        int slot = op.slot();
        PostedWork.RdmaParts parts = op.parts();
        release(op);
        FabricStatus status = RcStatus.of(wcStatus);
        fabric.completed(status);
        switch (kind) {
            case RECEIVE -> {
                if (status.ok()) {
                    if (slot >= 0) {
                        MemorySegment.copy(receiveSlots.slot(slot), 0, MemorySegment.ofBuffer(buffer), 0, byteLength);
                        fabric.memory().copied(byteLength);
                    }
                    if (state == State.CONNECTING) {
                        beforeEstablished.add(new EarlyMessage(buffer, byteLength));
                    } else {
                        listener.onReceived(buffer, byteLength);
                    }
                } else {
                    listener.onReceiveFailed(buffer, status);
                }
            }
            case SEND -> listener.onSendCompleted(context, status);
            case READ, WRITE -> {
                FabricStatus whole = parts.completed(status);
                if (whole != null) {
                    listener.onRdmaCompleted(context, whole);
                }
            }
            case BIND -> {
                // a failed bind ends the connection below; its call fails with it
            }
            case INVALIDATE -> {
                LocalRegion.Windowed region = invalidating.remove(wrId);
                if (region == null) {
                    break; // a parked window's, ahead of its bind
                }
                if (status.ok()) {
                    windows.invalidatedLocally(region.window());
                    fabric.memory().release(region);
                    park(region.window());
                } else {
                    retired.add(region);
                }
            }
        }
        if (!status.ok() && status != FabricStatus.FLUSHED) {
            // The queue pair is in the error state: the rest of the connection's work flushes.
            fail(status, kind + " failed: " + wcStatus.description());
        }
        finishIfDrained();
    }

    @Override
    public void close() {
        fail(FabricStatus.CLOSED, "closed by this side");
    }

    /**
     * Ends the connection for a reason; the first reason is the one the listener hears.
     *
     * @param status why
     * @param detail what the device or the peer said
     */
    void fail(FabricStatus status, String detail) {
        if (state == State.ENDING || state == State.CLOSED) {
            return;
        }
        LOG.debug("{}: ending, {}: {}", this, status, detail);
        state = State.ENDING;
        cause = status;
        causeDetail = detail;
        for (ByteBuffer buffer : early) {
            fabric.later(() -> listener.onReceiveFailed(buffer, FabricStatus.FLUSHED));
        }
        fabric.receivesPosted(-early.size());
        early.clear();
        // Messages the listener never saw, as it never heard the connection was up: flushed too.
        for (EarlyMessage message : beforeEstablished) {
            fabric.later(() -> listener.onReceiveFailed(message.buffer(), FabricStatus.FLUSHED));
        }
        beforeEstablished.clear();
        // Work held back for a copy was never posted: it flushes as posted work does.
        for (HeldWork work : held) {
            for (long wrId : work.wrIds()) {
                fabric.later(() -> completed(wrId, WcStatus.WR_FLUSH_ERR, 0));
            }
        }
        held.clear();
        fabric.memory().notHolding(this);
        if (qpNum >= 0) {
            try {
                device.disconnect(id);
            } catch (VerbsException e) {
                // The queue pair may not be in the error state: what is posted would never come back.
                LOG.debug("{}: rdma_disconnect failed ({}); flushing here", this, e.getMessage());
                for (long wrId : ops.outstanding()) {
                    fabric.later(() -> completed(wrId, WcStatus.WR_FLUSH_ERR, 0));
                }
            }
        }
        fabric.later(this::finishIfDrained);
    }

    /**
     * Once nothing posted is outstanding: reports the end, then hands the windows, the queue pair, the
     * id and the slots to the fabric's reaper, off the progress thread; the memory the windows reached
     * goes back when they are gone.
     */
    private void finishIfDrained() {
        if (state != State.ENDING || !ops.isEmpty()) {
            return;
        }
        state = State.CLOSED;
        fabric.forget(this);
        listener.onDisconnected(cause, causeDetail);
        fabric.reap(this);
    }

    /** The reaper's part, on its thread: the verbs objects, in the order rxe needs. */
    void tearDown() {
        try {
            if (windows != null) {
                // Before the queue pair: on rxe a bound type 2 window holds a reference on its queue
                // pair, which destroying the queue pair waits for in vain (a kernel warning, then a
                // queue pair freed under the window's reference).
                windowsDeallocated = windows.close();
            }
            device.destroy(id);
            if (receiveSlots != null) {
                receiveSlots.close();
                sendSlots.close();
            }
        } catch (VerbsException | RuntimeException e) {
            LOG.warn("{}: releasing the windows, the queue pair or its slots failed: {}", this, e.toString());
        }
    }

    /** Back on the progress thread: the queue pair is gone, and with it every way to the windows' memory. */
    void tornDown() {
        queuePairGone = true;
        fabric.windowsAllocated(-windowsDeallocated);
        retired.forEach(fabric.memory()::release);
        retired.clear();
    }

    @Override
    public String toString() {
        return "rc " + (localSocket == null ? "?" : localSocket) + " -> " + (remoteSocket == null ? peer : remoteSocket)
                + " qp " + qpNum;
    }
}
