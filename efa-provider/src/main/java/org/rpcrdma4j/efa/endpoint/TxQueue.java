package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Device;

/**
 * The way every packet reaches the device, and the named lists where packets wait when it cannot
 * (efa-send-recv-completion-paths.md, "Dealing with device resource exhaustion" and "...receiver
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
 */
final class TxQueue {

    private final Device device;
    private final Counters counters;
    private final ArrayDeque<PacketEntry> queueFull = new ArrayDeque<>();
    private final ArrayDeque<Peer> rnrPeers = new ArrayDeque<>();
    private long nowNs;

    TxQueue(Device device, Counters counters) {
        this.device = device;
        this.counters = counters;
    }

    /** Sets the time of the progress call now running. */
    void now(long value) {
        nowNs = value;
    }

    /** Posts a packet, or queues it behind packets already waiting for the same reason. */
    void send(PacketEntry packet) {
        final Peer peer = packet.peer;
        if (!peer.rnrQueue.isEmpty() || peer.backoff.isActive(nowNs)) {
            queueForPeer(packet);
        } else if (!queueFull.isEmpty() || !post(packet)) {
            counters.increment(EndpointCounter.QUEUE_FULL_PACKETS);
            queueFull.add(packet);
        }
    }

    /**
     * A packet came back RNR. The first time it is only queued for retransmission; if it had
     * been retransmitted already, its peer enters backoff as well.
     */
    void onRnr(PacketEntry packet) {
        counters.increment(EndpointCounter.RNR_RETRANSMISSIONS);
        if (packet.rnrRetransmitted) {
            counters.increment(EndpointCounter.RNR_BACKOFFS);
            packet.peer.backoff.onRepeatedRnr(nowNs);
        }
        packet.rnrRetransmitted = true;
        queueForPeer(packet);
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
            if (peer.backoff.isActive(nowNs)) {
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

    private boolean post(PacketEntry packet) {
        final Peer peer = packet.peer;
        return device.postSend(peer.ah, peer.address.qpn(), peer.address.connid(), packet.packet(), packet.index);
    }
}
