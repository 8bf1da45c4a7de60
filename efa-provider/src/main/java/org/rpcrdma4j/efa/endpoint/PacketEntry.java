package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;

/**
 * A send packet buffer of MTU size and what the engine must remember about the packet in it until
 * its send completion: the peer, the operation it carries data for and how much.
 *
 * <p>Ownership: the engine fills {@link #buffer} while the entry is out of the pool and not
 * posted; from a successful {@code postSend} until the SEND completion the device owns the bytes.
 * An RNR completion hands the bytes back unchanged, which is why a packet can be retransmitted
 * as it is (libfabric's EFA send/receive completion paths document).
 */
final class PacketEntry {

    final int index;
    final ByteBuffer buffer;
    int length;
    Peer peer;
    /** The operation whose data the packet carries, or null for a control packet (HANDSHAKE, CTS, EOR, READ_NACK, PEER_ERROR). */
    TxEntry tx;
    int dataLength;
    /** A runting-read packet: its data counts in the peer's runt bytes in flight until its send completion. */
    boolean runt;
    /** Set when the packet has already been retransmitted after an RNR (libfabric's RNR_RETRANSMIT). */
    boolean rnrRetransmitted;

    PacketEntry(int index, int mtu) {
        this.index = index;
        this.buffer = ByteBuffer.allocate(mtu);
    }

    /** Gives the packet to a peer, which holds it until it is back in the pool. */
    void assign(Peer to) {
        peer = to;
        to.packetsHeld++;
    }

    void clear() {
        if (peer != null) {
            peer.packetsHeld--;
        }
        length = 0;
        peer = null;
        tx = null;
        dataLength = 0;
        runt = false;
        rnrRetransmitted = false;
    }

    /** @return the packet bytes, for {@code postSend} */
    ByteBuffer packet() {
        return buffer.duplicate().position(0).limit(length);
    }
}
