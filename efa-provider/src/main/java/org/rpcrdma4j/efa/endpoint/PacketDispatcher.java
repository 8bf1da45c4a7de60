package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.wire.AtomRspFlyweight;
import org.rpcrdma4j.efa.wire.CtsDataFlyweight;
import org.rpcrdma4j.efa.wire.CtsFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.EagerRtmFlyweight;
import org.rpcrdma4j.efa.wire.EagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.EorFlyweight;
import org.rpcrdma4j.efa.wire.HandshakeFlyweight;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;
import org.rpcrdma4j.efa.wire.ReadNackFlyweight;
import org.rpcrdma4j.efa.wire.ReadRspFlyweight;
import org.rpcrdma4j.efa.wire.ReceiptFlyweight;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;

/**
 * Every received packet goes through here: validated by {@link PacketDecoder}, its sender
 * identified, its connid checked, then one switch over {@link PacketType} hands it to its
 * subprotocol (libfabric's {@code efa_rdm_pke_cmd.c}: one dispatcher per event).
 * Malformed, unidentifiable, stale and unsupported packets are counted and dropped, never thrown.
 *
 * <p>Identification (§2.2): a REQ with the raw-address header names its sender, who is inserted
 * into the address vector if new; any other packet must come from a GID the device has an address
 * handle for and a (GID, QPN) in the address vector.
 *
 * <p>RTM and RTA packets, the delivery-complete ones included, are processed in msg_id order per peer
 * ({@link ReorderWindow}), except the
 * long-CTS RTM that follows a READ_NACK: its msg_id was processed with the LONGREAD_RTM
 * (DISCREPANCIES.md B6). A PEER_ERROR of kind MSG_ID_SKIP takes the turn of the msg_id it names,
 * whose message its sender aborted, so that the messages after it are not held forever.
 *
 * <p>Containment: an exception while a packet of a known peer is handled is recorded and makes
 * that peer unreachable, so that its half-processed state cannot wedge it or anyone else; one
 * before the peer is known costs only the packet.
 *
 * <p>Ownership: the receive buffer is the engine's; everything needed later is copied out before
 * this returns, after which the engine reposts the buffer.
 */
final class PacketDispatcher {

    private final PacketDecoder decoder = new PacketDecoder();
    private final ReqOptionalHeadersFlyweight optional = new ReqOptionalHeadersFlyweight();
    private final EagerRtmFlyweight rtmId = new EagerRtmFlyweight();
    private final EagerRtwFlyweight rtw = new EagerRtwFlyweight();
    private final CtsFlyweight cts = new CtsFlyweight();
    private final CtsDataFlyweight ctsData = new CtsDataFlyweight();
    private final HandshakeFlyweight handshakeFields = new HandshakeFlyweight();
    private final EorFlyweight eor = new EorFlyweight();
    private final ReadNackFlyweight readNack = new ReadNackFlyweight();
    private final ReadRspFlyweight readRsp = new ReadRspFlyweight();
    private final AtomRspFlyweight atomRsp = new AtomRspFlyweight();
    private final PeerErrorFlyweight peerError = new PeerErrorFlyweight();
    private final ReceiptFlyweight receiptFields = new ReceiptFlyweight();
    private final AddressVector av;
    private final Counters counters;
    private final Handshake handshake;
    private final EagerRtm eager;
    private final MediumRtm medium;
    private final RuntRead runtRead;
    private final LongCtsSender longCtsSender;
    private final LongCtsReceiver longCtsReceiver;
    private final LongReadSender longReadSender;
    private final LongReadReceiver longReadReceiver;
    private final TxSide tx;
    private final RxSide rx;
    private final PeerTeardown teardown;
    private final ProgressErrors errors;
    private final RmaTargets rma;
    private final Receipts receipts;

