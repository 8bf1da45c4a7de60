package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.DeviceAttributes;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.EagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.HandshakeFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * The handshake subprotocol (EFA RDM protocol v4 §2). A peer's first packet is answered with a
 * HANDSHAKE that carries our extra features and requests ({@code nextra_p3} = 4, one
 * {@code extra_info} word) and the optional fields the provider sends: connid, host id when not
 * 0, device version (§2.1.1, DISCREPANCIES.md B4).
 *
 * <p>What it announces is what the endpoint implements: RDMA read and write where the device has them and
 * the configuration allows, delivery complete (feature 1: every DC REQ is served and answered with a RECEIPT,
 * whether or not this endpoint asks for DC itself), runting read (feature 4, received always, as the provider
 * announces it, and sent as {@code EndpointConfig.runtSize} allows), READ_NACK (feature 6, sent and acted on),
 * PEER_ERROR (feature 9: sent for a refused emulated RMA request and a failed read, its OPE_INDEX kind acted
 * on), and the connid and constant-header-length requests as configured; not unsolicited write receive. The
 * baseline subprotocols, emulated RMA and atomics included, need no announcement. A packet type that depends
 * on a feature goes to a peer only when the peer's handshake announced it (the callers check
 * {@link Peer#has}). The peer's HANDSHAKE tells which extra features may be used with it and ends the
 * raw-address header in our REQs (§2.2).
 *
 * <p>A HANDSHAKE can always be rebuilt, so a peer owed one waits on a list, not its packet: it is
 * built when a packet buffer is free. An operation that needs the peer's features before any
 * packet has come from it makes the peer talk first: a 0-byte EAGER_RTW with our raw address,
 * which the peer answers with its HANDSHAKE, as the provider's handshake trigger does.
 */
final class Handshake {

    private final HandshakeFlyweight handshake = new HandshakeFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final EagerRtwFlyweight rtw = new EagerRtwFlyweight();
    private final ArrayDeque<Peer> owed = new ArrayDeque<>();
    private final ArrayDeque<Peer> triggers = new ArrayDeque<>();
    private final PacketPool packets;
    private final TxQueue txQueue;
    private final ReqHeader reqHeader;
    private final EndpointAddress self;
    private final Counters counters;
    private final long extraInfo;
    private final long hostId;

    Handshake(PacketPool packets, TxQueue txQueue, ReqHeader reqHeader, EndpointAddress self, Counters counters,
              EndpointConfig config, DeviceAttributes device) {
        this.packets = packets;
        this.txQueue = txQueue;
        this.reqHeader = reqHeader;
        this.self = self;
        this.counters = counters;
        this.hostId = config.hostId();
        this.extraInfo = (config.rdmaRead() && device.has(Capability.RDMA_READ) ? ExtraFeature.RDMA_READ.mask() : 0)
                | (config.rdmaWrite() && device.has(Capability.RDMA_WRITE) ? ExtraFeature.RDMA_WRITE.mask() : 0)
                | ExtraFeature.DELIVERY_COMPLETE.mask() | ExtraFeature.RUNT.mask()
               | ExtraFeature.READ_NACK.mask() | ExtraFeature.PEER_ERROR.mask()
                | (config.requestConnidHeader() ? ExtraFeature.CONNID_HEADER.mask() : 0)
                | (config.requestConstantHeaderLength() ? ExtraFeature.CONSTANT_HEADER_LENGTH.mask() : 0);
    }

    /** @return whether this endpoint announces (and so may use) a feature */
    boolean announces(ExtraFeature feature) {
        return (extraInfo & feature.mask()) != 0;
    }

    /** §2.1 step 2: a packet came from the peer; it gets our HANDSHAKE once. */
    void onPacketFrom(Peer peer) {
        if (peer.isActive() && !peer.handshakeSent && !peer.handshakeQueued) {
            peer.handshakeQueued = true;
            owed.add(peer);
        }
    }

    /** Makes the peer send its HANDSHAKE, unless it has or we asked already. */
    void trigger(Peer peer) {
        if (!peer.handshakeReceived && !peer.handshakeTriggered) {
            peer.handshakeTriggered = true;
            triggers.add(peer);
        }
    }

    /** §2.1 step 3: the peer's features and requests are known from now on. */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        counters.increment(EndpointCounter.HANDSHAKES_RECEIVED);
        handshake.wrap(buffer, packet.offset());
        peer.extraInfo = handshake.extraInfoCount() > 0 ? handshake.extraInfo(0) : 0;
        peer.handshakeReceived = true;
    }

    /** Drops the HANDSHAKE and trigger owed to a peer that is no longer active. */
    void forget(Peer peer) {
        owed.remove(peer);
        triggers.remove(peer);
        peer.handshakeQueued = false;
    }

    /** Forgets every HANDSHAKE and trigger owed: the endpoint is closing. */
    void clear() {
        owed.clear();
        triggers.clear();
    }

    /** @return whether no HANDSHAKE or trigger packet is owed */
    boolean idle() {
        return owed.isEmpty() && triggers.isEmpty();
    }

    /** @return how many HANDSHAKE and trigger packets were handed to the TX queue */
    int progress() {
        int sent = 0;
        while (!owed.isEmpty()) {
            final PacketEntry packet = packets.acquire();
            if (packet == null) {
                return sent;
            }
            final Peer peer = owed.poll();
            peer.handshakeQueued = false;
            peer.handshakeSent = true;
            buildHandshake(packet, peer);
            counters.increment(EndpointCounter.HANDSHAKES_SENT);
            txQueue.send(packet);
            sent++;
        }
        while (!triggers.isEmpty()) {
            final PacketEntry packet = packets.acquire();
            if (packet == null) {
                return sent;
            }
            buildTrigger(packet, triggers.poll());
            txQueue.send(packet);
            sent++;
        }
        return sent;
    }

    private void buildHandshake(PacketEntry packet, Peer peer) {
        final ByteBuffer buffer = packet.buffer;
        final int flags = PacketFlags.CONNID_HDR_FLAG | PacketFlags.HANDSHAKE_DEVICE_VERSION_HDR_FLAG
                | (hostId != 0 ? PacketFlags.HANDSHAKE_HOST_ID_HDR_FLAG : 0);
        final int length = HandshakeFlyweight.EXTRA_INFO_OFFSET + HandshakeFlyweight.EXTRA_INFO_WORD_LENGTH
                + HandshakeFlyweight.optionalHeadersLength(flags);
        for (int i = 0; i < length; i++) {
            buffer.put(i, (byte) 0);
        }
        base.wrap(buffer, 0).type(PacketType.HANDSHAKE.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(flags);
        handshake.wrap(buffer, 0).nextraP3(HandshakeFlyweight.MIN_NEXTRA_P3 + 1).extraInfo(0, extraInfo)
                .connid(Integer.toUnsignedLong(self.connid())).deviceVersion(0);
        if (hostId != 0) {
            handshake.hostId(hostId);
        }
        packet.length = length;
        packet.assign(peer);
    }

    private void buildTrigger(PacketEntry packet, Peer peer) {
        final int at = reqHeader.write(packet.buffer, PacketType.EAGER_RTW, 0, peer, false, 0);
        rtw.wrap(packet.buffer, 0).rmaIovCount(0);
        packet.length = at;
        packet.assign(peer);
    }
}
