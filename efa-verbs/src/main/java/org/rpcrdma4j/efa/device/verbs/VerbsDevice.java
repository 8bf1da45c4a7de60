package org.rpcrdma4j.efa.device.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.DeviceAttributes;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.PostChecks;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.device.udp.UdpAddresses;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Device} SPI on a RoCE or InfiniBand NIC, which has no SRD: one RC queue pair per peer,
 * set up on demand by RDMA-CM and hidden behind the SPI's datagram addressing, as libfabric's RxM
 * layers reliable datagrams over verbs RC (docs/ARCHITECTURE.md, "The verbs device").
 *
 * <ul>
 *   <li><b>Addressing.</b> GID = the NIC's IP address (IPv4 as {@code ::ffff:a.b.c.d}, the RoCEv2
 *       GID of an IPv4 interface), QPN = the RDMA-CM port the device listens on, Q-Key = a random
 *       number drawn at open: the device's incarnation. The first operation towards a (GID, QPN)
 *       connects to that port; the REQ and REP carry both sides' whole addresses
 *       ({@link ConnectData}), so the passive side knows the peer by its listening port and either
 *       side tells a restarted peer (another Q-Key) from the one before. Operations wait in the
 *       connection, within the SPI's send queue, until it is established. Two peers that connect to
 *       each other at once keep the connection the lower address (GID, then QPN) made: the higher
 *       accepts the lower's request and moves its waiting work onto it; the lower refuses the
 *       higher's with a "collision" REJ, on which the higher connects again if it has not seen the
 *       lower's request yet.</li>
 *   <li><b>Exactly once, and the receiver's verdict.</b> RC delivers in order, exactly once, while the
 *       connection lives. Messages land in the device's own buffers on one shared receive queue
 *       (SRQ) whatever peer sent them, since the SPI's receives are device-wide; the device copies
 *       each into the oldest buffer the SPI posted and answers the sender with a RESULT
 *       ({@link Frame}): OK, receiver not ready (no buffer posted: the packet is dropped) or buffer
 *       too short (the buffer stays posted). The sender's SEND completes with that verdict, as an
 *       EFA send completes with its receiver's. A packet naming another Q-Key is dropped and counted,
 *       its sender told OK, as an EFA queue pair drops it unseen.</li>
 *   <li><b>Receiver not ready.</b> The SPI's RNR is the verdict above, reported to the sender, which
 *       backs off and sends again. The NIC's own RNR (no buffer on the shared receive queue, which
 *       the device reposts as soon as it has copied a message out) is retried by the NIC without end
 *       (RNR retry 7), as Linux RDS configures its RC connections: a finite count would
 *       put the queue pair in the error state and flush every operation behind the one refused, and
 *       with them exactly-once delivery.</li>
 *   <li><b>RDMA.</b> Read and write go to the peer's queue pair as {@code IBV_WR_RDMA_READ}/{@code _WRITE}
 *       against its registration: the NIC checks key, bounds and rights. The local region, the size
 *       and the Q-Key are checked before anything is posted (LOCAL_ERROR_INVALID_LKEY,
 *       LOCAL_ERROR_BAD_LENGTH, LOCAL_ERROR_UNRESP_REMOTE), and a peer that announced no RDMA of that
 *       kind in its private data is REMOTE_ERROR_FEATURE_MISMATCH. A remote access error is
 *       REMOTE_ERROR_BAD_ADDRESS; on RC it also ends the connection (below).</li>
 *   <li><b>Connection loss.</b> A failed work request puts an RC queue pair in the error state: the
 *       device then ends the connection, the failed operation with its own status and every other
 *       one on the connection, waiting, in flight or awaiting its verdict, with
 *       {@code LOCAL_ERROR_UNREACH_REMOTE} (whether a send in flight was delivered is not known), and
 *       so do DISCONNECTED and an asynchronous queue pair error. A connect that fails ends what
 *       waits for it: REJECTED (nothing listens on that port) with {@code REMOTE_ERROR_BAD_DEST_QPN},
 *       address, route and connect errors with {@code LOCAL_ERROR_UNREACH_REMOTE}. The next
 *       operation towards the peer connects again, so a peer that comes back is reachable again.
 *       The flushed work requests come back later and are only counted off; the id is destroyed
 *       once none is left.</li>
 *   <li><b>Bounds.</b> The SPI's queues, the shared receives, the peers with a connection, the
 *       registrations and the heap memory registered through copies ({@link VerbsDeviceConfig}); the device's send memory and receive memory are
 *       registered once at open. Nothing a peer sends sizes an allocation: a message is checked
 *       against its frame ({@link Frame#check}) and the private data against its magic before
 *       either is read.</li>
 * </ul>
 *
 * <p>Buffer ownership is the SPI's: a send's bytes are copied into registered memory at the post; a
 * receive buffer is written only while it is posted; registered memory ({@code registerMemory}) is read
 * and written by the NIC on peers' behalf until deregistered: a direct buffer where it is, a heap
 * buffer (which the NIC cannot pin) through a direct copy registered in its place, filled at
 * registration and copied back at deregistration if it may be written, at most
 * {@link VerbsDeviceConfig#maxCopiedBytes} at once.
 * Not thread-safe: the SPI's one progress thread, which also drives the connections in
 * {@link #pollCompletions}; {@link #counters()} from any thread.
 */
public final class VerbsDevice implements Device {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsDevice.class);

    private static final int KIND_SHIFT = 60;
    private static final long KIND_OP = 1;
    private static final long KIND_RECEIVE = 2;
    private static final long KIND_RESULT = 3;
    /** Requests and polls in one arming before the caller is told to poll instead: the NIC is busy. */
    private static final int ARM_ROUNDS = 4;

    /** A verdict waiting for a free RESULT slot; its message's receive slot waits with it. */
    private record Verdict(PeerConnection connection, int sequence, CompletionStatus status, int receiveSlot) {
    }


    /** A receive buffer the SPI posted. */
    private record PostedReceive(ByteBuffer buffer, long wrId) {
    }

    private final RcNic nic;
    private final VerbsDeviceConfig config;
    private final DeviceAttributes attributes;
    private final DeviceAddress address;
    private final int slotSize;
    private final ByteBuffer memory;
    private final NicMemory.Registration memoryRegistration;
    private final int receiveBase;
    private final int resultBase;
    private final Op[] ops;
    private final ArrayDeque<Op> freeOps = new ArrayDeque<>();
    private final ArrayDeque<Integer> freeResultSlots = new ArrayDeque<>();
    /** The connection each RESULT slot's send went on, until it completes. */
    private final PeerConnection[] resultConnections;
    private final ArrayDeque<Verdict> verdicts = new ArrayDeque<>();
    private final ArrayDeque<PostedReceive> receives = new ArrayDeque<>();
    private final ArrayDeque<Completion> completions = new ArrayDeque<>();
    private final Map<PeerConnection.Name, PeerConnection> byName = new HashMap<>();
    private final Map<Long, PeerConnection> byId = new HashMap<>();
    private final Map<Integer, PeerConnection> byQpNum = new HashMap<>();
    private final Map<Gid, AddressHandle> handles = new HashMap<>();
    private final Set<AddressHandle> liveHandles = Collections.newSetFromMap(new IdentityHashMap<>());
    private final NicRegistrations registrations;
    private final AtomicLongArray counts = new AtomicLongArray(VerbsCounter.values().length);
    private final RcNic.Events events = new Events();
    private final NicNotifier notifier;
    private int nextAhn = 1;
    private int nextSequence;
    private int sendQueueUsed;
    private int recvQueueUsed;
    private boolean closed;

    private VerbsDevice(RcNic nic, VerbsDeviceConfig config, InetSocketAddress bound, int qkey)
            throws VerbsException {
        this.nic = nic;
        this.config = config;
        this.notifier = new NicNotifier(nic, "verbs-device-notifier " + bound.getAddress().getHostAddress() + ":"
                + bound.getPort());
        this.registrations = new NicRegistrations(nic, config.maxRegistrations(), config.maxCopiedBytes(),
                bytes -> counts.addAndGet(VerbsCounter.BYTES_COPIED.ordinal(), bytes));
        this.attributes = new DeviceAttributes(config.mtu(), config.sendQueueDepth(), config.recvQueueDepth(),
                config.maxRdmaSize(), config.capabilities());
        this.address = new DeviceAddress(UdpAddresses.gidOf(bound.getAddress()), bound.getPort(), qkey);
        this.slotSize = Frame.HEADER_LENGTH + config.mtu();
        // An op per SPI send-queue entry and as many again: an op whose completion was polled may still
        // wait for its work request to come back flushed, and must not cost the SPI its room meanwhile.
        final int opCount = 2 * config.sendQueueDepth();
        this.receiveBase = opCount * slotSize;
        this.resultBase = receiveBase + config.sharedReceives() * slotSize;
        this.memory = ByteBuffer.allocateDirect(resultBase + config.sharedReceives() * Frame.HEADER_LENGTH)
                .order(ByteOrder.LITTLE_ENDIAN);
        this.memoryRegistration = nic.register(memory, false, false);
        if (memoryRegistration == null) {
            throw new VerbsException("ibv_reg_mr", 12);
        }
        this.resultConnections = new PeerConnection[config.sharedReceives()];
        this.ops = new Op[opCount];
        for (int i = 0; i < opCount; i++) {
            ops[i] = new Op(i);
            freeOps.add(ops[i]);
        }
        for (int i = 0; i < config.sharedReceives(); i++) {
            freeResultSlots.add(i);
            postSharedReceive(i);
        }
    }

    /**
     * Opens a device on the RDMA device (RoCE or InfiniBand; Soft-RoCE in the rig) that has the
     * configuration's address: listens there with RDMA-CM, registers the device's memory and posts its
     * shared receives. Needs libibverbs and librdmacm, and native access for the {@code verbs} module.
     *
     * @param config what to listen on and the bounds; the address must be the RDMA device's own, as it
     *               is the device's GID
     * @return the device, to be closed by the caller
     * @throws IllegalArgumentException if the address is the wildcard address
     * @throws VerbsException if the libraries are missing, no RDMA device has the address, or the device
     *     refuses the listener, a queue, the registration or a receive
     */
    public static VerbsDevice open(VerbsDeviceConfig config) throws VerbsException {
        Objects.requireNonNull(config, "config");
        if (config.bindAddress().getAddress().isAnyLocalAddress()) {
            throw new IllegalArgumentException("the verbs device's address is its GID: give the RDMA device's own "
                    + "address, not " + config.bindAddress());
        }
        final VerbsRcNic nic = VerbsRcNic.open(completionsOutstanding(config), config.sharedReceives());
        try {
            return open(nic, config);
        } catch (VerbsException | RuntimeException e) {
            nic.close();
            throw e;
        }
    }

    /**
     * The most work requests a device has outstanding at once, over all its queue pairs: its ops, a
     * RESULT per shared receive and the shared receives; the size of a completion queue that never
     * overflows.
     */
    static int completionsOutstanding(VerbsDeviceConfig config) {
        return 2 * config.sendQueueDepth() + 2 * config.sharedReceives();
    }

    /**
     * Opens a device on an {@link RcNic}: registers its memory, posts its shared receives and listens.
     *
     * @param nic    the NIC, which the device owns from now on and closes
     * @param config what to listen on and the bounds
     * @return the device
     * @throws VerbsException if the NIC refuses the listener, the registration or a receive
     */
    static VerbsDevice open(RcNic nic, VerbsDeviceConfig config) throws VerbsException {
        Objects.requireNonNull(nic, "nic");
        Objects.requireNonNull(config, "config");
        final InetSocketAddress bound = nic.listen(config.bindAddress());
        DeviceAddress.requireQpn(bound.getPort());
        return new VerbsDevice(nic, config, bound, new SecureRandom().nextInt() | 1);
    }

    @Override
    public DeviceAddress address() {
        return address;
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    @Override
    public Map<String, Long> counters() {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (VerbsCounter counter : VerbsCounter.values()) {
            map.put(counter.name(), counts.get(counter.ordinal()));
        }
        return map;
    }

    /** @return how often the device counted {@code counter} */
    public long count(VerbsCounter counter) {
        return counts.get(counter.ordinal());
    }

    /** @return how many peers the device holds a connection with (or is connecting to) now */
    public int connections() {
        return byName.size();
    }

    @Override
    public AddressHandle createAddressHandle(Gid gid) {
        checkOpen();
        Objects.requireNonNull(gid, "gid");
        if (handles.containsKey(gid)) {
            throw new IllegalStateException("a handle for " + gid + " exists already");
        }
        final AddressHandle ah = new AddressHandle(nextAhn++, gid);
        handles.put(gid, ah);
        liveHandles.add(ah);
        return ah;
    }

    @Override
    public void destroyAddressHandle(AddressHandle ah) {
        checkOpen();
        checkHandle(ah);
        liveHandles.remove(ah);
        handles.remove(ah.gid());
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, Set<Access> access) {
        checkOpen();
        Objects.requireNonNull(buffer, "memory");
        Objects.requireNonNull(access, "access");
        return registrations.register(buffer, access);
    }

    @Override
    public void deregisterMemory(MemoryRegion region) {
        checkOpen();
        Objects.requireNonNull(region, "region");
        registrations.deregister(region);
    }

    @Override
    public boolean postSend(AddressHandle ah, int qpn, int qkey, ByteBuffer packet, long wrId) {
        checkOpen();
        checkHandle(ah);
        DeviceAddress.requireQpn(qpn);
        Objects.requireNonNull(packet, "packet");
        final Op op = takeOp(wrId, Opcode.SEND, qkey);
        if (op == null) {
            return false;
        }
        if (packet.remaining() > config.mtu()) {
            end(op, CompletionStatus.LOCAL_ERROR_BAD_LENGTH, 0);
            return true;
        }
        op.length = packet.remaining();
        op.sequence = nextSequence++;
        final int at = op.index * slotSize;
        Frame.writeData(memory.slice(at, Frame.HEADER_LENGTH), qkey, op.sequence);
        memory.put(at + Frame.HEADER_LENGTH, packet, packet.position(), op.length);
        route(op, ah.gid(), qpn);
        return true;
    }

    @Override
    public boolean postRecv(ByteBuffer buffer, long wrId) {
        checkOpen();
        PostChecks.receiveBuffer(buffer);
        if (recvQueueUsed >= config.recvQueueDepth()) {
            return false;
        }
        recvQueueUsed++;
        receives.add(new PostedReceive(buffer, wrId));
        return true;
    }

    @Override
    public boolean postRead(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset, RmaIov remote,
                            long wrId) {
        return postRdma(Capability.RDMA_READ, Opcode.RDMA_READ, ah, qpn, qkey, local, localOffset, remote, wrId);
    }

    @Override
    public boolean postWrite(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset,
                             RmaIov remote, long wrId) {
        return postRdma(Capability.RDMA_WRITE, Opcode.RDMA_WRITE, ah, qpn, qkey, local, localOffset, remote, wrId);
    }

    private boolean postRdma(Capability capability, Opcode opcode, AddressHandle ah, int qpn, int qkey,
                             MemoryRegion local, long localOffset, RmaIov remote, long wrId) {
        checkOpen();
        checkHandle(ah);
        DeviceAddress.requireQpn(qpn);
        PostChecks.rdma(this, capability, local, localOffset, remote);
        final Op op = takeOp(wrId, opcode, qkey);
        if (op == null) {
            return false;
        }
        if (remote.length() > config.maxRdmaSize()) {
            end(op, CompletionStatus.LOCAL_ERROR_BAD_LENGTH, 0);
            return true;
        }
        final NicRegistrations.Registered registered = registrations.find(local);
        final boolean needsWrite = opcode == Opcode.RDMA_READ;
        if (registered == null
                || (needsWrite && !local.access().contains(Access.LOCAL_WRITE))
                || localOffset > local.length() || !local.contains(local.address() + localOffset, remote.length())) {
            end(op, CompletionStatus.LOCAL_ERROR_INVALID_LKEY, 0);
            return true;
        }
        op.length = (int) remote.length();
        op.localAddress = registered.nic().address() + localOffset;
        op.lkey = registered.nic().lkey();
        op.remote = remote;
        route(op, ah.gid(), qpn);
        return true;
    }

    @Override
    public int pollCompletions(Consumer<Completion> sink, int max) {
        checkOpen();
        Objects.requireNonNull(sink, "sink");
        if (max < 1) {
            throw new IllegalArgumentException("max " + max + " is below 1");
        }
        progress();
        int handed = 0;
        while (handed < max && !completions.isEmpty()) {
            final Completion completion = completions.poll();
            if (completion.opcode() == Opcode.RECV) {
                recvQueueUsed--;
            } else {
                sendQueueUsed--;
            }
            sink.accept(completion);
            handed++;
        }
        return handed;
    }

    /**
     * Sleeps on the NIC's completion channel, CM channel and asynchronous events, in a thread of the device's
     * own that runs {@code wake} when one has something ({@link NicNotifier}). The NIC's notification is
     * requested, then the NIC polled, until a poll after a request finds nothing: what came before a request
     * would not notify, and a notification the poll took (with what caused it) is spent, leaving the queue
     * unarmed. After {@value #ARM_ROUNDS} rounds that each found something the caller polls instead.
     *
     * @return false if a completion can be polled already, the NIC keeps reporting, or the notifier has stopped
     */
    @Override
    public boolean armCompletionNotification(Runnable wake) {
        checkOpen();
        Objects.requireNonNull(wake, "wake");
        for (int round = 0; round < ARM_ROUNDS && completions.isEmpty(); round++) {
            final int reported;
            try {
                nic.requestNotification();
                reported = nic.poll(events);
            } catch (VerbsException e) {
                throw new IllegalStateException("arming the NIC's notification failed", e);
            }
            if (reported == 0) {
                return completions.isEmpty() && notifier.arm(wake);
            }
        }
        return false;
    }

    /**
     * Takes what the NIC reports (CM events, completions) and acts on it: connections come up and go,
     * messages are delivered and answered, verdicts end sends. {@link #pollCompletions} does it first;
     * a test network with several devices on one thread calls it on each, so that a device whose
     * completions nobody polls still answers its peers. Does nothing once closed.
     */
    void progress() {
        if (closed) {
            return;
        }
        try {
            nic.poll(events);
        } catch (VerbsException e) {
            // The NIC's channel or queue failed: nothing on it can be trusted any more.
            throw new IllegalStateException("polling the NIC failed", e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        notifier.close();
        for (PeerConnection connection : new ArrayList<>(byId.values())) {
            destroy(connection);
        }
        registrations.close();
        registrations.deregister(memoryRegistration);
        nic.close();
        completions.clear();
        receives.clear();
    }

    // --- operations to connections -------------------------------------------------------------

    private Op takeOp(long wrId, Opcode opcode, int qkey) {
        if (sendQueueUsed >= config.sendQueueDepth() || freeOps.isEmpty()) {
            return null;
        }
        sendQueueUsed++;
        final Op op = freeOps.poll();
        op.inUse = true;
        op.ended = false;
        op.onQueuePair = false;
        op.wrId = wrId;
        op.opcode = opcode;
        op.qkey = qkey;
        op.connection = null;
        op.remote = null;
        return op;
    }

    /** Hands the op to the connection to its destination, made now if there is none. */
    private void route(Op op, Gid gid, int qpn) {
        final PeerConnection.Name name = new PeerConnection.Name(gid, qpn);
        PeerConnection connection = byName.get(name);
        if (connection == null) {
            connection = connect(name);
            if (connection == null) {
                end(op, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0);
                return;
            }
        }
        op.connection = connection;
        if (connection.state == PeerConnection.State.ESTABLISHED) {
            post(connection, op);
        } else {
            connection.waiting.add(op);
        }
    }

    /** @return the new connection, or null if none could be started (peers at their bound, the NIC refused) */
    private PeerConnection connect(PeerConnection.Name name) {
        if (byName.size() >= config.maxPeers()) {
            return null;
        }
        final long id;
        try {
            id = nic.createId();
        } catch (VerbsException e) {
            LOG.debug("rdma_create_id failed", e);
            return null;
        }
        final PeerConnection connection = new PeerConnection(name, true, id, PeerConnection.State.RESOLVING);
        byName.put(name, connection);
        byId.put(id, connection);
        try {
            nic.resolveAddress(id, UdpAddresses.socketAddressOf(name.gid(), name.qpn()), config.resolveTimeoutMillis());
        } catch (VerbsException e) {
            failConnect(connection, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, e);
            return null;
        }
        return connection;
    }

    private void post(PeerConnection connection, Op op) {
        if (op.opcode != Opcode.SEND) {
            if (op.qkey != connection.peerQkey) {
                // The Q-Key names another incarnation of the peer than the one that answered.
                end(op, CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE, 0);
                return;
            }
            if (!(op.opcode == Opcode.RDMA_READ ? connection.peerReads : connection.peerWrites)) {
                end(op, CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH, 0);
                return;
            }
        }
        final long token = token(KIND_OP, op.index);
        final boolean posted;
        try {
            posted = switch (op.opcode) {
                case SEND -> nic.postSend(connection.id, token, slotAddress(op.index),
                        Frame.HEADER_LENGTH + op.length, memoryRegistration.lkey());
                case RDMA_READ -> nic.postRead(connection.id, token, op.localAddress, op.length, op.lkey,
                        op.remote.address(), op.remote.key());
                case RDMA_WRITE -> nic.postWrite(connection.id, token, op.localAddress, op.length, op.lkey,
                        op.remote.address(), op.remote.key());
                case RECV -> throw new IllegalStateException("a receive is no send-queue op");
            };
        } catch (VerbsException e) {
            end(op, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0);
            lose(connection, e.getMessage());
            return;
        }
        if (!posted) {
            // The queue pair holds the SPI's whole send queue and a RESULT per shared receive: full is a bug.
            throw new IllegalStateException("the send queue of " + connection + " is full");
        }
        op.onQueuePair = true;
        connection.posted++;
        if (op.opcode == Opcode.SEND) {
            connection.awaitingVerdict.put(op.sequence, op);
        }
    }

    /** Makes the op's SPI completion; the op is free once its work request, if any, is back too. */
    private void end(Op op, CompletionStatus status, int byteLength) {
        if (op.ended) {
            return;
        }
        op.ended = true;
        completions.add(Completion.ofInitiated(op.wrId, op.opcode,
                status, status == CompletionStatus.OK ? byteLength : 0));
        freeIfDone(op);
    }

    private void freeIfDone(Op op) {
        if (op.inUse && op.done()) {
            op.inUse = false;
            op.connection = null;
            freeOps.add(op);
        }
    }

    // --- connection lifecycle ------------------------------------------------------------------

    private final class Events implements RcNic.Events {

        @Override
        public void cmEvent(long id, CmEventType type, byte[] privateData) {
            if (type == CmEventType.CONNECT_REQUEST) {
                onConnectRequest(id, privateData);
                return;
            }
            final PeerConnection connection = byId.get(id);
            if (connection == null) {
                return;
            }
            if (connection.state == PeerConnection.State.ENDED) {
                if (type == CmEventType.ESTABLISHED) {
                    // A request this side gave up (crossed by the peer's) that the peer accepted anyway.
                    disconnect(connection);
                }
                return;
            }
            switch (type) {
                case ADDR_RESOLVED -> resolveRoute(connection);
                case ROUTE_RESOLVED -> sendRequest(connection);
                case ESTABLISHED -> onEstablished(connection, privateData);
                case REJECTED -> onRejected(connection, privateData);
                case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR ->
                        failConnect(connection, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, type);
                case DISCONNECTED, DEVICE_REMOVAL -> lose(connection, type.description());
                default -> {
                    // TIMEWAIT_EXIT and the rest concern nothing the device keeps.
                }
            }
        }

        @Override
        public void completion(int qpNum, long wrId, WcStatus status, int byteLength) {
            final int index = (int) wrId;
            switch ((int) (wrId >>> KIND_SHIFT)) {
                case (int) KIND_RECEIVE -> onReceived(byQpNum.get(qpNum), index, status, byteLength);
                case (int) KIND_RESULT -> onResultSent(index);
                case (int) KIND_OP -> onOpCompleted(ops[index], status);
                default -> throw new IllegalStateException("a work request id the device never gave: " + wrId);
            }
        }

        @Override
        public void queuePairFailed(int qpNum) {
            final PeerConnection connection = byQpNum.get(qpNum);
            if (connection != null) {
                lose(connection, "asynchronous queue pair error");
            }
        }
    }

    private void resolveRoute(PeerConnection connection) {
        try {
            nic.resolveRoute(connection.id, config.resolveTimeoutMillis());
        } catch (VerbsException e) {
            failConnect(connection, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, e);
        }
    }

    private void sendRequest(PeerConnection connection) {
        try {
            createQueuePair(connection);
            nic.connect(connection.id, ConnectData.address(address, attributes.has(Capability.RDMA_READ),
                    attributes.has(Capability.RDMA_WRITE)), config.rnrRetryCount());
            connection.state = PeerConnection.State.CONNECTING;
        } catch (VerbsException e) {
            failConnect(connection, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, e);
        }
    }

    private void createQueuePair(PeerConnection connection) throws VerbsException {
        // Room for the SPI's whole send queue and a RESULT per shared receive, so a post never finds it full.
        connection.qpNum = nic.createQueuePair(connection.id, 2 * config.sendQueueDepth() + config.sharedReceives());
        byQpNum.put(connection.qpNum, connection);
    }

    private void onEstablished(PeerConnection connection, byte[] privateData) {
        if (connection.active) {
            final ConnectData.Peer peer = ConnectData.decodeAddress(privateData);
            if (peer == null || !peer.address().gid().equals(connection.name.gid())
                    || peer.address().qpn() != connection.name.qpn()) {
                // Something else listens on that port: it is not the queue pair asked for.
                failConnect(connection, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, "a REP not of a verbs device");
                return;
            }
            connection.peer(peer);
            counts.incrementAndGet(VerbsCounter.CONNECTIONS_MADE.ordinal());
        }
        connection.state = PeerConnection.State.ESTABLISHED;
        connection.linked = true;
        while (connection.state == PeerConnection.State.ESTABLISHED && !connection.waiting.isEmpty()) {
            post(connection, connection.waiting.poll());
        }
    }

    private void onRejected(PeerConnection connection, byte[] privateData) {
        if (ConnectData.isCollision(privateData) && connection.collisionRetries < config.maxCollisionRetries()) {
            // The peer keeps its own request to us, which is on its way; should it fail, ours goes again.
            counts.incrementAndGet(VerbsCounter.COLLISION_RETRIES.ordinal());
            final PeerConnection again = replace(connection);
            if (again != null) {
                again.collisionRetries = connection.collisionRetries + 1;
            }
            return;
        }
        failConnect(connection, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, "REJECTED");
    }

    /** Connects again for what waits on a connection that did not come up. */
    private PeerConnection replace(PeerConnection connection) {
        byName.remove(connection.name);
        connection.state = PeerConnection.State.ENDED;
        final PeerConnection again = connect(connection.name);
        for (Op op : connection.waiting) {
            if (again == null) {
                end(op, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0);
            } else {
                op.connection = again;
                again.waiting.add(op);
            }
        }
        connection.waiting.clear();
        destroyWhenIdle(connection);
        return again;
    }

    private void onConnectRequest(long id, byte[] privateData) {
        final ConnectData.Peer peer = ConnectData.decodeAddress(privateData);
        if (peer == null) {
            reject(id, new byte[0]);
            return;
        }
        final PeerConnection.Name name = new PeerConnection.Name(peer.address().gid(), peer.address().qpn());
        final PeerConnection current = byName.get(name);
        if (current != null) {
            if (current.peerKnown && current.peerQkey != peer.address().qkey()) {
                counts.incrementAndGet(VerbsCounter.PEER_RESTARTS.ordinal());
                lose(current, "the peer came back with another Q-Key");
            } else if (current.active && isLower(address, peer.address())) {
                // Two requests crossed: the one the lower address made is kept, and that is ours.
                reject(id, ConnectData.collision());
                return;
            } else {
                // The peer's request replaces ours (it is the lower address), or the peer made a new one
                // because it saw the connection end before we did.
                retire(current);
            }
        }
        if (byName.size() >= config.maxPeers()) {
            reject(id, new byte[0]);
            return;
        }
        final PeerConnection connection = new PeerConnection(name, false, id, PeerConnection.State.ACCEPTING);
        connection.peer(peer);
        byName.put(name, connection);
        byId.put(id, connection);
        if (current != null && current.state == PeerConnection.State.ENDED) {
            for (Op op : current.waiting) {
                op.connection = connection;
                connection.waiting.add(op);
            }
            current.waiting.clear();
        }
        try {
            createQueuePair(connection);
            connection.linked = true;
            nic.accept(id, ConnectData.address(address, attributes.has(Capability.RDMA_READ),
                    attributes.has(Capability.RDMA_WRITE)), config.rnrRetryCount());
            counts.incrementAndGet(VerbsCounter.CONNECTIONS_ACCEPTED.ordinal());
        } catch (VerbsException e) {
            lose(connection, e.getMessage());
        }
    }

    /** A connection that did not come up and never had work posted: its waiting ops move elsewhere. */
    private void retire(PeerConnection connection) {
        if (connection.posted > 0 || !connection.awaitingVerdict.isEmpty()) {
            lose(connection, "the peer connected again");
            return;
        }
        byName.remove(connection.name);
        connection.state = PeerConnection.State.ENDED;
        disconnect(connection);
    }

    private static boolean isLower(DeviceAddress a, DeviceAddress b) {
        final int high = Long.compareUnsigned(a.gid().high(), b.gid().high());
        if (high != 0) {
            return high < 0;
        }
        final int low = Long.compareUnsigned(a.gid().low(), b.gid().low());
        return low != 0 ? low < 0 : a.qpn() < b.qpn();
    }

    private void reject(long id, byte[] privateData) {
        counts.incrementAndGet(VerbsCounter.REQUESTS_REJECTED.ordinal());
        try {
            nic.reject(id, privateData);
            nic.destroy(id);
        } catch (VerbsException e) {
            LOG.debug("rejecting a request failed", e);
        }
    }

    private void failConnect(PeerConnection connection, CompletionStatus status, Object why) {
        counts.incrementAndGet(VerbsCounter.CONNECT_FAILURES.ordinal());
        LOG.debug("{} failed: {}", connection, why);
        end(connection, status);
    }

    /** The connection broke: what it holds ends as unreachable, and the next op connects again. */
    private void lose(PeerConnection connection, String why) {
        if (connection.state == PeerConnection.State.ENDED) {
            return;
        }
        counts.incrementAndGet(VerbsCounter.CONNECTIONS_LOST.ordinal());
        LOG.debug("{} lost: {}", connection, why);
        end(connection, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE);
    }

    private void end(PeerConnection connection, CompletionStatus status) {
        if (byName.get(connection.name) == connection) {
            byName.remove(connection.name);
        }
        connection.state = PeerConnection.State.ENDED;
        for (Op op : connection.waiting) {
            end(op, status);
        }
        connection.waiting.clear();
        for (Op op : connection.awaitingVerdict.values()) {
            end(op, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0);
        }
        connection.awaitingVerdict.clear();
        for (Op op : ops) {
            if (op.inUse && op.connection == connection && !op.ended) {
                end(op, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0);
            }
        }
        verdicts.removeIf(verdict -> {
            if (verdict.connection() == connection) {
                postSharedReceive(verdict.receiveSlot());
                return true;
            }
            return false;
        });
        disconnect(connection);
    }

    private void end(Op op, CompletionStatus status) {
        end(op, status, 0);
    }

    private void disconnect(PeerConnection connection) {
        if (!connection.linked) {
            // No REP was sent or received: there is nothing to disconnect, only the id to destroy.
            destroyWhenIdle(connection);
            return;
        }
        try {
            nic.disconnect(connection.id);
        } catch (VerbsException e) {
            LOG.debug("rdma_disconnect of {} failed", connection, e);
        }
        destroyWhenIdle(connection);
    }

    private void destroyWhenIdle(PeerConnection connection) {
        if (connection.posted == 0) {
            destroy(connection);
        }
    }

    private void destroy(PeerConnection connection) {
        if (byId.remove(connection.id) == null) {
            return;
        }
        if (connection.qpNum >= 0) {
            byQpNum.remove(connection.qpNum);
        }
        if (byName.get(connection.name) == connection) {
            byName.remove(connection.name);
        }
        try {
            nic.destroy(connection.id);
        } catch (VerbsException e) {
            LOG.debug("destroying {} failed", connection, e);
        }
    }

    // --- completions ---------------------------------------------------------------------------

    private void onOpCompleted(Op op, WcStatus status) {
        final PeerConnection connection = op.connection;
        op.onQueuePair = false;
        if (connection != null) {
            connection.posted--;
        }
        if (status == WcStatus.SUCCESS) {
            // A send ends with the peer's verdict, not with the NIC's acknowledgement.
            if (op.opcode != Opcode.SEND) {
                end(op, CompletionStatus.OK, op.length);
            }
        } else {
            if (connection != null) {
                connection.awaitingVerdict.remove(op.sequence);
            }
            end(op, statusOf(status), 0);
            if (connection != null) {
                lose(connection, "a work request failed: " + status.description());
            }
        }
        freeIfDone(op);
        if (connection != null && connection.state == PeerConnection.State.ENDED) {
            destroyWhenIdle(connection);
        }
    }

    /** What a failed work request of this device is in the SPI's words. */
    static CompletionStatus statusOf(WcStatus status) {
        return switch (status) {
            case SUCCESS -> CompletionStatus.OK;
            case REM_ACCESS_ERR -> CompletionStatus.REMOTE_ERROR_BAD_ADDRESS;
            case LOC_PROT_ERR, LOC_ACCESS_ERR -> CompletionStatus.LOCAL_ERROR_INVALID_LKEY;
            case LOC_LEN_ERR -> CompletionStatus.LOCAL_ERROR_BAD_LENGTH;
            case RETRY_EXC_ERR, WR_FLUSH_ERR -> CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE;
            default -> CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE;
        };
    }

    private void onReceived(PeerConnection connection, int slot, WcStatus status, int byteLength) {
        if (closed) {
            return;
        }
        if (status != WcStatus.SUCCESS || connection == null || connection.state == PeerConnection.State.ENDED) {
            // A message longer than a shared receive (its queue pair is in error now) or from a
            // connection already given up: nothing to deliver.
            postSharedReceive(slot);
            if (connection != null && status != WcStatus.SUCCESS) {
                lose(connection, "a receive failed: " + status.description());
            }
            return;
        }
        final int at = receiveBase + slot * slotSize;
        final ByteBuffer frame = memory.slice(at, Math.min(byteLength, slotSize)).order(ByteOrder.LITTLE_ENDIAN);
        final byte type = Frame.check(frame, byteLength);
        if (type == Frame.TYPE_RESULT) {
            onVerdict(connection, Frame.sequence(frame), Frame.status(frame));
            postSharedReceive(slot);
        } else if (type == Frame.TYPE_DATA) {
            final CompletionStatus verdict = deliver(connection, frame, byteLength - Frame.HEADER_LENGTH);
            answer(new Verdict(connection, Frame.sequence(frame), verdict, slot));
        } else {
            counts.incrementAndGet(VerbsCounter.MALFORMED_FRAMES.ordinal());
            postSharedReceive(slot);
        }
    }

    /** Hands a DATA's packet to the oldest posted receive, if it may; returns the verdict for its sender. */
    private CompletionStatus deliver(PeerConnection connection, ByteBuffer frame, int length) {
        if (Frame.qkey(frame) != address.qkey()) {
            counts.incrementAndGet(VerbsCounter.QKEY_DROPS.ordinal());
            return CompletionStatus.OK;
        }
        final PostedReceive receive = receives.peek();
        if (receive == null) {
            counts.incrementAndGet(VerbsCounter.RNR_ANSWERED.ordinal());
            return CompletionStatus.REMOTE_ERROR_RNR;
        }
        if (receive.buffer().remaining() < length) {
            counts.incrementAndGet(VerbsCounter.SHORT_BUFFER_ANSWERED.ordinal());
            return CompletionStatus.REMOTE_ERROR_BAD_LENGTH;
        }
        receives.poll();
        receive.buffer().put(receive.buffer().position(), frame, Frame.HEADER_LENGTH, length);
        final Gid gid = connection.name.gid();
        completions.add(Completion.ofReceived(receive.wrId(), length, handles.get(gid), gid, connection.name.qpn()));
        return CompletionStatus.OK;
    }

    private void onVerdict(PeerConnection connection, int sequence, int statusValue) {
        final Op op = connection.awaitingVerdict.remove(sequence);
        if (op == null) {
            counts.incrementAndGet(VerbsCounter.STALE_RESULTS.ordinal());
            return;
        }
        final CompletionStatus status = CompletionStatus.fromValue(statusValue);
        if (status == null) {
            counts.incrementAndGet(VerbsCounter.MALFORMED_FRAMES.ordinal());
            end(op, CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE, 0);
        } else {
            end(op, status, op.length);
        }
    }

    /**
     * Sends a verdict from a free RESULT slot, or keeps it, and the shared receive its message came in,
     * until one is free: so the verdicts owed are bounded by the shared receives, and a peer that does
     * not take its answers slows down its own sending.
     */
    private void answer(Verdict verdict) {
        final Integer slot = freeResultSlots.poll();
        if (slot == null) {
            verdicts.add(verdict);
            return;
        }
        postSharedReceive(verdict.receiveSlot());
        final PeerConnection connection = verdict.connection();
        final int at = resultBase + slot * Frame.HEADER_LENGTH;
        Frame.writeResult(memory.slice(at, Frame.HEADER_LENGTH), verdict.status().value(), verdict.sequence());
        try {
            if (!nic.postSend(connection.id, token(KIND_RESULT, slot), memoryRegistration.address() + at,
                    Frame.HEADER_LENGTH, memoryRegistration.lkey())) {
                throw new IllegalStateException("the send queue of " + connection + " is full");
            }
            connection.posted++;
            resultConnections[slot] = connection;
        } catch (VerbsException e) {
            freeResultSlots.add(slot);
            lose(connection, e.getMessage());
        }
    }

    private void onResultSent(int slot) {
        freeResultSlots.add(slot);
        final PeerConnection connection = resultConnections[slot];
        resultConnections[slot] = null;
        if (connection != null) {
            connection.posted--;
            if (connection.state == PeerConnection.State.ENDED) {
                destroyWhenIdle(connection);
            }
        }
        if (!verdicts.isEmpty()) {
            answer(verdicts.poll());
        }
    }

    private void postSharedReceive(int slot) {
        if (closed) {
            return;
        }
        try {
            if (!nic.postReceive(token(KIND_RECEIVE, slot), memoryRegistration.address() + receiveBase
                    + (long) slot * slotSize, slotSize, memoryRegistration.lkey())) {
                throw new IllegalStateException("the shared receive queue is full");
            }
        } catch (VerbsException e) {
            throw new IllegalStateException("posting a shared receive failed", e);
        }
    }

    // --- helpers -------------------------------------------------------------------------------

    private long slotAddress(int opIndex) {
        return memoryRegistration.address() + (long) opIndex * slotSize;
    }

    private static long token(long kind, int index) {
        return kind << KIND_SHIFT | index;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the device is closed");
        }
    }

    private void checkHandle(AddressHandle ah) {
        Objects.requireNonNull(ah, "ah");
        if (!liveHandles.contains(ah)) {
            throw new IllegalArgumentException(ah + " is not a live handle of this device");
        }
    }
}
