package org.rpcrdma4j.efa.device.verbs;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.rpcrdma4j.efa.device.Gid;

/**
 * The verbs device's RC connection to one peer queue pair (GID, QPN): its RDMA-CM id and queue pair,
 * where its setup stands, the peer's Q-Key once known, the operations waiting for it to be
 * established, and the sends waiting for the peer's verdict. Owned by the device's progress thread.
 */
final class PeerConnection {

    enum State {
        /** Active: RDMA-CM resolves the peer's address, then its route. */
        RESOLVING,
        /** Active: the REQ is out. */
        CONNECTING,
        /** Passive: the REP is out; messages may arrive before ESTABLISHED does. */
        ACCEPTING,
        ESTABLISHED,
        /** Over: it takes no work; its id goes once what is posted on it has come back. */
        ENDED
    }

    /** A peer queue pair as the SPI names it: GID and QPN (the port it listens on). */
    record Name(Gid gid, int qpn) {
    }

    final Name name;
    final boolean active;
    final long id;
    int qpNum = -1;
    State state;
    /** The peer's Q-Key (its incarnation) and RDMA, once its private data is in. */
    int peerQkey;
    boolean peerKnown;
    boolean peerReads;
    boolean peerWrites;
    /** Operations posted to the SPI before the connection was established, in order. */
    final ArrayDeque<Op> waiting = new ArrayDeque<>();
    /** Sends out on the queue pair, by sequence number, until the peer's verdict. */
    final Map<Integer, Op> awaitingVerdict = new HashMap<>();
    /** Work requests on the queue pair not yet completed (flushed ones included). */
    int posted;
    /** A REP went either way: the connection exists for the peer too, and ending it takes a disconnect. */
    boolean linked;
    int collisionRetries;

    PeerConnection(Name name, boolean active, long id, State state) {
        this.name = name;
        this.active = active;
        this.id = id;
        this.state = state;
    }

    void peer(ConnectData.Peer peer) {
        peerQkey = peer.address().qkey();
        peerReads = peer.read();
        peerWrites = peer.write();
        peerKnown = true;
    }

    @Override
    public String toString() {
        return "connection to " + name.gid() + " QPN " + name.qpn() + " (" + state + (active ? ", active" : ", passive")
                + ")";
    }
}
