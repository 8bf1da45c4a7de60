package org.rpcrdma4j.efa.device.verbs;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.EnumSet;
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
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Device} SPI on an EFA NIC: one SRD queue pair, which gives what the SPI asks of a device
 * itself (EFA RDM protocol v4 §1.1), so the device maps the SPI onto it one to one
 * (docs/ARCHITECTURE.md, "The verbs device").
 *
 * <ul>
 *   <li><b>Addresses.</b> GID = the NIC's GID, QPN = the SRD queue pair's number, Q-Key = the one it was
 *       brought up with, drawn at open (the endpoint's connid). An SPI address handle is an
 *       {@code ibv_ah} and carries the number the NIC gives it ({@code efadv_query_ah}).</li>
 *   <li><b>Exactly once, any order, receiver not ready.</b> SRD's own. A Send to a peer with no receive
 *       posted completes {@code REMOTE_ERROR_RNR} after the NIC's own retries (on a NIC that has them,
 *       {@link EfaSrdDeviceConfig#rnrRetry}); a packet longer than the receive posted fails at the sender
 *       with {@code REMOTE_ERROR_BAD_LENGTH}, as the NIC is given each receive's own length.</li>
 *   <li><b>Sources.</b> A receive completion names the sender by the number of this device's address
 *       handle for it ({@code slid}) and its queue pair ({@code src_qp}); the device looks the number up
 *       in its table of live handles, as libfabric's EFA provider looks up (AHN, QPN) in its address vector.
 *       For a sender it has no handle for, the NIC can name the GID
 *       ({@link SrdNic.Attributes#sourceGids()}); where it cannot, the receive is reported without one
 *       ({@link SrdCounter#RECEIVES_UNNAMED}) and the endpoint names the sender from the packet's
 *       raw-address header, as libfabric's provider does.</li>
 *   <li><b>Statuses.</b> The NIC's own ({@code efa_io_comp_status}), which the SPI keeps by number;
 *       those it has not are narrowed as {@link EfaIoStatus} says and counted.</li>
 *   <li><b>Checks before the NIC.</b> A Send over the MTU ({@code LOCAL_ERROR_BAD_LENGTH}), RDMA over
 *       the maximum size ({@code LOCAL_ERROR_BAD_LENGTH}) or from or into a local range its registration
 *       does not hold or grant ({@code LOCAL_ERROR_INVALID_LKEY}) ends without a post; the rest (keys,
 *       bounds and rights at the target, the target's capabilities, Q-Keys, absent queue pairs,
 *       unreachable GIDs) is the NIC's to check.</li>
 *   <li><b>Bounds.</b> The SPI's queues (within what the queue pair was granted), address handles,
 *       registrations and heap memory registered through copies ({@link EfaSrdDeviceConfig}). A
 *       completion is trusted no further than its id: one for nothing in flight is dropped, a receive
 *       of more bytes than its buffer copies nothing.</li>
 * </ul>
 *
 * <p>Buffers: a Send's bytes are copied at the post into a registered slot of the MTU, one per send-queue
 * entry; a receive is posted as a registered slot of the buffer's length (at most the MTU) and copied
 * into the SPI's buffer at its completion, so the SPI's buffers need no registration. Registered memory
 * ({@code registerMemory}) is the NIC's to read and write until deregistered: a direct buffer where it
 * is, a heap buffer through a direct copy ({@link NicRegistrations}).
 *
 * <p>Not thread-safe: the SPI's one progress thread; {@link #counters()} from any thread. No thread of its
 * own: completions are polled in {@link #pollCompletions}.
 */
public final class EfaSrdDevice implements Device {

    private static final Logger LOG = LoggerFactory.getLogger(EfaSrdDevice.class);

    private static final int KIND_SHIFT = 60;
    private static final long KIND_SEND_QUEUE = 1;
    private static final long KIND_RECEIVE = 2;
    private static final long INDEX_MASK = 0xFFFF_FFFFL;

    /** A send-queue request on the NIC and what its completion ends. Reused. */
    private static final class SendOp {
        long wrId;
        Opcode opcode;
        int length;
        boolean inFlight;
    }

    /** A receive on the NIC: the SPI's buffer it is for and the length the NIC was given. Reused. */
    private static final class Receive {
        ByteBuffer buffer;
        long wrId;
        int postedLength;
        boolean inFlight;
    }

    private final SrdNic nic;
    private final EfaSrdDeviceConfig config;
    private final DeviceAttributes attributes;
    private final DeviceAddress address;
    private final int mtu;
    private final ByteBuffer memory;
    private final NicMemory.Registration memoryRegistration;
    private final long receiveBase;
    private final SendOp[] ops;
    private final Receive[] receives;
    private final ArrayDeque<Integer> freeOps = new ArrayDeque<>();
    private final ArrayDeque<Integer> freeReceives = new ArrayDeque<>();
    private final ArrayDeque<Completion> completions = new ArrayDeque<>();
    private final Map<Gid, AddressHandle> handles = new HashMap<>();
    private final Map<Integer, AddressHandle> byAhn = new HashMap<>();
    private final Set<AddressHandle> liveHandles = Collections.newSetFromMap(new IdentityHashMap<>());
    private final NicRegistrations registrations;
    private final AtomicLongArray counts = new AtomicLongArray(SrdCounter.values().length);
    private final SrdNic.Completions sink = this::onCompletion;
    private int sendQueueUsed;
    private int recvQueueUsed;
    private boolean closed;

    private EfaSrdDevice(SrdNic nic, EfaSrdDeviceConfig config) throws VerbsException {
        this.nic = nic;
        this.config = config;
        final SrdNic.Attributes nicAttributes = nic.attributes();
        this.mtu = nicAttributes.maxMessageSize();
        final int sendDepth = Math.min(config.sendQueueDepth(), nicAttributes.sendQueueDepth());
        final int recvDepth = Math.min(config.recvQueueDepth(), nicAttributes.receiveQueueDepth());
        final Set<Capability> capabilities = EnumSet.noneOf(Capability.class);
        if (nicAttributes.rdmaRead() && config.capabilities().contains(Capability.RDMA_READ)) {
            capabilities.add(Capability.RDMA_READ);
        }
        if (nicAttributes.rdmaWrite() && config.capabilities().contains(Capability.RDMA_WRITE)) {
            capabilities.add(Capability.RDMA_WRITE);
        }
        final long maxRdmaSize = nicAttributes.maxRdmaSize() > 0
                ? Math.min(config.maxRdmaSize(), nicAttributes.maxRdmaSize()) : config.maxRdmaSize();
        this.attributes = new DeviceAttributes(mtu, sendDepth, recvDepth, maxRdmaSize, capabilities);
        this.address = new DeviceAddress(nicAttributes.gid(), DeviceAddress.requireQpn(nicAttributes.qpn()),
                nicAttributes.qkey());
        final long bytes = (long) (sendDepth + recvDepth) * mtu;
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException((sendDepth + recvDepth) + " slots of " + mtu + " bytes exceed 2 GiB");
        }
        this.receiveBase = (long) sendDepth * mtu;
        this.memory = ByteBuffer.allocateDirect((int) bytes);
        this.memoryRegistration = nic.register(memory, false, false);
        if (memoryRegistration == null) {
            throw new VerbsException("ibv_reg_mr", 12);
        }
        this.registrations = new NicRegistrations(nic, config.maxRegistrations(), config.maxCopiedBytes(),
                copied -> counts.addAndGet(SrdCounter.BYTES_COPIED.ordinal(), copied));
        this.ops = new SendOp[sendDepth];
        for (int i = 0; i < sendDepth; i++) {
            ops[i] = new SendOp();
            freeOps.add(i);
        }
        this.receives = new Receive[recvDepth];
        for (int i = 0; i < recvDepth; i++) {
            receives[i] = new Receive();
            freeReceives.add(i);
        }
    }

    /**
     * Opens a device on an EFA NIC through libibverbs and libefa ({@link VerbsSrdNic}). Untested on
     * hardware: see docs/ARCHITECTURE.md, "The verbs device".
     *
     * @param config the device's name and the bounds
     * @return the device, to be closed by the caller
     * @throws VerbsException if the libraries are missing, no device has the name, it is no EFA device
     *     (libefa answers EOPNOTSUPP) or refuses a queue, the queue pair or the registration
     */
    public static EfaSrdDevice open(EfaSrdDeviceConfig config) throws VerbsException {
        Objects.requireNonNull(config, "config");
        final VerbsSrdNic nic = VerbsSrdNic.open(config);
        try {
            return open(nic, config);
        } catch (VerbsException | RuntimeException e) {
            nic.close();
            throw e;
        }
    }

    /**
     * Opens a device on an {@link SrdNic}, which it owns from now on and closes.
     *
     * @throws VerbsException if the NIC refuses to register the device's slots
     */
    static EfaSrdDevice open(SrdNic nic, EfaSrdDeviceConfig config) throws VerbsException {
        return new EfaSrdDevice(Objects.requireNonNull(nic, "nic"), Objects.requireNonNull(config, "config"));
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
        for (SrdCounter counter : SrdCounter.values()) {
            map.put(counter.name(), counts.get(counter.ordinal()));
        }
        return map;
    }

    /** @return how often the device counted {@code counter} */
    public long count(SrdCounter counter) {
        return counts.get(counter.ordinal());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException also if {@link EfaSrdDeviceConfig#maxAddressHandles} exist, or the NIC
     *     refuses the handle
     */
    @Override
    public AddressHandle createAddressHandle(Gid gid) {
        checkOpen();
        Objects.requireNonNull(gid, "gid");
        if (handles.containsKey(gid)) {
            throw new IllegalStateException("a handle for " + gid + " exists already");
        }
        if (handles.size() >= config.maxAddressHandles()) {
            throw new IllegalStateException(handles.size() + " address handles exist, the bound");
        }
        final int ahn;
        try {
            ahn = nic.createAddressHandle(gid);
        } catch (VerbsException e) {
            throw new IllegalStateException("the NIC refused an address handle to " + gid, e);
        }
        final AddressHandle ah = new AddressHandle(ahn, gid);
        handles.put(gid, ah);
        byAhn.put(ahn, ah);
        liveHandles.add(ah);
        return ah;
    }

    @Override
    public void destroyAddressHandle(AddressHandle ah) {
        checkOpen();
        checkHandle(ah);
        liveHandles.remove(ah);
        handles.remove(ah.gid());
        byAhn.remove(ah.ahn());
        try {
            nic.destroyAddressHandle(ah.ahn());
        } catch (VerbsException e) {
            LOG.warn("ibv_destroy_ah of {} failed", ah, e);
        }
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
        if (sendQueueUsed >= attributes.maxSendQueueDepth()) {
            return false;
        }
        if (packet.remaining() > mtu) {
            endLocally(wrId, Opcode.SEND, CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
            return true;
        }
        final int index = freeOps.poll();
        final int length = packet.remaining();
        final long at = (long) index * mtu;
        memory.put((int) at, packet, packet.position(), length);
        return post(index, wrId, Opcode.SEND, length, () -> nic.postSend(token(KIND_SEND_QUEUE, index), ah.ahn(), qpn,
                qkey, memoryRegistration.address() + at, length, memoryRegistration.lkey()));
    }

    @Override
    public boolean postRecv(ByteBuffer buffer, long wrId) {
        checkOpen();
        PostChecks.receiveBuffer(buffer);
        if (recvQueueUsed >= attributes.maxRecvQueueDepth()) {
            return false;
        }
        final int index = freeReceives.poll();
        final Receive receive = receives[index];
        // The NIC is given the buffer's own length, so that it refuses a longer packet at the sender.
        final int length = Math.min(buffer.remaining(), mtu);
        final boolean posted;
        try {
            posted = nic.postReceive(token(KIND_RECEIVE, index), memoryRegistration.address() + receiveBase
                    + (long) index * mtu, length, memoryRegistration.lkey());
        } catch (VerbsException e) {
            freeReceives.push(index);
            throw new IllegalStateException("the NIC refused a receive", e);
        }
        if (!posted) {
            // The queue pair holds at least the SPI's depth: full is the NIC's word, and the SPI's.
            freeReceives.push(index);
            return false;
        }
        recvQueueUsed++;
        receive.buffer = buffer;
        receive.wrId = wrId;
        receive.postedLength = length;
        receive.inFlight = true;
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
        if (sendQueueUsed >= attributes.maxSendQueueDepth()) {
            return false;
        }
        if (remote.length() > attributes.maxRdmaSize()) {
            endLocally(wrId, opcode, CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
            return true;
        }
        final NicRegistrations.Registered registered = registrations.find(local);
        if (registered == null || (opcode == Opcode.RDMA_READ && !local.access().contains(Access.LOCAL_WRITE))
                || localOffset > local.length() || !local.contains(local.address() + localOffset, remote.length())) {
            endLocally(wrId, opcode, CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
            return true;
        }
        final int index = freeOps.poll();
        final int length = (int) remote.length();
        final long localAddress = registered.nic().address() + localOffset;
        final int lkey = registered.nic().lkey();
        final long token = token(KIND_SEND_QUEUE, index);
        return post(index, wrId, opcode, length, () -> opcode == Opcode.RDMA_READ
                ? nic.postRead(token, ah.ahn(), qpn, qkey, localAddress, length, lkey, remote.address(), remote.key())
                : nic.postWrite(token, ah.ahn(), qpn, qkey, localAddress, length, lkey, remote.address(), remote.key()));
    }

    /** A post to the NIC's send queue. */
    @FunctionalInterface
    private interface Post {
        boolean post() throws VerbsException;
    }

    /** Posts a send-queue request with op {@code index}, taken; gives it back unless the NIC took the request. */
    private boolean post(int index, long wrId, Opcode opcode, int length, Post post) {
        final boolean posted;
        try {
            posted = post.post();
        } catch (VerbsException e) {
            freeOps.push(index);
            LOG.debug("the NIC refused a {}", opcode, e);
            endLocally(wrId, opcode, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE);
            return true;
        }
        if (!posted) {
            // The queue pair holds at least the SPI's depth: full is the NIC's word, and the SPI's.
            freeOps.push(index);
            return false;
        }
        sendQueueUsed++;
        final SendOp op = ops[index];
        op.wrId = wrId;
        op.opcode = opcode;
        op.length = length;
        op.inFlight = true;
        return true;
    }

    /** Ends a send-queue operation without the NIC: its completion takes a send-queue entry until polled. */
    private void endLocally(long wrId, Opcode opcode, CompletionStatus status) {
        sendQueueUsed++;
        completions.add(Completion.ofInitiated(wrId, opcode, status, 0));
    }

    @Override
    public int pollCompletions(Consumer<Completion> consumer, int max) {
        checkOpen();
        Objects.requireNonNull(consumer, "sink");
        if (max < 1) {
            throw new IllegalArgumentException("max " + max + " is below 1");
        }
        try {
            nic.poll(sink);
        } catch (VerbsException e) {
            // The completion queue failed: nothing on it can be trusted any more.
            throw new IllegalStateException("polling the NIC failed", e);
        }
        int handed = 0;
        while (handed < max && !completions.isEmpty()) {
            final Completion completion = completions.poll();
            if (completion.opcode() == Opcode.RECV) {
                recvQueueUsed--;
            } else {
                sendQueueUsed--;
            }
            consumer.accept(completion);
            handed++;
        }
        return handed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // The NIC destroys its queue pair before the handles and registrations work on it may still use.
        nic.close();
        registrations.close();
        liveHandles.clear();
        handles.clear();
        byAhn.clear();
        completions.clear();
    }

    // --- completions ---------------------------------------------------------------------------

    /** What the NIC reports, checked against what is in flight before anything is read on its word. */
    private void onCompletion(long wrId, int status, int byteLength, int sourceQpn, int sourceAhn, Gid sourceGid) {
        final long kind = wrId >>> KIND_SHIFT;
        final long index = wrId & ~(kind << KIND_SHIFT);
        if (kind == KIND_SEND_QUEUE && index < ops.length && ops[(int) index].inFlight) {
            onSendQueueCompleted((int) index, status);
        } else if (kind == KIND_RECEIVE && index < receives.length && receives[(int) index].inFlight) {
            onReceived((int) index, status, byteLength, sourceQpn, sourceAhn, sourceGid);
        } else {
            counts.incrementAndGet(SrdCounter.STRAY_COMPLETIONS.ordinal());
        }
    }

    private void onSendQueueCompleted(int index, int status) {
        final SendOp op = ops[index];
        op.inFlight = false;
        freeOps.push(index);
        final CompletionStatus spiStatus = statusOf(status);
        completions.add(Completion.ofInitiated(op.wrId, op.opcode, spiStatus,
                spiStatus == CompletionStatus.OK ? op.length : 0));
    }

    private void onReceived(int index, int status, int byteLength, int sourceQpn, int sourceAhn, Gid sourceGid) {
        final Receive receive = receives[index];
        receive.inFlight = false;
        freeReceives.push(index);
        final ByteBuffer buffer = receive.buffer;
        receive.buffer = null;
        if (status != EfaIoStatus.OK.value()) {
            failReceive(receive.wrId, statusOf(status));
            return;
        }
        if (byteLength < 0 || byteLength > receive.postedLength) {
            counts.incrementAndGet(SrdCounter.RECEIVES_MALFORMED.ordinal());
            failReceive(receive.wrId, CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
            return;
        }
        final AddressHandle known = sourceAhn == SrdNic.UNKNOWN_AHN ? null : byAhn.get(sourceAhn);
        if (sourceQpn < 0 || sourceQpn > DeviceAddress.MAX_QPN) {
            // A QPN no raw address can hold names no sender.
            counts.incrementAndGet(SrdCounter.RECEIVES_MALFORMED.ordinal());
            failReceive(receive.wrId, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE);
            return;
        }
        final Gid gid = known != null ? known.gid() : sourceGid;
        if (gid == null) {
            // Neither a handle nor the NIC names the sender: the endpoint takes it from the packet's
            // raw-address header, or drops the packet.
            counts.incrementAndGet(SrdCounter.RECEIVES_UNNAMED.ordinal());
        }
        buffer.put(buffer.position(), memory, (int) (receiveBase + (long) index * mtu), byteLength);
        completions.add(Completion.ofReceived(receive.wrId, byteLength,
                known != null ? known : gid == null ? null : handles.get(gid), gid, sourceQpn));
    }

    private void failReceive(long wrId, CompletionStatus status) {
        completions.add(new Completion(wrId, Opcode.RECV, status, 0, null, null, -1));
    }

    /** The SPI's words for the NIC's status. */
    private CompletionStatus statusOf(int status) {
        final EfaIoStatus known = EfaIoStatus.of(status);
        if (known == null || known.narrowed()) {
            counts.incrementAndGet(SrdCounter.STATUSES_NARROWED.ordinal());
        }
        return known == null ? CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE : known.spi();
    }

    // --- helpers -------------------------------------------------------------------------------

    private static long token(long kind, int index) {
        return kind << KIND_SHIFT | (index & INDEX_MASK);
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