    PacketDispatcher(AddressVector av, Counters counters, Handshake handshake, EagerRtm eager, MediumRtm medium,
                     RuntRead runtRead, LongCtsSender longCtsSender, LongCtsReceiver longCtsReceiver,
                     LongReadSender longReadSender, LongReadReceiver longReadReceiver, TxSide tx, RxSide rx,
                     PeerTeardown teardown, ProgressErrors errors, RmaTargets rma, Receipts receipts) {
        this.rma = rma;
        this.receipts = receipts;
        this.av = av;
        this.counters = counters;
        this.handshake = handshake;
        this.eager = eager;
        this.medium = medium;
        this.runtRead = runtRead;
        this.longCtsSender = longCtsSender;
        this.longCtsReceiver = longCtsReceiver;
        this.longReadSender = longReadSender;
        this.longReadReceiver = longReadReceiver;
        this.tx = tx;
        this.rx = rx;
        this.teardown = teardown;
        this.errors = errors;
    }

    void onReceived(ByteBuffer buffer, Completion completion) {
        final DecodedPacket packet;
        try {
            packet = decoder.decode(buffer, 0, completion.byteLength());
        } catch (PacketDecodeException e) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        final Peer peer = identify(buffer, packet, completion);
        if (peer == null) {
            return;
        }
        try {
            dispatch(peer, buffer, packet);
        } catch (RuntimeException e) {
            errors.record("handling a " + packet.type() + " packet from " + peer, e);
            teardown.failLater(peer, Peer.State.UNREACHABLE);
        }
    }

    private void dispatch(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        handshake.onPacketFrom(peer);
        switch (packet.type()) {
            case HANDSHAKE -> handshake.onReceived(peer, buffer, packet);
            case CTS -> {
                final TxEntry entry = longCtsSender.onCts(peer, buffer, packet);
                if (entry == null) {
                    counters.increment(EndpointCounter.ORPHAN_PACKETS);
                } else {
                    tx.onWindow(entry);
                }
            }
            case CTSDATA -> longCtsReceiver.onCtsData(peer, buffer, packet);
            case EOR -> {
                final TxEntry entry = longReadSender.onEor(peer, buffer, packet);
                if (entry == null) {
                    counters.increment(EndpointCounter.ORPHAN_PACKETS);
                } else {
                    tx.finish(entry);
                }
            }
            case READ_NACK -> {
                final TxEntry entry = longReadSender.onReadNack(peer, buffer, packet);
                if (entry == null) {
                    counters.increment(EndpointCounter.ORPHAN_PACKETS);
                } else {
                    tx.onWindow(entry);
                }
            }
            case RECEIPT -> receipts.onReceived(peer, buffer, packet);
            case LONGCTS_MSGRTM, LONGCTS_TAGRTM, DC_LONGCTS_MSGRTM, DC_LONGCTS_TAGRTM -> {
                if (packet.hasFlag(PacketFlags.REQ_READ_NACK_FLAG)) {
                    longCtsReceiver.onReadNackRtm(peer, buffer, packet);
                } else {
                    onRtm(peer, buffer, packet);
                }
            }
            case EAGER_MSGRTM, EAGER_TAGRTM, MEDIUM_MSGRTM, MEDIUM_TAGRTM, LONGREAD_MSGRTM, LONGREAD_TAGRTM,
                    DC_EAGER_MSGRTM, DC_EAGER_TAGRTM, DC_MEDIUM_MSGRTM, DC_MEDIUM_TAGRTM,
                    RUNTREAD_MSGRTM, RUNTREAD_TAGRTM -> onRtm(peer, buffer, packet);
            case EAGER_RTW -> {
                // An EAGER_RTW without rma_iov is a peer asking for our HANDSHAKE, already owed above.
                if (rtw.wrap(buffer, packet.offset()).rmaIovCount() != 0) {
                    rma.eagerRtw().onReceived(peer, buffer, packet);
                }
            }
            case DC_EAGER_RTW -> rma.eagerRtw().onReceived(peer, buffer, packet);
            case LONGCTS_RTW, DC_LONGCTS_RTW -> rma.longCtsRtw().onReceived(peer, buffer, packet);
            case LONGREAD_RTW -> rma.longReadRtw().onReceived(peer, buffer, packet);
            case SHORT_RTR, LONGCTS_RTR -> rma.responder().onRtr(peer, buffer, packet);
            case READRSP -> rma.read().onReadRsp(peer, buffer, packet);
            // An RTA takes its msg_id's turn with the peer's RTMs (efa_rdm_pke_handle_rtm_rta_recv).
            case WRITE_RTA, DC_WRITE_RTA, FETCH_RTA, COMPARE_RTA -> onRtm(peer, buffer, packet);
            case ATOMRSP -> rma.atomic().onAtomRsp(peer, buffer, packet);
            case PEER_ERROR -> {
                if (peerError.wrap(buffer, packet.offset()).refKind() == PeerErrorFlyweight.REF_MSG_ID_SKIP) {
                    // An aborted message's msg_id, which will never come: it takes its turn in the window, at
                    // offset 4 as an RTM's msg_id, and is skipped there.
                    onRtm(peer, buffer, packet);
                } else {
                    rma.peerErrors().onReceived(peer, buffer, packet);
                }
            }
            default -> counters.increment(EndpointCounter.UNSUPPORTED_PACKETS);
        }
    }

