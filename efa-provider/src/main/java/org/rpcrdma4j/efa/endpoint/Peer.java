package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.wire.ExtraFeature;

/**
 * Everything the endpoint knows about one remote endpoint: its address and address handle, the
 * handshake state and the extra features and requests it announced (EFA RDM protocol v4 §2),
 * the next msg_id to send it, the reorder window for what it sends us, its medium messages in
 * progress, and its RNR backoff with the packets waiting for it.
 */
final class Peer {

    /** Whether the peer can be talked to, and if not, why. */
    enum State {
        /** In use. */
        ACTIVE,
        /** Declared unreachable: RNR for too long, or its traffic failed on the progress path. */
        UNREACHABLE,
        /** A new queue pair with a new connid took its GID and QPN (§4.4). */
        RESTARTED,
        /** Removed from the address vector, or the endpoint closed. */
        REMOVED
    }

    final long fiAddr;
    final EndpointAddress address;
    final AddressHandle ah;
    final ReorderWindow reorder;
    final Backoff backoff;
    /**
     * Medium and runting-read messages whose first segment was processed and whose later segments are still due,
     * by msg_id.
     */
    final Map<Integer, RxEntry> mediumInProgress = new HashMap<>();
    /** Long-read receives we answered READ_NACK, waiting for the long-CTS fallback RTM, by msg_id (§4.7). */
    final Map<Integer, RxEntry> readNacked = new HashMap<>();
    /** Packets waiting for this peer: RNR retransmissions and anything sent while it is in backoff. */
    final ArrayDeque<PacketEntry> rnrQueue = new ArrayDeque<>();

    State state = State.ACTIVE;
    /** TX entries of operations with this peer, not yet completed ({@code EndpointLimits.sendsPerPeer}). */
    int txEntries;
    /** Emulated writes of this peer into our memory in progress ({@code EndpointLimits.sendsPerPeer}). */
    int writeTargets;
    /**
     * Runting-read bytes towards this peer in packets not yet completed, and chosen for packets not yet built
     * (libfabric's {@code num_runt_bytes_in_flight}, bounded by {@code EndpointConfig.runtSize}).
     */
    long runtBytesInFlight;
    /** Send packet buffers assigned to this peer and not yet back in the pool. */
    int packetsHeld;
    /** Unexpected messages from this peer, and bytes held for it (unexpected and early packets). */
    int unexpectedMessages;
    long heldBytes;
    /** When the first RNR since the last accepted packet came back, or -1. */
    long rnrSinceNs = -1;
    int nextTxMsgId;
    /**
     * Sends to this peer waiting for its handshake before their msg_id is given: a delivery-complete send
     * and every send after it ({@link MessageStart}).
     */
    int messagesBeforeHandshake;
    /** We have sent our HANDSHAKE (§2.1 step 2: answer the first packet of a peer). */
    boolean handshakeSent;
    /** We owe the peer a HANDSHAKE that is not yet posted. */
    boolean handshakeQueued;
    /** The peer's HANDSHAKE arrived: its features are known and REQs stop carrying our raw address (§2.2). */
    boolean handshakeReceived;
    /** We sent a packet only to make the peer answer with its HANDSHAKE. */
    boolean handshakeTriggered;
    /** Word 0 of the peer's {@code extra_info}; only valid once {@link #handshakeReceived}. */
    long extraInfo;
    boolean inRnrList;

    Peer(long fiAddr, EndpointAddress address, AddressHandle ah, ReorderWindow reorder, Backoff backoff,
         int initialMsgId) {
        this.fiAddr = fiAddr;
        this.address = address;
        this.ah = ah;
        this.reorder = reorder;
        this.backoff = backoff;
        this.nextTxMsgId = initialMsgId;
    }

    /**
     * Peer features count as absent until its handshake arrives (libfabric's {@code efa_rdm_peer.h}).
     *
     * @return whether the peer announced the feature or request
     */
    boolean has(ExtraFeature feature) {
        return handshakeReceived && feature.wordIndex() == 0 && (extraInfo & feature.mask()) != 0;
    }

    /**
     * §2.2 and §4.3: our raw address goes into REQs until the peer's HANDSHAKE arrives, and after it
     * only if the peer asked for a constant header length.
     */
    boolean needsRawAddress() {
        return !handshakeReceived || has(ExtraFeature.CONSTANT_HEADER_LENGTH);
    }

    /**
     * §4.4 and DISCREPANCIES.md B8: the connid header goes into REQs and CTSDATA once the peer has
     * asked for it, never together with the raw address.
     */
    boolean needsConnid() {
        return !needsRawAddress() && has(ExtraFeature.CONNID_HEADER);
    }

    boolean isActive() {
        return state == State.ACTIVE;
    }

    /** @return the error that operations with this peer end with, now that it is no longer active */
    EfaErrorCode failure() {
        return switch (state) {
            case ACTIVE -> EfaErrorCode.SUCCESS;
            case UNREACHABLE -> EfaErrorCode.PEER_UNREACHABLE;
            case RESTARTED -> EfaErrorCode.PEER_RESTARTED;
            case REMOVED -> EfaErrorCode.CANCELED;
        };
    }

    @Override
    public String toString() {
        return "Peer[" + fiAddr + ", " + address + "]";
    }
}
