package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Device;

/**
 * The way every packet reaches the device, and the named lists where packets wait when it cannot
 * (libfabric's EFA send/receive completion paths document, "Dealing with device resource exhaustion" and "...receiver
 * not ready"; libfabric's {@code efa_rdm_ope_post_send_or_queue}):
 * <ul>
 *   <li><b>queue full</b>: the device's send queue refused the post. The packet is built and may
 *       hold a control message that cannot be rebuilt, so it is kept, never dropped, and posted
 *       again, oldest first, at the next progress.</li>
 *   <li><b>RNR</b>: per peer, packets that came back receiver-not-ready, and any packet for a
 *       peer in backoff. They go out when the peer's backoff ends.</li>
 * </ul>
 * Operations waiting for a peer's handshake ({@link Protocol#DIRECT_READ},
 * {@link Protocol#DIRECT_WRITE}) wait in the engine as before-handshake entries, not here.
 *
 * <p>A peer that answers RNR without accepting a packet for {@code peerUnreachableNs} is handed to
 * the {@link PeerTeardown} as unreachable; its RNR list is bounded meanwhile by the packets a peer
 * may hold ({@code EndpointLimits.packetsPerPeer}). A device call that throws is contained to the
 * packet's peer the same way.
 */
final class TxQueue {

    private final Device device;
    private final PacketPool packets;
    private final Counters counters;
    private final ProgressErrors errors;
    private final long unreachableNs;
    private PeerTeardown teardown;
    private final ArrayDeque<PacketEntry> queueFull = new ArrayDeque<>();
    private final ArrayDeque<Peer> rnrPeers = new ArrayDeque<>();
    private long nowNs;

    TxQueue(Device device, PacketPool packets, Counters counters, ProgressErrors errors, long unreachableNs) {
        this.device = device;
        this.packets = packets;
        this.counters = counters;
        this.errors = errors;
        this.unreachableNs = unreachableNs;
    }

    void teardown(PeerTeardown value) {
        teardown = value;
    }

    /** Sets the time of the progress call now running. */
    void now(long value) {
        nowNs = value;
    }

    /** Posts a packet, or queues it behind packets already waiting for the same reason. */
    void send(PacketEntry packet) {
        final Peer peer = packet.peer;
        if (!peer.isActive()) {
            discard(packet);
        } else if (!peer.rnrQueue.isEmpty() || peer.backoff.isActive(nowNs)) {
            queueForPeer(packet);
        } else if (!queueFull.isEmpty() || !post(packet)) {
            counters.increment(EndpointCounter.QUEUE_FULL_PACKETS);
            queueFull.add(packet);
        }
    }

    /**
     * A packet came back RNR. The first time it is only queued for retransmission; if it had
     * been retransmitted already, its peer enters backoff as well.
     *
     * @return false if the packet was dropped instead, because its peer is no longer active
     */
    boolean onRnr(PacketEntry packet) {
        final Peer peer = packet.peer;
        if (!peer.isActive()) {
            discard(packet);
            return false;
        }
        counters.increment(EndpointCounter.RNR_RETRANSMISSIONS);
        if (packet.rnrRetransmitted) {
            counters.increment(EndpointCounter.RNR_BACKOFFS);
            peer.backoff.onRepeatedRnr(nowNs);
        }
        packet.rnrRetransmitted = true;
        queueForPeer(packet);
        if (peer.rnrSinceNs < 0) {
            peer.rnrSinceNs = nowNs;
        } else if (nowNs - peer.rnrSinceNs >= unreachableNs) {
            teardown.failLater(peer, Peer.State.UNREACHABLE);
        }
        return true;
    }

    /** A packet to the peer was accepted: it is receiving. */
    void onAccepted(Peer peer) {
        peer.backoff.reset();
        peer.rnrSinceNs = -1;
    }

    /**
     * Drops every packet waiting for a peer that is no longer active; the operations they
     * belong to are ended by the caller.
     */
    void forget(Peer peer) {
        final Iterator<PacketEntry> it = queueFull.iterator();
        while (it.hasNext()) {
            final PacketEntry packet = it.next();
            if (packet.peer == peer) {
                it.remove();
                discard(packet);
            }
        }
        for (PacketEntry packet = peer.rnrQueue.poll(); packet != null; packet = peer.rnrQueue.poll()) {
            discard(packet);
        }
        if (peer.inRnrList) {
            rnrPeers.remove(peer);
            peer.inRnrList = false;
        }
    }

    /** Forgets every waiting packet: the endpoint is closing. */
    void clear() {
        queueFull.clear();
        for (Peer peer : rnrPeers) {
            peer.rnrQueue.clear();
            peer.inRnrList = false;
        }
        rnrPeers.clear();
    }

    int queuedCount() {
        int count = queueFull.size();
        for (Peer peer : rnrPeers) {
            count += peer.rnrQueue.size();
        }
        return count;
    }

    /** @return whether no packet waits: none for room on the send queue, none behind a peer's RNR backoff */
    boolean idle() {
        return queueFull.isEmpty() && rnrPeers.isEmpty();
    }

    /** @return how many queued packets were posted */
    int progress() {
        int posted = 0;
        while (!queueFull.isEmpty() && post(queueFull.peek())) {
            queueFull.poll();
            posted++;
        }
        final Iterator<Peer> peers = rnrPeers.iterator();
        while (peers.hasNext()) {
            final Peer peer = peers.next();
            if (peer.backoff.isActive(nowNs) || !peer.isActive()) {
                continue;
            }
            while (!peer.rnrQueue.isEmpty() && post(peer.rnrQueue.peek())) {
                peer.rnrQueue.poll();
                posted++;
            }
            if (peer.rnrQueue.isEmpty()) {
                peer.inRnrList = false;
                peers.remove();
            }
        }
        return posted;
    }

    private void queueForPeer(PacketEntry packet) {
        final Peer peer = packet.peer;
        peer.rnrQueue.add(packet);
        if (!peer.inRnrList) {
            peer.inRnrList = true;
            rnrPeers.add(peer);
        }
    }

    /**
     * @return whether the packet left the queue: posted, or dropped because the device refused it
     *     with an exception, which fails its peer
     */
    private boolean post(PacketEntry packet) {
        final Peer peer = packet.peer;
        try {
            return device.postSend(peer.ah, peer.address.qpn(), peer.address.connid(), packet.packet(), packet.index);
        } catch (RuntimeException e) {
            errors.record("posting a packet to " + peer, e);
            discard(packet);
            teardown.failLater(peer, Peer.State.UNREACHABLE);
            return true;
        }
    }

    /** Puts a packet that will not be sent back in the pool; its operation is ended elsewhere. */
    private void discard(PacketEntry packet) {
        if (packet.tx != null) {
            packet.tx.packetsOutstanding--;
        }
        packets.release(packet);
    }
}