    private void onRtm(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        // Every RTM and RTA has msg_id at offset 4 (tables 3.3 to 3.5, 3.13, 3.14, 4.1).
        final int msgId = (int) rtmId.wrap(buffer, packet.offset()).msgId();
        switch (peer.reorder.classify(msgId)) {
            case NEXT -> {
                process(peer, msgId, buffer, packet);
                for (ArrayDeque<ReorderWindow.Held> held = peer.reorder.advance(); held != null;
                        held = peer.reorder.advance()) {
                    for (ReorderWindow.Held h : held) {
                        rx.release(peer, 0, h.buffer().capacity());
                        process(peer, msgId(h), h.buffer(), h.packet());
                    }
                }
            }
            case AHEAD -> {
                // The copy keeps a LONGREAD or RUNTREAD RTM's read_iov, which lies between the headers and the payload.
                final int length = packet.payloadOffset() - packet.offset() + packet.payloadLength();
                if (!rx.hold(peer, length)) {
                    // Held bytes count against the unexpected-bytes limits (EndpointLimits).
                    counters.increment(EndpointCounter.REORDER_OVERFLOW_PACKETS);
                    return;
                }
                counters.increment(EndpointCounter.REORDERED_PACKETS);
                final ByteBuffer copy = ByteBuffer.allocate(length);
                copy.put(0, buffer, packet.offset(), length);
                counters.add(EndpointCounter.BYTES_COPIED, packet.payloadLength());
                peer.reorder.hold(msgId, new ReorderWindow.Held(copy, new DecodedPacket(packet.type(), packet.flags(),
                        0, packet.mandatoryHeaderLength(), packet.headerLength(), packet.readIovCount(),
                        packet.payloadLength())));
            }
            case PAST -> process(peer, msgId, buffer, packet);
            case BEYOND -> counters.increment(EndpointCounter.REORDER_OVERFLOW_PACKETS);
        }
    }

    private int msgId(ReorderWindow.Held held) {
        return (int) rtmId.wrap(held.buffer(), 0).msgId();
    }

    /** An RTM or RTA whose turn has come, or a later segment of a medium or runting-read message already started. */
    private void process(Peer peer, int msgId, ByteBuffer buffer, DecodedPacket packet) {
        final PacketType type = packet.type();
        final boolean isMedium = MediumRtm.isMedium(type);
        final boolean isRunt = type == PacketType.RUNTREAD_MSGRTM || type == PacketType.RUNTREAD_TAGRTM;
        final RxEntry started = isMedium || isRunt ? peer.mediumInProgress.get(msgId) : null;
        if (started != null) {
            if (started.protocol != (isMedium ? Protocol.MEDIUM : Protocol.RUNT_READ)) {
                // A segment of another subprotocol than the message's first.
                counters.increment(EndpointCounter.MALFORMED_PACKETS);
            } else if (isMedium) {
                medium.onLaterSegment(started, buffer, packet);
            } else {
                runtRead.onLaterSegment(started, buffer, packet);
            }
        } else if (peer.reorder.classify(msgId) != ReorderWindow.Position.NEXT) {
            // Before the window and not a message in progress: a duplicate.
            counters.increment(EndpointCounter.ORPHAN_PACKETS);
        } else if (isMedium) {
            medium.onFirstSegment(peer, buffer, packet);
        } else if (isRunt) {
            runtRead.onFirstSegment(peer, buffer, packet);
        } else if (type == PacketType.PEER_ERROR) {
            counters.increment(EndpointCounter.PEER_ERRORS_RECEIVED);
        } else if (type == PacketType.WRITE_RTA || type == PacketType.DC_WRITE_RTA || type == PacketType.FETCH_RTA
                || type == PacketType.COMPARE_RTA) {
            rma.atomicResponder().onRta(peer, buffer, packet);
        } else if (type == PacketType.EAGER_MSGRTM || type == PacketType.EAGER_TAGRTM
                || type == PacketType.DC_EAGER_MSGRTM || type == PacketType.DC_EAGER_TAGRTM) {
            eager.onReceived(peer, buffer, packet);
        } else if (type == PacketType.LONGREAD_MSGRTM || type == PacketType.LONGREAD_TAGRTM) {
            longReadReceiver.onRtm(peer, buffer, packet);
        } else {
            longCtsReceiver.onRtm(peer, buffer, packet);
        }
    }

