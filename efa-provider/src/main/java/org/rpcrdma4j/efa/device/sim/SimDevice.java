package org.rpcrdma4j.efa.device.sim;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
import org.rpcrdma4j.efa.device.MemoryRegistrations;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.PostChecks;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * A simulated EFA queue pair on a {@link SimFabric}, made by
 * {@link SimFabric#createDevice(Gid, int, SimDeviceConfig)}.
 *
 * <p>Checks happen where the device would make them. Lengths the device knows from the work
 * request alone (a packet over the MTU, RDMA over 1 GiB) fail at once, without touching the wire.
 * Everything else is checked when the operation executes at {@link SimFabric#progress(long)}:
 * the local registration, the destination, its Q-Key, its receive queue, its capabilities, and for
 * RDMA the remote key, bounds and access right. A refused remote access touches no memory.
 *
 * <p>Buffers are read and written when the operation executes, not when it is posted, so a caller
 * that reuses a send buffer before its completion sends what it wrote last, as it would on
 * hardware.
 *
 * <p>A restart destroys the old queue pair's address handles and registrations. Its user may still
 * hold them (the simulation keeps the process's objects across the restart) and free them later:
 * destroying or deregistering one of those does nothing, once, since there is nothing left to free.
 */
public final class SimDevice implements Device {

    private final SimFabric fabric;
    private final Gid gid;
    private final int qpn;
    private final SimDeviceConfig config;
    private final DeviceAttributes attributes;
    private final ArrayDeque<PostedRecv> recvQueue = new ArrayDeque<>();
    private final ArrayDeque<Completion> completionQueue = new ArrayDeque<>();
    private final Map<Gid, AddressHandle> handles = new HashMap<>();
    private final MemoryRegistrations registrations;
    /** What earlier incarnations made and their user has not freed yet: gone with them. */
    /** By identity: another device's handle may be equal in value (same AHN, same GID). */
    private final Set<AddressHandle> goneHandles = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<MemoryRegion> goneRegions = new HashSet<>();
    private final EnumMap<DropReason, Long> drops = new EnumMap<>(DropReason.class);
    private int qkey;
    private int incarnation;
    private boolean closed;
    private int sendQueueUsed;
    private int recvQueueUsed;
    private int nextAhn = 1;

    SimDevice(SimFabric fabric, Gid gid, int qpn, int qkey, int firstKey, SimDeviceConfig config) {
        this.fabric = fabric;
        this.gid = gid;
        this.qpn = qpn;
        this.qkey = qkey;
        this.registrations = new MemoryRegistrations(firstKey, config.maxRegistrations());
        this.config = config;
        this.attributes = config.attributes();
        for (DropReason reason : DropReason.values()) {
            drops.put(reason, 0L);
        }
    }

    @Override
    public DeviceAddress address() {
        return new DeviceAddress(gid, qpn, qkey);
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    /** @return the configuration the device was built with */
    public SimDeviceConfig config() {
        return config;
    }

    /**
     * @param reason why
     * @return how many incoming operations this device has refused for that reason, restarts
     *     included
     */
    public long dropped(DropReason reason) {
        return drops.get(reason);
    }

    @Override
    public AddressHandle createAddressHandle(Gid peer) {
        requireOpen();
        Objects.requireNonNull(peer, "peer");
        if (handles.containsKey(peer)) {
            throw new IllegalStateException("an address handle for " + peer + " exists: " + handles.get(peer));
        }
        final AddressHandle ah = new AddressHandle(nextAhn++, peer);
        handles.put(peer, ah);
        return ah;
    }

    @Override
    public void destroyAddressHandle(AddressHandle ah) {
        requireOpen();
        if (goneHandles.remove(ah)) {
            return;
        }
        requireLive(ah);
        handles.remove(ah.gid());
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer memory, Set<Access> access) {
        requireOpen();
        return registrations.register(memory, access);
    }

    @Override
    public void deregisterMemory(MemoryRegion region) {
        requireOpen();
        Objects.requireNonNull(region, "region");
        if (goneRegions.remove(region)) {
            return;
        }
        if (!registrations.deregister(region)) {
            throw new IllegalArgumentException("not registered with " + this + ": " + region);
        }
    }

    @Override
    public boolean postSend(AddressHandle ah, int destQpn, int destQkey, ByteBuffer packet, long wrId) {
        requireOpen();
        final DeviceAddress destination = destination(ah, destQpn, destQkey);
        Objects.requireNonNull(packet, "packet");
        if (!takeSendQueueEntry()) {
            return false;
        }
        if (packet.remaining() > attributes.mtu()) {
            completeAtOnce(wrId, Opcode.SEND, CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
        } else {
            fabric.submit(this, Opcode.SEND, destination, packet.duplicate(), null, 0, null, wrId);
        }
        return true;
    }

    @Override
    public boolean postRecv(ByteBuffer buffer, long wrId) {
        requireOpen();
        PostChecks.receiveBuffer(buffer);
        if (recvQueueUsed == attributes.maxRecvQueueDepth()) {
            return false;
        }
        recvQueueUsed++;
        recvQueue.add(new PostedRecv(buffer.duplicate(), wrId));
        return true;
    }

    @Override
    public boolean postRead(AddressHandle ah, int destQpn, int destQkey, MemoryRegion local, long localOffset,
                            RmaIov remote, long wrId) {
        return postRdma(Opcode.RDMA_READ, Capability.RDMA_READ, ah, destQpn, destQkey, local, localOffset, remote,
                wrId);
    }

    @Override
    public boolean postWrite(AddressHandle ah, int destQpn, int destQkey, MemoryRegion local, long localOffset,
                             RmaIov remote, long wrId) {
        return postRdma(Opcode.RDMA_WRITE, Capability.RDMA_WRITE, ah, destQpn, destQkey, local, localOffset, remote,
                wrId);
    }

    @Override
    public int pollCompletions(Consumer<Completion> sink, int max) {
        requireOpen();
        Objects.requireNonNull(sink, "sink");
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, not " + max);
        }
        int polled = 0;
        while (polled < max && !completionQueue.isEmpty()) {
            final Completion completion = completionQueue.poll();
            // The queue entry is free once its completion is polled, as in rdma-core's poll path.
            if (completion.opcode() == Opcode.RECV) {
                recvQueueUsed--;
            } else {
                sendQueueUsed--;
            }
            polled++;
            sink.accept(completion);
        }
        return polled;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        fabric.remove(this);
        // Like a restart, what the queue pair posted completes nowhere from now on.
        restart(qkey);
        closed = true;
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() {
        return closed;
    }

    /** @return how many registrations exist, the device's own count of what its user holds */
    public int registrationCount() {
        return registrations.size();
    }

    /** @return how many address handles exist */
    public int addressHandleCount() {
        return handles.size();
    }

    /** @return how many receive buffers are posted and not yet completed or polled */
    public int postedReceiveCount() {
        return recvQueueUsed;
    }

    /** @return how many send-queue entries are taken: posted and their completions not yet polled */
    public int sendQueueUsed() {
        return sendQueueUsed;
    }

    @Override
    public String toString() {
        return "SimDevice[" + address() + "]";
    }

    /** @return how many times the device has been restarted; stamps the operations it posts */
    int incarnation() {
        return incarnation;
    }

    /**
     * Executes an operation this device posted against its target, and completes it.
     *
     * @param wr the operation
     * @param target the device at the destination GID and QPN
     */
    void execute(WorkRequest wr, SimDevice target) {
        final CompletionStatus status = switch (wr.opcode()) {
            case SEND -> target.onSendArrived(wr);
            case RDMA_READ -> {
                final ByteBuffer into = localRange(wr, Access.LOCAL_WRITE);
                yield into == null ? CompletionStatus.LOCAL_ERROR_INVALID_LKEY : target.onReadRequest(wr, into);
            }
            case RDMA_WRITE -> {
                final ByteBuffer from = localRange(wr, null);
                yield from == null ? CompletionStatus.LOCAL_ERROR_INVALID_LKEY : target.onWriteRequest(wr, from);
            }
            case RECV -> throw new IllegalStateException("a receive is never on the wire");
        };
        complete(wr, status);
    }

    /**
     * Completes an operation this device posted, unless it was posted before a restart: the
     * queue pair that posted it is gone, and so is its completion.
     *
     * @param wr the operation
     * @param status how it ended
     */
    void complete(WorkRequest wr, CompletionStatus status) {
        if (wr.incarnation() == incarnation) {
            final int length = status == CompletionStatus.OK ? wr.length() : 0;
            completionQueue.add(Completion.ofInitiated(wr.wrId(), wr.opcode(), status, length));
        }
    }

    /**
     * Becomes a new queue pair on the same QPN: a new Q-Key, and nothing of the old one's
     * receives, completions, address handles or registrations. Keys and handle numbers are not
     * reused, so stale ones stay invalid for operations; freeing one does nothing. Drop counters
     * are kept.
     *
     * @param newQkey the new Q-Key
     */
    void restart(int newQkey) {
        qkey = newQkey;
        incarnation++;
        recvQueue.clear();
        completionQueue.clear();
        goneHandles.addAll(handles.values());
        handles.clear();
        goneRegions.addAll(registrations.clear());
        sendQueueUsed = 0;
        recvQueueUsed = 0;
    }

    private CompletionStatus onSendArrived(WorkRequest wr) {
        if (wr.destination().qkey() != qkey) {
            // The receiving device discards a packet with a foreign Q-Key; the sender is not told.
            return drop(DropReason.STALE_QKEY, CompletionStatus.OK);
        }
        final PostedRecv head = recvQueue.peek();
        if (head == null || fabric.chance(wr.faults().rnrProbability())) {
            // The simulation reports RNR at once: EFA retries RNR in hardware a few times first,
            // so a completion means those retries are spent (libfabric's EFA send/receive completion paths document).
            return drop(DropReason.RNR, CompletionStatus.REMOTE_ERROR_RNR);
        }
        final int length = wr.length();
        if (head.buffer().remaining() < length) {
            // "Receiver SGL too short" is reported to the sender. The docs do not say what the
            // receiver sees; here its buffer stays posted, so one bad packet costs it nothing.
            return drop(DropReason.RECV_BUFFER_TOO_SHORT, CompletionStatus.REMOTE_ERROR_BAD_LENGTH);
        }
        recvQueue.poll();
        head.buffer().put(head.buffer().position(), wr.packet(), wr.packet().position(), length);
        final Gid sourceGid = wr.initiator().gid;
        completionQueue.add(Completion.ofReceived(head.wrId(), length, handles.get(sourceGid), sourceGid,
                wr.initiator().qpn));
        return CompletionStatus.OK;
    }

    private CompletionStatus onReadRequest(WorkRequest wr, ByteBuffer into) {
        final CompletionStatus refusal = refuseRdma(wr, Capability.RDMA_READ);
        if (refusal != null) {
            return refusal;
        }
        final ByteBuffer source = remoteRange(wr.remote(), Access.REMOTE_READ);
        if (source == null) {
            return drop(DropReason.REMOTE_ACCESS_DENIED, CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        }
        into.put(0, source, 0, source.remaining());
        return CompletionStatus.OK;
    }

    private CompletionStatus onWriteRequest(WorkRequest wr, ByteBuffer from) {
        final CompletionStatus refusal = refuseRdma(wr, Capability.RDMA_WRITE);
        if (refusal != null) {
            return refusal;
        }
        final ByteBuffer target = remoteRange(wr.remote(), Access.REMOTE_WRITE);
        if (target == null) {
            return drop(DropReason.REMOTE_ACCESS_DENIED, CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        }
        target.put(0, from, 0, from.remaining());
        return CompletionStatus.OK;
    }

    /** @return the status refusing an RDMA request before any key is looked at, or null */
    private CompletionStatus refuseRdma(WorkRequest wr, Capability needed) {
        if (wr.destination().qkey() != qkey) {
            // Unlike a send, an RDMA request needs an answer; an ignored one times out.
            return drop(DropReason.STALE_QKEY, CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE);
        }
        if (!attributes.has(needed)) {
            return drop(DropReason.CAPABILITY_OFF, CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH);
        }
        return null;
    }

    private boolean postRdma(Opcode opcode, Capability needed, AddressHandle ah, int destQpn, int destQkey,
                             MemoryRegion local, long localOffset, RmaIov remote, long wrId) {
        requireOpen();
        final DeviceAddress destination = destination(ah, destQpn, destQkey);
        PostChecks.rdma(this, needed, local, localOffset, remote);
        if (!takeSendQueueEntry()) {
            return false;
        }
        if (remote.length() > attributes.maxRdmaSize()) {
            completeAtOnce(wrId, opcode, CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
        } else {
            fabric.submit(this, opcode, destination, null, local, localOffset, remote, wrId);
        }
        return true;
    }

    private DeviceAddress destination(AddressHandle ah, int destQpn, int destQkey) {
        requireLive(ah);
        return new DeviceAddress(ah.gid(), destQpn, destQkey);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private void requireLive(AddressHandle ah) {
        Objects.requireNonNull(ah, "ah");
        // Compared by identity: handle numbers are per device, so another device's handle for the
        // same GID is often equal in value, and only the device that made a handle accepts it.
        if (ah != handles.get(ah.gid())) {
            throw new IllegalArgumentException("not a live address handle of " + this + ": " + ah);
        }
    }

    private boolean takeSendQueueEntry() {
        if (sendQueueUsed == attributes.maxSendQueueDepth()) {
            return false;
        }
        sendQueueUsed++;
        return true;
    }

    private void completeAtOnce(long wrId, Opcode opcode, CompletionStatus status) {
        completionQueue.add(Completion.ofInitiated(wrId, opcode, status, 0));
    }

    /** @return the local bytes of an RDMA request, or null if its registration refuses them */
    private ByteBuffer localRange(WorkRequest wr, Access needed) {
        return registrations.localRange(wr.local(), wr.localOffset(), wr.remote().length(), needed);
    }

    /** @return the registered bytes a peer names, or null if key, bounds or rights refuse them */
    private ByteBuffer remoteRange(RmaIov iov, Access needed) {
        return registrations.remoteRange(iov.key(), iov.address(), iov.length(), needed);
    }

    private CompletionStatus drop(DropReason reason, CompletionStatus status) {
        drops.merge(reason, 1L, Long::sum);
        return status;
    }

    /** A receive buffer waiting for a packet; the buffer is a duplicate, so its bounds are fixed. */
    private record PostedRecv(ByteBuffer buffer, long wrId) {
    }
}
