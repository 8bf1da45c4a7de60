package org.rpcrdma4j.efa.endpoint;

/**
 * The handlers of the packets emulated RMA and atomics bring to the dispatcher (EFA RDM protocol v4 §3.3, §4.1):
 * the REQs a target serves, the READRSP and ATOMRSP a requester takes, and PEER_ERROR. One parameter instead of
 * eight.
 */
record RmaTargets(EagerRtw eagerRtw, LongCtsRtw longCtsRtw, LongReadRtw longReadRtw, EmulatedRead read,
                  ReadResponder responder, EmulatedAtomic atomic, AtomicResponder atomicResponder,
                  PeerErrors peerErrors) {
}