    private Peer identify(ByteBuffer buffer, DecodedPacket packet, Completion completion) {
        final Peer peer;
        if (packet.type().isReq() && packet.hasFlag(PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG)) {
            final int at = optional.wrap(buffer, packet.optionalHeadersOffset(), packet.flags()).rawAddressOffset();
            final EndpointAddress address = EndpointAddress.decode(buffer, at);
            // A device that cannot name the sender's GID leaves the raw address to name it (as libfabric's
            // provider does without the extended completion queue); the QPN it always reports.
            final Gid reported = completion.sourceGid();
            if (reported != null && !address.gid().equals(reported) || address.qpn() != completion.sourceQpn()) {
                counters.increment(EndpointCounter.MALFORMED_PACKETS);
                return null;
            }
            final Peer known = av.findExact(address);
            if (known != null && known.state == Peer.State.RESTARTED || known == null && av.isRetired(address)) {
                // §4.4: a late packet of a queue pair a newer connid replaced.
                counters.increment(EndpointCounter.STALE_CONNID_PACKETS);
                return null;
            }
            if (known != null) {
                peer = known;
            } else {
                // §2.2: the raw address lets us insert an unknown sender and answer it; a new
                // connid on a known GID and QPN replaces the peer there (§4.4).
                peer = av.insert(address);
            }
        } else {
            peer = completion.sourceAh() == null ? null : av.find(completion.sourceGid(), completion.sourceQpn());
            if (peer == null) {
                counters.increment(EndpointCounter.UNKNOWN_PEER_PACKETS);
                return null;
            }
        }
        if (packet.hasFlag(PacketFlags.CONNID_HDR_FLAG) && connid(buffer, packet, peer) != peer.address.connid()) {
            // §4.4: a packet from an earlier queue pair on the same GID and QPN.
            counters.increment(EndpointCounter.STALE_CONNID_PACKETS);
            return null;
        }
        if (!peer.isActive()) {
            counters.increment(EndpointCounter.DEAD_PEER_PACKETS);
            return null;
        }
        return peer;
    }

    /** @return the connid the packet carries; for types this endpoint drops anyway, the peer's own */
    private int connid(ByteBuffer buffer, DecodedPacket packet, Peer peer) {
        final int at = packet.offset();
        return switch (packet.type()) {
            case HANDSHAKE -> (int) handshakeFields.wrap(buffer, at).connid();
            case CTS -> (int) cts.wrap(buffer, at).connid();
            case CTSDATA -> (int) ctsData.wrap(buffer, at).connid();
            case EOR -> (int) eor.wrap(buffer, at).connid();
            case READ_NACK -> (int) readNack.wrap(buffer, at).connid();
            case READRSP -> (int) readRsp.wrap(buffer, at).connid();
            case ATOMRSP -> (int) atomRsp.wrap(buffer, at).connid();
            case PEER_ERROR -> (int) peerError.wrap(buffer, at).connid();
            case RECEIPT -> (int) receiptFields.wrap(buffer, at).connid();
            default -> packet.type().isReq()
                    ? (int) optional.wrap(buffer, packet.optionalHeadersOffset(), packet.flags()).connid()
                    : peer.address.connid();
        };
    }
}
