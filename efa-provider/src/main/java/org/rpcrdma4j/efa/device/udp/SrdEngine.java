package org.rpcrdma4j.efa.device.udp;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegistrations;
import org.rpcrdma4j.efa.device.Opcode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reliability layer and the queue pair of a {@link UdpDevice}: SRD semantics (every packet
 * delivered once, in any order) over datagrams that may be lost, duplicated or reordered, and RDMA
 * read and write served from the device's registrations. It runs on one thread, the I/O thread, and
 * takes the time as an argument everywhere, so tests drive it with their own clock and an in-memory
 * {@link DatagramSink}.
 *
 * <h2>Operation</h2>
 * <ul>
 *   <li>Towards each peer (IP address and port) a stream of DATA frames with sequence numbers
 *       (PSNs) from 0, at most {@link UdpDeviceConfig#window()} of them unacknowledged. A frame
 *       stays in the sender's ring until a cumulative or selective acknowledgement covers it. It is
 *       sent again at once when acknowledgements show it lost (a frame sent 3 transmissions or a round
 *       trip after it arrived; RACK, RFC 8985), by a tail loss probe after two round trips without
 *       an acknowledgement, or, the last resort, when it is the oldest at a retransmission timeout
 *       ({@link RtoEstimator}). A frame the timer has sent again
 *       {@link UdpDeviceConfig#maxRetransmissions()} times makes the peer unreachable at its next
 *       timeout: every operation with it completes with
 *       {@link CompletionStatus#LOCAL_ERROR_UNREACH_REMOTE} (or
 *       {@link CompletionStatus#REMOTE_ERROR_BAD_DEST_QPN} when a probe drew an ICMP port-unreachable,
 *       see {@link Prober}) and its state is dropped; the next operation starts a new stream.</li>
 *   <li>The receiver takes a PSN once: one below the window's start or already marked is a
 *       duplicate (acknowledged again, not delivered); one {@link UdpDeviceConfig#MAX_WINDOW} or more
 *       ahead is dropped. Nothing is held for ordering; a frame is acted on when it arrives.
 *       Acknowledgements ride on the next DATA frame to the peer or, at the end of each batch of
 *       datagrams read, in one ACK frame per peer.</li>
 *   <li>Each request gets one answer: a SEND the receiver's verdict (OK, receiver-not-ready, buffer
 *       too short) as a RESULT; an RDMA read its bytes in READ_RESPONSE frames of at most the MTU, or
 *       a RESULT with the refusal; an RDMA write, sent in WRITE frames of at most the MTU, one RESULT
 *       when its last byte has arrived. The initiator completes the operation from the answer.</li>
 *   <li>A peer that owes answers and has been silent for four RTOs is sent a NOP, so that a
 *       peer that died is found by the same retransmission bound.</li>
 * </ul>
 *
 * <h2>Error handling</h2>
 * Every datagram is checked before anything is read from it (lengths, magic, version, type,
 * operation, Q-Key, peer, window) and dropped and counted ({@link UdpCounter}) when it fails; no
 * length from the wire sizes an allocation. A request the device cannot take for lack of room
 * (answers waiting, reads or writes in progress per peer) is dropped unacknowledged and counted as
 * {@link UdpCounter#BACKPRESSURE}; the sender sends it again. An exception is caught, counted as
 * {@link UdpCounter#IO_ERRORS} and logged once; the datagram is lost, the thread goes on.
 *
 * <h2>Buffers</h2>
 * Frames are heap buffers of one datagram, kept in the sender's ring until acknowledged and then
 * pooled. Receive buffers, registrations and completions are shared with the posting thread through
 * concurrent collections; see {@link UdpDevice}.
 */
final class SrdEngine {

    private static final Logger LOG = LoggerFactory.getLogger(SrdEngine.class);

    /** Answers (RESULT frames) that may wait to be sent to one peer before its requests are refused. */
    static final int MAX_QUEUED_ANSWERS = 4 * UdpDeviceConfig.MAX_WINDOW;
    /** RDMA reads being answered plus RDMA writes being received, per peer. */
    static final int MAX_JOBS = 256;
    /**
     * How many transmissions later a frame acknowledged past an unacknowledged one must have been sent
     * for the unacknowledged one to count as lost: TCP's DupThresh (RFC 6675 §2), counted in
     * transmissions, so that a lost retransmission is found the same way (RFC 8985 §6.2).
     */
    static final int REORDER_THRESHOLD = 3;
    /** Frames kept for reuse. */
    private static final int FRAME_POOL = 1024;
    private static final int RING_MASK = UdpDeviceConfig.MAX_WINDOW - 1;

    private final UdpDeviceConfig config;
    private final int qkey;
    private final int mtu;
    private final int window;
    private final Set<Capability> capabilities;
    private final boolean ipv4;
    private final DatagramSink sink;
    private final Prober prober;
    private final Counters counters;
    private final Queue<PostedRecv> receives;
    private final MemoryRegistrations registrations;
    private final Queue<Completion> completions;
    private final Set<InetSocketAddress> refuseFrom;
    private final Map<InetSocketAddress, Peer> peers = new HashMap<>();
    private final Map<Long, UdpOp> ops = new HashMap<>();
    private final ArrayDeque<Peer> dirty = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> framePool = new ArrayDeque<>();
    private final ByteBuffer ackFrame = SrdFrame.le(ByteBuffer.allocate(SrdFrame.HEADER_LENGTH));
    private long nextToken = 1;
    private int nextStream;
    private boolean errorLogged;

    /**
     * @param config the configuration
     * @param qkey this queue pair's Q-Key
     * @param mtu the largest payload of a frame
     * @param sink where datagrams go
     * @param prober how silent ports are probed
     * @param counters where to count
     * @param receives posted receive buffers, oldest first; this thread takes from the head
     * @param registrations the registrations by key
     * @param completions where completions go
     * @param refuseFrom peers whose sends are refused with receiver-not-ready (a fault)
     */
    SrdEngine(UdpDeviceConfig config, int qkey, int mtu, DatagramSink sink, Prober prober, Counters counters,
              Queue<PostedRecv> receives, MemoryRegistrations registrations, Queue<Completion> completions,
              Set<InetSocketAddress> refuseFrom) {
        this.config = config;
        this.qkey = qkey;
        this.mtu = mtu;
        this.window = config.window();
        this.capabilities = config.capabilities();
        this.ipv4 = config.bindAddress().getAddress() instanceof Inet4Address;
        this.sink = sink;
        this.prober = prober;
        this.counters = counters;
        this.receives = receives;
        this.registrations = registrations;
        this.completions = completions;
        this.refuseFrom = refuseFrom;
        this.nextStream = qkey * 0x9E3779B9;
    }

    // ---------------------------------------------------------------- operations from the device

    /**
     * Takes an operation of the device's user and queues it towards its peer.
     *
     * @param op the operation
     * @param nowNs the time
     */
    void submit(UdpOp op, long nowNs) {
        final boolean sameFamily = (op.to.getAddress() instanceof Inet4Address) == ipv4;
        final Peer peer = sameFamily ? peers.get(op.to) : null;
        final Peer target = peer != null || !sameFamily ? peer : newPeer(op.to, nowNs);
        if (target == null) {
            completions.add(Completion.ofInitiated(op.wrId, op.opcode, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE,
                    0));
            return;
        }
        op.token = nextToken++;
        op.peer = target;
        ops.put(op.token, op);
        target.ops++;
        if (!target.qkeyLearned) {
            target.peerQkey = op.destQkey;
        }
        if (op.opcode == Opcode.RDMA_WRITE) {
            target.bulk.add(Outgoing.write(op));
        } else {
            target.control.add(Outgoing.request(op));
        }
        markDirty(target);
    }

    // ---------------------------------------------------------------- datagrams

    /**
     * Takes one datagram read from the socket.
     *
     * @param datagram its bytes, between position and limit; read only during the call
     * @param from the source address
     * @param nowNs the time
     */
    void onDatagram(ByteBuffer datagram, InetSocketAddress from, long nowNs) {
        counters.add(UdpCounter.DATAGRAMS_RECEIVED);
        try {
            final ByteBuffer d = SrdFrame.le(datagram.slice());
            if (d.remaining() < SrdFrame.HEADER_LENGTH) {
                counters.add(UdpCounter.BAD_LENGTH);
                return;
            }
            if (d.getShort(SrdFrame.MAGIC_OFFSET) != SrdFrame.MAGIC || d.get(SrdFrame.VERSION_OFFSET) != SrdFrame.VERSION) {
                counters.add(UdpCounter.BAD_HEADER);
                return;
            }
            switch (d.get(SrdFrame.TYPE_OFFSET)) {
                case SrdFrame.TYPE_DATA -> onData(d, from, nowNs);
                case SrdFrame.TYPE_ACK -> onAckFrame(d, from, nowNs);
                case SrdFrame.TYPE_PROBE -> counters.add(UdpCounter.PROBES_RECEIVED);
                default -> counters.add(UdpCounter.BAD_HEADER);
            }
        } catch (RuntimeException e) {
            onError("a datagram from " + from, e);
        }
    }

    private void onAckFrame(ByteBuffer d, InetSocketAddress from, long nowNs) {
        final Peer peer = peers.get(from);
        if (peer == null) {
            counters.add(UdpCounter.UNKNOWN_PEER);
            return;
        }
        if (d.getInt(SrdFrame.DEST_QKEY_OFFSET) != qkey) {
            counters.add(UdpCounter.BAD_QKEY);
            return;
        }
        if ((d.getShort(SrdFrame.FLAGS_OFFSET) & SrdFrame.HAS_ACK_FLAG) == 0) {
            counters.add(UdpCounter.BAD_HEADER);
            return;
        }
        heard(peer, d.getInt(SrdFrame.SRC_QKEY_OFFSET), nowNs);
        applyAck(peer, d, nowNs);
    }

    private void onData(ByteBuffer d, InetSocketAddress from, long nowNs) {
        if (d.remaining() < SrdFrame.DATA_HEADER_LENGTH) {
            counters.add(UdpCounter.BAD_LENGTH);
            return;
        }
        final int payloadLength = d.getInt(SrdFrame.PAYLOAD_LENGTH_OFFSET);
        if (payloadLength < 0 || payloadLength != d.remaining() - SrdFrame.DATA_HEADER_LENGTH) {
            counters.add(UdpCounter.BAD_LENGTH);
            return;
        }
        final byte op = d.get(SrdFrame.OP_OFFSET);
        if (!SrdFrame.isKnownOperation(op)) {
            counters.add(UdpCounter.BAD_HEADER);
            return;
        }
        final boolean request = SrdFrame.isRequest(op);
        final int destQkey = d.getInt(SrdFrame.DEST_QKEY_OFFSET);
        if (!request && destQkey != qkey) {
            counters.add(UdpCounter.BAD_QKEY);
            return;
        }
        Peer peer = peers.get(from);
        if (peer == null) {
            if (!request) {
                counters.add(UdpCounter.UNKNOWN_PEER);
                return;
            }
            peer = newPeer(from, nowNs);
            if (peer == null) {
                return;
            }
        }
        final int srcQkey = d.getInt(SrdFrame.SRC_QKEY_OFFSET);
        heard(peer, srcQkey, nowNs);
        if ((d.getShort(SrdFrame.FLAGS_OFFSET) & SrdFrame.HAS_ACK_FLAG) != 0) {
            applyAck(peer, d, nowNs);
            if (peer.removed) {
                return;
            }
        }
        final int stream = d.getInt(SrdFrame.STREAM_OFFSET);
        if (!peer.rxStarted || srcQkey != peer.rxSrcQkey) {
            startReceiving(peer, srcQkey, stream);
        } else if (stream != peer.rxStream) {
            if (stream - peer.rxStream > 0) {
                startReceiving(peer, srcQkey, stream);
            } else {
                counters.add(UdpCounter.STALE_STREAM);
                return;
            }
        }
        final int psn = d.getInt(SrdFrame.PSN_OFFSET);
        final int ahead = psn - peer.expected;
        if (ahead < 0 || (ahead < UdpDeviceConfig.MAX_WINDOW && peer.hasReceived(psn))) {
            counters.add(UdpCounter.DUPLICATES);
            peer.ackPending = true;
            markDirty(peer);
            return;
        }
        if (ahead >= UdpDeviceConfig.MAX_WINDOW) {
            counters.add(UdpCounter.OUTSIDE_WINDOW);
            return;
        }
        if (!deliver(peer, d, op, destQkey, payloadLength)) {
            counters.add(UdpCounter.BACKPRESSURE);
            return;
        }
        if (ahead == 0) {
            peer.expected++;
            while (peer.hasReceived(peer.expected)) {
                peer.clearReceived(peer.expected);
                peer.expected++;
            }
        } else {
            peer.markReceived(psn);
        }
        peer.ackPending = true;
        markDirty(peer);
    }

    /** @return false if the frame cannot be taken now (no room for its answer); nothing was done */
    private boolean deliver(Peer peer, ByteBuffer d, byte op, int destQkey, int length) {
        if (SrdFrame.isRequest(op) && (peer.queuedAnswers >= MAX_QUEUED_ANSWERS || peer.jobs >= MAX_JOBS)) {
            return false;
        }
        final long token = d.getLong(SrdFrame.TOKEN_OFFSET);
        switch (op) {
            case SrdFrame.OP_SEND -> onSendRequest(peer, d, destQkey, token, length);
            case SrdFrame.OP_READ_REQUEST -> onReadRequest(peer, d, destQkey, token);
            case SrdFrame.OP_WRITE -> onWriteSegment(peer, d, destQkey, token, length);
            case SrdFrame.OP_READ_RESPONSE -> onReadResponse(peer, d, token, length);
            case SrdFrame.OP_RESULT -> onResult(peer, d, token);
            default -> {
                // OP_NOP: only the acknowledgement is wanted
            }
        }
        return true;
    }

    private void onSendRequest(Peer peer, ByteBuffer d, int destQkey, long token, int length) {
        final CompletionStatus verdict;
        if (destQkey != qkey) {
            // SRD took it; the queue pair discards it and the sender is not told (EFA RDM v4 §4.4).
            counters.add(UdpCounter.REQUEST_QKEY_MISMATCH);
            verdict = CompletionStatus.OK;
        } else if (refuseFrom.contains(peer.address)) {
            counters.add(UdpCounter.RNR_INJECTED);
            verdict = CompletionStatus.REMOTE_ERROR_RNR;
        } else {
            final PostedRecv head = receives.peek();
            if (head == null) {
                counters.add(UdpCounter.RNR);
                verdict = CompletionStatus.REMOTE_ERROR_RNR;
            } else if (head.buffer().remaining() < length) {
                // "Receiver SGL too short" goes to the sender; the buffer stays posted.
                counters.add(UdpCounter.RECV_BUFFER_TOO_SHORT);
                verdict = CompletionStatus.REMOTE_ERROR_BAD_LENGTH;
            } else {
                receives.poll();
                head.buffer().put(head.buffer().position(), d, SrdFrame.DATA_HEADER_LENGTH, length);
                completions.add(Completion.ofReceived(head.wrId(), length, null, peer.gid, peer.qpn));
                verdict = CompletionStatus.OK;
            }
        }
        answer(peer, token, verdict);
    }

    private void onReadRequest(Peer peer, ByteBuffer d, int destQkey, long token) {
        final int rkey = d.getInt(SrdFrame.RKEY_OFFSET);
        final long address = d.getLong(SrdFrame.ADDRESS_OFFSET);
        final long total = d.getLong(SrdFrame.TOTAL_OFFSET);
        final CompletionStatus refusal = refuseRdma(destQkey, Capability.RDMA_READ);
        final ByteBuffer source = refusal == null ? registrations.remoteRange(rkey, address, total, Access.REMOTE_READ) : null;
        if (refusal != null || source == null) {
            counters.add(UdpCounter.REMOTE_ACCESS_REFUSED);
            answer(peer, token, refusal != null ? refusal : CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        } else if (total == 0) {
            answer(peer, token, CompletionStatus.OK);
        } else {
            peer.jobs++;
            peer.bulk.add(Outgoing.readResponse(token, source, total));
            markDirty(peer);
        }
    }

    private void onWriteSegment(Peer peer, ByteBuffer d, int destQkey, long token, int length) {
        final long total = d.getLong(SrdFrame.TOTAL_OFFSET);
        final long offset = d.getLong(SrdFrame.SEGMENT_OFFSET_OFFSET);
        if (total < 0 || offset < 0 || offset > total || length > total - offset) {
            counters.add(UdpCounter.BAD_HEADER);
            return;
        }
        InboundWrite write = peer.writes.get(token);
        if (write == null) {
            final CompletionStatus refusal = refuseRdma(destQkey, Capability.RDMA_WRITE);
            final ByteBuffer target = refusal == null ? registrations.remoteRange(d.getInt(SrdFrame.RKEY_OFFSET),
                    d.getLong(SrdFrame.ADDRESS_OFFSET), total, Access.REMOTE_WRITE) : null;
            write = new InboundWrite(total, target);
            peer.writes.put(token, write);
            peer.jobs++;
            if (target == null) {
                counters.add(UdpCounter.REMOTE_ACCESS_REFUSED);
                answer(peer, token, refusal != null ? refusal : CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
            }
        }
        if (write.target != null && length > 0) {
            write.target.put((int) offset, d, SrdFrame.DATA_HEADER_LENGTH, length);
        }
        write.remaining -= length;
        if (write.remaining <= 0) {
            peer.writes.remove(token);
            peer.jobs--;
            if (write.target != null) {
                answer(peer, token, CompletionStatus.OK);
            }
        }
    }

    private void onReadResponse(Peer peer, ByteBuffer d, long token, int length) {
        final UdpOp op = ops.get(token);
        final long offset = d.getLong(SrdFrame.SEGMENT_OFFSET_OFFSET);
        if (op == null || op.peer != peer || op.opcode != Opcode.RDMA_READ || offset < 0 || offset > op.length
                || length > op.length - offset) {
            counters.add(UdpCounter.STRAY_ANSWERS);
            return;
        }
        op.data.put((int) offset, d, SrdFrame.DATA_HEADER_LENGTH, length);
        op.received += length;
        if (op.received >= op.length) {
            complete(op, CompletionStatus.OK);
        }
    }

    private void onResult(Peer peer, ByteBuffer d, long token) {
        final UdpOp op = ops.get(token);
        final CompletionStatus status = CompletionStatus.fromValue(d.get(SrdFrame.STATUS_OFFSET) & 0xFF);
        if (op == null || op.peer != peer || status == null
                || (op.opcode == Opcode.RDMA_READ && status == CompletionStatus.OK && op.received < op.length)) {
            counters.add(UdpCounter.STRAY_ANSWERS);
            return;
        }
        complete(op, status);
    }

    private CompletionStatus refuseRdma(int destQkey, Capability needed) {
        if (destQkey != qkey) {
            // An RDMA request needs an answer; an ignored one would time out.
            counters.add(UdpCounter.REQUEST_QKEY_MISMATCH);
            return CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE;
        }
        if (!capabilities.contains(needed)) {
            return CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH;
        }
        return null;
    }

    // ---------------------------------------------------------------- acknowledgements

    /**
     * Takes what an acknowledgement says: frames acknowledged leave the ring, the newest of them sent
     * once measures the round trip, and frames it shows lost are sent again at once.
     */
    private void applyAck(Peer peer, ByteBuffer d, long nowNs) {
        final int ackStream = d.getInt(SrdFrame.ACK_STREAM_OFFSET);
        final int ackPsn = d.getInt(SrdFrame.ACK_PSN_OFFSET);
        final long sack = d.getLong(SrdFrame.SACK_OFFSET);
        if (ackStream != peer.stream) {
            counters.add(UdpCounter.BAD_ACK);
            return;
        }
        final int span = peer.nextPsn - peer.oldestUnacked;
        final int cumulative = ackPsn - peer.oldestUnacked;
        if (cumulative > span) {
            counters.add(UdpCounter.BAD_ACK);
            return;
        }
        Unacked newest = null;
        for (int psn = peer.oldestUnacked; psn - ackPsn < 0; psn++) {
            newest = newer(newest, ackOne(peer, psn));
        }
        for (long bits = sack; bits != 0; bits &= bits - 1) {
            final int psn = ackPsn + 1 + Long.numberOfTrailingZeros(bits);
            if (psn - peer.oldestUnacked >= 0 && psn - peer.nextPsn < 0) {
                newest = newer(newest, ackOne(peer, psn));
            }
        }
        while (peer.oldestUnacked != peer.nextPsn && peer.ring[peer.oldestUnacked & RING_MASK] == null) {
            peer.oldestUnacked++;
        }
        if (newest == null) {
            return; // nothing new: an acknowledgement repeated, or overtaken by a later one
        }
        final long rtt = nowNs - newest.sentNs;
        if (newest.transmissions == 1) {
            // Karn (RFC 6298 §3), and only the frame sent last: one acknowledged late, behind a hole the
            // cumulative acknowledgement waited on, would measure the repair instead of the path.
            peer.rto.onMeasurement(rtt);
            peer.minRttNs = Math.min(peer.minRttNs, rtt);
        }
        if ((newest.transmissions == 1 || rtt >= peer.minRttNs) && newest.order > peer.deliveredOrder) {
            // A copy sent again less than a round trip ago cannot have been acknowledged yet: an earlier
            // copy was, and says nothing of what was sent since (RFC 8985 §6.2 step 2).
            peer.deliveredOrder = newest.order;
            peer.deliveredRttNs = rtt;
        }
        if (cumulative >= 0) {
            peer.horizon = ackPsn + 1 + SrdFrame.SACK_BITS;
        }
        peer.probed = false;
        retransmitLost(peer, nowNs);
        peer.rtoDeadlineNs = 0;
        startTimers(peer, nowNs);
        markDirty(peer);
    }

    /** @return whichever of the two frames was sent last; either may be null */
    private static Unacked newer(Unacked a, Unacked b) {
        return a == null || (b != null && b.order > a.order) ? b : a;
    }

    /** @return the frame {@code psn} if this acknowledges it, now out of the ring; else null */
    private Unacked ackOne(Peer peer, int psn) {
        final Unacked unacked = peer.ring[psn & RING_MASK];
        if (unacked == null || unacked.psn != psn) {
            return null;
        }
        peer.ring[psn & RING_MASK] = null;
        peer.inFlight--;
        releaseFrame(unacked.frame);
        return unacked;
    }

    /**
     * Sends again every frame below the horizon that the acknowledgements show lost (RACK, RFC 8985
     * §6.2): a frame sent after it has arrived, and it has not, though it was sent
     * {@link #REORDER_THRESHOLD} or more transmissions earlier, or a round trip and a quarter of the
     * least one before. Frames at or past the horizon, beyond what the SACK bitmap covers, may have
     * arrived: they wait.
     */
    private void retransmitLost(Peer peer, long nowNs) {
        final long patienceNs = peer.deliveredRttNs + peer.minRttNs / 4;
        for (int psn = peer.oldestUnacked; psn != peer.nextPsn && psn - peer.horizon < 0; psn++) {
            final Unacked unacked = peer.ring[psn & RING_MASK];
            if (unacked != null && peer.deliveredOrder > unacked.order
                    && (peer.deliveredOrder - unacked.order >= REORDER_THRESHOLD
                        || nowNs - unacked.sentNs >= patienceNs)) {
                counters.add(UdpCounter.FAST_RETRANSMISSIONS);
                retransmit(peer, unacked, nowNs);
            }
        }
    }

    // ---------------------------------------------------------------- sending

    /**
     * Sends what the window allows to every peer with work, and the acknowledgements owed; called at
     * the end of every batch of datagrams, commands or timer work.
     *
     * @param nowNs the time
     */
    void flush(long nowNs) {
        try {
            Peer peer;
            while ((peer = dirty.poll()) != null) {
                peer.dirty = false;
                if (peer.removed) {
                    continue;
                }
                pump(peer, nowNs);
                if (peer.ackPending) {
                    sendAck(peer);
                }
            }
        } catch (RuntimeException e) {
            onError("sending", e);
        }
    }

    private void pump(Peer peer, long nowNs) {
        while (peer.inFlight < window && peer.nextPsn - peer.oldestUnacked < window) {
            final boolean control = !peer.control.isEmpty();
            final Outgoing outgoing = control ? peer.control.peekFirst() : peer.bulk.peekFirst();
            if (outgoing == null) {
                return;
            }
            final ByteBuffer frame = takeFrame();
            final int destQkey = outgoing.op != null ? outgoing.op.destQkey : peer.peerQkey;
            SrdFrame.writeHeader(frame, SrdFrame.TYPE_DATA, destQkey, qkey, peer.stream, peer.nextPsn);
            final boolean done = produce(peer, outgoing, frame);
            if (control) {
                peer.control.pollFirst();
            } else {
                peer.bulk.pollFirst();
                if (!done) {
                    peer.bulk.addLast(outgoing); // round robin among bulk transfers
                }
            }
            final Unacked unacked = new Unacked(peer.nextPsn, frame);
            peer.ring[peer.nextPsn & RING_MASK] = unacked;
            peer.nextPsn++;
            peer.inFlight++;
            transmit(peer, unacked, nowNs);
            startTimers(peer, nowNs);
        }
        if (!peer.control.isEmpty() || !peer.bulk.isEmpty()) {
            counters.add(UdpCounter.WINDOW_STALLS);
        }
    }

    /** Writes the next frame of {@code outgoing}; @return whether it has no more */
    private boolean produce(Peer peer, Outgoing outgoing, ByteBuffer frame) {
        switch (outgoing.kind) {
            case SrdFrame.OP_SEND -> {
                final UdpOp op = outgoing.op;
                SrdFrame.writeOperation(frame, SrdFrame.OP_SEND, 0, 0, op.token, 0, 0, 0, op.length);
                frame.put(SrdFrame.DATA_HEADER_LENGTH, op.data, 0, op.length);
                frame.limit(SrdFrame.DATA_HEADER_LENGTH + op.length);
                return true;
            }
            case SrdFrame.OP_READ_REQUEST -> {
                final UdpOp op = outgoing.op;
                SrdFrame.writeOperation(frame, SrdFrame.OP_READ_REQUEST, 0, op.remote.key(), op.token,
                        op.remote.address(), op.remote.length(), 0, 0);
                frame.limit(SrdFrame.DATA_HEADER_LENGTH);
                return true;
            }
            case SrdFrame.OP_WRITE -> {
                final UdpOp op = outgoing.op;
                final int n = (int) Math.min(mtu, op.length - op.cursor);
                SrdFrame.writeOperation(frame, SrdFrame.OP_WRITE, 0, op.remote.key(), op.token, op.remote.address(),
                        op.length, op.cursor, n);
                frame.put(SrdFrame.DATA_HEADER_LENGTH, op.data, (int) op.cursor, n);
                frame.limit(SrdFrame.DATA_HEADER_LENGTH + n);
                op.cursor += n;
                return op.cursor >= op.length;
            }
            case SrdFrame.OP_READ_RESPONSE -> {
                final int n = (int) Math.min(mtu, outgoing.total - outgoing.cursor);
                SrdFrame.writeOperation(frame, SrdFrame.OP_READ_RESPONSE, 0, 0, outgoing.token, 0, outgoing.total,
                        outgoing.cursor, n);
                frame.put(SrdFrame.DATA_HEADER_LENGTH, outgoing.source, (int) outgoing.cursor, n);
                frame.limit(SrdFrame.DATA_HEADER_LENGTH + n);
                outgoing.cursor += n;
                if (outgoing.cursor >= outgoing.total) {
                    peer.jobs--;
                    return true;
                }
                return false;
            }
            case SrdFrame.OP_RESULT -> {
                SrdFrame.writeOperation(frame, SrdFrame.OP_RESULT, outgoing.status, 0, outgoing.token, 0, 0, 0, 0);
                frame.limit(SrdFrame.DATA_HEADER_LENGTH);
                peer.queuedAnswers--;
                return true;
            }
            default -> {
                SrdFrame.writeOperation(frame, SrdFrame.OP_NOP, 0, 0, 0, 0, 0, 0, 0);
                frame.limit(SrdFrame.DATA_HEADER_LENGTH);
                return true;
            }
        }
    }

    private void transmit(Peer peer, Unacked unacked, long nowNs) {
        if (peer.rxStarted) {
            SrdFrame.writeAck(unacked.frame, peer.rxStream, peer.expected, peer.sack());
            peer.ackPending = false;
        }
        sink.send(unacked.frame.duplicate().position(0), peer.address);
        counters.add(UdpCounter.DATAGRAMS_SENT);
        unacked.sentNs = nowNs;
        unacked.order = peer.nextOrder++;
        unacked.transmissions++;
    }

    /**
     * Starts the retransmission timer if it is not running (RFC 6298 §5.1), and (re)starts the tail
     * loss probe's, unless a probe is out: two smoothed round trips and a tick after the last frame
     * sent, at most the RTO (RFC 8985 §7.2). Without a measurement there is no probe.
     */
    private void startTimers(Peer peer, long nowNs) {
        if (peer.inFlight == 0) {
            peer.rtoDeadlineNs = 0;
            peer.probeDeadlineNs = 0;
            return;
        }
        final long rto = peer.rto.rtoNs();
        if (peer.rtoDeadlineNs == 0) {
            peer.rtoDeadlineNs = nowNs + rto;
        }
        if (!peer.probed && peer.rto.measured()) {
            peer.probeDeadlineNs = nowNs + Math.min(rto, 2 * peer.rto.srttNs() + config.tickNs());
        }
    }

    private void retransmit(Peer peer, Unacked unacked, long nowNs) {
        counters.add(UdpCounter.RETRANSMISSIONS);
        transmit(peer, unacked, nowNs);
    }

    private void sendAck(Peer peer) {
        SrdFrame.writeHeader(ackFrame, SrdFrame.TYPE_ACK, peer.peerQkey, qkey, 0, 0);
        SrdFrame.writeAck(ackFrame, peer.rxStream, peer.expected, peer.sack());
        sink.send(ackFrame.duplicate().clear(), peer.address);
        counters.add(UdpCounter.DATAGRAMS_SENT);
        counters.add(UdpCounter.ACKS_SENT);
        peer.ackPending = false;
    }

    private void answer(Peer peer, long token, CompletionStatus status) {
        peer.control.add(Outgoing.result(token, status.value()));
        peer.queuedAnswers++;
        markDirty(peer);
    }

    // ---------------------------------------------------------------- timers

    /**
     * Retransmits what has waited an RTO, probes and keeps alive silent peers, and declares
     * unreachable those past the bound; then call {@link #flush(long)}.
     *
     * @param nowNs the time
     */
    void onTimer(long nowNs) {
        try {
            List<Peer> failed = null;
            List<CompletionStatus> statuses = null;
            for (Peer peer : peers.values()) {
                final CompletionStatus verdict = timers(peer, nowNs);
                if (verdict != null) {
                    failed = failed == null ? new ArrayList<>() : failed;
                    statuses = statuses == null ? new ArrayList<>() : statuses;
                    failed.add(peer);
                    statuses.add(verdict);
                }
            }
            if (failed != null) {
                for (int i = 0; i < failed.size(); i++) {
                    fail(failed.get(i), statuses.get(i));
                }
            }
        } catch (RuntimeException e) {
            onError("the timers", e);
        }
    }

    /** @return the status to fail the peer's operations with, or null */
    private CompletionStatus timers(Peer peer, long nowNs) {
        if (peer.probe != null) {
            final int verdict = peer.probe.check();
            if (verdict == Prober.PORT_UNREACHABLE) {
                return CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN;
            }
            if (verdict == Prober.HOST_UNREACHABLE) {
                return CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE;
            }
        }
        if (peer.probeDeadlineNs != 0 && nowNs - peer.probeDeadlineNs >= 0 && peer.inFlight > 0) {
            // No acknowledgement for two round trips: the last frames may be lost with nothing after
            // them to show it. Sending the newest again draws an acknowledgement whose SACK bitmap
            // shows what else is missing (RFC 8985 §7.3): the newest the bitmap can cover, as one past
            // it may have arrived and would teach nothing.
            peer.probeDeadlineNs = 0;
            peer.probed = true;
            int psn = peer.nextPsn - peer.horizon > 0 && peer.horizon - peer.oldestUnacked > 0 ? peer.horizon - 1
                    : peer.nextPsn - 1;
            while (peer.ring[psn & RING_MASK] == null) {
                psn--; // ends at the oldest, which is in the ring
            }
            counters.add(UdpCounter.TAIL_PROBES);
            retransmit(peer, peer.ring[psn & RING_MASK], nowNs);
        }
        if (peer.rtoDeadlineNs != 0 && nowNs - peer.rtoDeadlineNs >= 0 && peer.inFlight > 0) {
            counters.add(UdpCounter.TIMEOUTS);
            counters.add(UdpCounter.TIMEOUT_MICROS, peer.rto.rtoNs() / 1000);
            // Only the oldest frame goes again (RFC 6298 §5.4): once it is acknowledged, its SACK
            // bitmap says which of the others are missing, and only those follow.
            // The bound counts these alone: fast retransmissions and probes come as fast as
            // acknowledgements do, and say the peer is alive.
            final Unacked oldest = peer.ring[peer.oldestUnacked & RING_MASK];
            if (oldest.timeouts >= config.maxRetransmissions()) {
                return CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE;
            }
            oldest.timeouts++;
            retransmit(peer, oldest, nowNs);
            peer.rto.onTimeout();
            peer.rtoDeadlineNs = peer.inFlight > 0 ? nowNs + peer.rto.rtoNs() : 0;
            if (!peer.everHeard && peer.probe == null) {
                final ByteBuffer probe = SrdFrame.le(ByteBuffer.allocate(SrdFrame.HEADER_LENGTH));
                SrdFrame.writeHeader(probe, SrdFrame.TYPE_PROBE, peer.peerQkey, qkey, 0, 0);
                peer.probe = prober.open(peer.address, probe);
                counters.add(UdpCounter.PROBES_SENT);
            }
        }
        final long silence = 4 * peer.rto.rtoNs();
        if (peer.ops > 0 && peer.inFlight == 0 && peer.control.isEmpty() && peer.bulk.isEmpty()
                && nowNs - peer.lastHeardNs > silence && nowNs - peer.lastNopNs > silence) {
            peer.lastNopNs = nowNs;
            peer.control.add(Outgoing.NOP);
            markDirty(peer);
        }
        return null;
    }

    private void fail(Peer peer, CompletionStatus status) {
        counters.add(UdpCounter.PEERS_UNREACHABLE);
        LOG.debug("peer {} unreachable ({}): {} operations fail", peer.address, status, peer.ops);
        final List<UdpOp> theirs = new ArrayList<>();
        for (UdpOp op : ops.values()) {
            if (op.peer == peer) {
                theirs.add(op);
            }
        }
        theirs.sort(Comparator.comparingLong(op -> op.token));
        for (UdpOp op : theirs) {
            complete(op, status);
        }
        remove(peer);
    }

    private void remove(Peer peer) {
        for (int i = 0; i < peer.ring.length; i++) {
            if (peer.ring[i] != null) {
                releaseFrame(peer.ring[i].frame);
                peer.ring[i] = null;
            }
        }
        if (peer.probe != null) {
            peer.probe.close();
            peer.probe = null;
        }
        peer.removed = true;
        peers.remove(peer.address);
    }

    /** Releases what the engine holds outside the heap: the probes' sockets. */
    void close() {
        for (Peer peer : peers.values()) {
            if (peer.probe != null) {
                peer.probe.close();
            }
        }
    }

    // ---------------------------------------------------------------- peers and helpers

    private Peer newPeer(InetSocketAddress address, long nowNs) {
        if (peers.size() >= config.maxPeers()) {
            counters.add(UdpCounter.PEER_LIMIT);
            return null;
        }
        final Peer peer = new Peer(address, UdpAddresses.gidOf(address.getAddress()), address.getPort(),
                nextStream++, new RtoEstimator(config.initialRtoNs(), config.minRtoNs(), config.maxRtoNs(),
                        config.tickNs()), nowNs);
        peers.put(address, peer);
        return peer;
    }

    private void heard(Peer peer, int srcQkey, long nowNs) {
        peer.lastHeardNs = nowNs;
        peer.peerQkey = srcQkey;
        peer.qkeyLearned = true;
        if (!peer.everHeard) {
            peer.everHeard = true;
            if (peer.probe != null) {
                peer.probe.close();
                peer.probe = null;
            }
        }
    }

    private void startReceiving(Peer peer, int srcQkey, int stream) {
        if (peer.rxStarted && srcQkey != peer.rxSrcQkey) {
            // The sender is a new queue pair on the same port: what the old one had in progress here is gone.
            peer.jobs -= peer.writes.size();
            peer.writes.clear();
        }
        peer.rxStarted = true;
        peer.rxSrcQkey = srcQkey;
        peer.rxStream = stream;
        peer.expected = 0;
        java.util.Arrays.fill(peer.received, 0);
    }

    private void complete(UdpOp op, CompletionStatus status) {
        ops.remove(op.token);
        op.peer.ops--;
        completions.add(Completion.ofInitiated(op.wrId, op.opcode, status,
                status == CompletionStatus.OK ? op.length : 0));
    }

    private void markDirty(Peer peer) {
        if (!peer.dirty) {
            peer.dirty = true;
            dirty.add(peer);
        }
    }

    private ByteBuffer takeFrame() {
        final ByteBuffer frame = framePool.poll();
        return frame != null ? frame.clear()
                : SrdFrame.le(ByteBuffer.allocate(SrdFrame.DATA_HEADER_LENGTH + mtu));
    }

    private void releaseFrame(ByteBuffer frame) {
        if (framePool.size() < FRAME_POOL) {
            framePool.add(frame);
        }
    }

    private void onError(String where, RuntimeException e) {
        counters.add(UdpCounter.IO_ERRORS);
        if (!errorLogged) {
            errorLogged = true;
            LOG.warn("UDP device I/O thread: exception handling {} (logged once, counted as IO_ERRORS)", where, e);
        }
    }

    /** @return how many peers have state, for tests and statistics */
    int peerCount() {
        return peers.size();
    }

    /** @return how many operations are in progress */
    int operationCount() {
        return ops.size();
    }

    /**
     * @param address a peer
     * @return its current RTO, or -1 if it has no state
     */
    long rtoNs(InetSocketAddress address) {
        final Peer peer = peers.get(address);
        return peer == null ? -1 : peer.rto.rtoNs();
    }

    /**
     * @param address a peer
     * @return how many frames to it are unacknowledged, or -1 if it has no state
     */
    int inFlight(InetSocketAddress address) {
        final Peer peer = peers.get(address);
        return peer == null ? -1 : peer.inFlight;
    }

    // ---------------------------------------------------------------- state

    /** A frame sent and not yet acknowledged. */
    private static final class Unacked {
        final int psn;
        final ByteBuffer frame;
        /** When it was last sent. */
        long sentNs;
        /** The peer's count of transmissions, retransmissions included, when it was last sent. */
        long order;
        int transmissions;
        /** How often a retransmission timeout sent it again. */
        int timeouts;

        Unacked(int psn, ByteBuffer frame) {
            this.psn = psn;
            this.frame = frame;
        }
    }

    /** Something to send to a peer: one frame (a request, an answer) or a transfer of many. */
    private static final class Outgoing {
        static final Outgoing NOP = new Outgoing(SrdFrame.OP_NOP, null, 0, 0, null, 0);

        final byte kind;
        final UdpOp op;
        final long token;
        final int status;
        final ByteBuffer source;
        final long total;
        long cursor;

        private Outgoing(byte kind, UdpOp op, long token, int status, ByteBuffer source, long total) {
            this.kind = kind;
            this.op = op;
            this.token = token;
            this.status = status;
            this.source = source;
            this.total = total;
        }

        static Outgoing request(UdpOp op) {
            return new Outgoing(op.opcode == Opcode.SEND ? SrdFrame.OP_SEND : SrdFrame.OP_READ_REQUEST, op, op.token,
                    0, null, 0);
        }

        static Outgoing write(UdpOp op) {
            return new Outgoing(SrdFrame.OP_WRITE, op, op.token, 0, null, op.length);
        }

        static Outgoing readResponse(long token, ByteBuffer source, long total) {
            return new Outgoing(SrdFrame.OP_READ_RESPONSE, null, token, 0, source, total);
        }

        static Outgoing result(long token, int status) {
            return new Outgoing(SrdFrame.OP_RESULT, null, token, status, null, 0);
        }
    }

    /** An RDMA write a peer is sending here: where its bytes go (null if refused), how many are missing. */
    private static final class InboundWrite {
        final ByteBuffer target;
        long remaining;

        InboundWrite(long total, ByteBuffer target) {
            this.remaining = total;
            this.target = target;
        }
    }

    /** What the engine knows of one peer (IP address and port): both directions of its link. */
    static final class Peer {
        final InetSocketAddress address;
        final Gid gid;
        final int qpn;
        // sending
        final int stream;
        final Unacked[] ring = new Unacked[UdpDeviceConfig.MAX_WINDOW];
        final RtoEstimator rto;
        final ArrayDeque<Outgoing> control = new ArrayDeque<>();
        final ArrayDeque<Outgoing> bulk = new ArrayDeque<>();
        int nextPsn;
        int oldestUnacked;
        int inFlight;
        long rtoDeadlineNs;
        long probeDeadlineNs;
        /** A tail loss probe is out, and no acknowledgement of anything new came since. */
        boolean probed;
        long nextOrder;
        /** The greatest {@link Unacked#order} acknowledged: everything sent before it had its chance. */
        long deliveredOrder = -1;
        /** The round trip of the frame that set {@link #deliveredOrder}. */
        long deliveredRttNs;
        long minRttNs = Long.MAX_VALUE;
        /** The first PSN past what the last acknowledgement's SACK bitmap covers. */
        int horizon = SrdFrame.SACK_BITS + 1;
        int peerQkey;
        boolean qkeyLearned;
        boolean everHeard;
        long lastHeardNs;
        long lastNopNs;
        Prober.Probe probe;
        int ops;
        int queuedAnswers;
        int jobs;
        // receiving
        boolean rxStarted;
        int rxSrcQkey;
        int rxStream;
        int expected;
        final long[] received = new long[UdpDeviceConfig.MAX_WINDOW / 64];
        boolean ackPending;
        final Map<Long, InboundWrite> writes = new HashMap<>();
        // engine bookkeeping
        boolean dirty;
        boolean removed;

        Peer(InetSocketAddress address, Gid gid, int qpn, int stream, RtoEstimator rto, long nowNs) {
            this.address = address;
            this.gid = gid;
            this.qpn = qpn;
            this.stream = stream;
            this.rto = rto;
            this.lastHeardNs = nowNs;
        }

        boolean hasReceived(int psn) {
            final int bit = psn & RING_MASK;
            return (received[bit >>> 6] & (1L << bit)) != 0;
        }

        void markReceived(int psn) {
            final int bit = psn & RING_MASK;
            received[bit >>> 6] |= 1L << bit;
        }

        void clearReceived(int psn) {
            final int bit = psn & RING_MASK;
            received[bit >>> 6] &= ~(1L << bit);
        }

        /** @return bit i set if PSN expected + 1 + i arrived */
        long sack() {
            long bits = 0;
            for (int i = 0; i < SrdFrame.SACK_BITS; i++) {
                if (hasReceived(expected + 1 + i)) {
                    bits |= 1L << i;
                }
            }
            return bits;
        }
    }
}
