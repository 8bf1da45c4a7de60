package org.rpcrdma4j.efa.device.verbs;

import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * One SPI operation of the send queue (a send, an RDMA read or write) from post to its completion and
 * the return of its work request. A send's packet sits in the op's slot of the device's registered
 * memory, behind its frame header. Reused: {@link VerbsDevice} keeps a fixed table of them.
 */
final class Op {

    final int index;
    long wrId;
    Opcode opcode;
    PeerConnection connection;
    /** The Q-Key the SPI call named. */
    int qkey;
    /** The sequence number of a send's DATA, unique among the sends in flight. */
    int sequence;
    int length;
    /** RDMA: local bytes (address and lkey of the registration) and the remote ones. */
    long localAddress;
    int lkey;
    RmaIov remote;
    /** Its work request is on a queue pair and has not completed. */
    boolean onQueuePair;
    /** Its SPI completion is made. */
    boolean ended;
    boolean inUse;

    Op(int index) {
        this.index = index;
    }

    /** @return whether the op is done with: completion made, work request back */
    boolean done() {
        return ended && !onQueuePair;
    }
}
