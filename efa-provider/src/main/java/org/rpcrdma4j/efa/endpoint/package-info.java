/**
 * The endpoint engine: the EFA RDM protocol v4 state machines behind
 * {@link org.rpcrdma4j.efa.EfaEndpoint}. Package-private except for the
 * {@link org.rpcrdma4j.efa.endpoint.ProgressEngine} entry point.
 *
 * <p>One class per concept, named in the protocol's words (EFA RDM protocol v4): peers and their
 * handshake state ({@code Peer}, {@code Handshake}, {@code AddressVector}), the dispatcher of
 * received packets ({@code PacketDispatcher}), the protocol choice ({@code ProtocolSelector}), one
 * class per subprotocol side ({@code EagerRtm}, {@code MediumRtm}, {@code LongCtsSender},
 * {@code LongCtsReceiver}, {@code LongReadSender}, {@code LongReadReceiver}, {@code EagerRtw},
 * {@code LongCtsRtw}, {@code LongReadRtw}, {@code EmulatedRead}, {@code ReadResponder},
 * {@code EmulatedAtomic}, {@code AtomicResponder}, {@code DirectRma}), what an atomic does to the
 * target's elements ({@code AtomicArithmetic}), where sends and RMA start and are chosen ({@code MessageStart},
 * {@code RmaStart}), the target's access checks on the application's registrations ({@code RmaAccess},
 * {@code RegisteredMemory}), error reports between peers ({@code PeerErrors}), the RECEIPTs of
 * delivery complete ({@code Receipts}), receive matching ({@code RxMatcher}), msg_id
 * ordering ({@code ReorderWindow}), and the named queues of packets that cannot go out now
 * ({@code TxQueue}, {@code Backoff}), ending everything with a peer that stops being active
 * ({@code PeerTeardown}) and containing exceptions on the progress path ({@code ProgressErrors}).
 *
 * <p>Single-threaded: whoever calls {@code progress} owns every object here. Time is always a
 * {@code nowNs} parameter. Every queue is bounded or bounded by a table that is: send packets by
 * the packet pool, operations by the TX and RX entry tables, and per peer by
 * {@link org.rpcrdma4j.efa.EndpointLimits}: its operations, its packet buffers, its unexpected
 * messages and the bytes held for it.
 */
package org.rpcrdma4j.efa.endpoint;
