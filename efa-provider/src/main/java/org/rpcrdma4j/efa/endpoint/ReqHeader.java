package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * The parts every REQ packet shares (EFA RDM protocol v4 §3.1): the base header and the
 * optional headers, in flag-bit order raw address, CQ data, connid. Which of them a packet to a
 * peer carries is decided here, once, from the peer's handshake state (§2.2, §4.3, §4.4).
 */
final class ReqHeader {

    private static final int RAW_ADDR_HEADER_LENGTH = ReqOptionalHeadersFlyweight.PROVIDER_RAW_ADDR_HEADER_LENGTH;

    private final ReqOptionalHeadersFlyweight optional = new ReqOptionalHeadersFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final RmaIovFlyweight iov = new RmaIovFlyweight();
    private final EndpointAddress self;

    ReqHeader(EndpointAddress self) {
        this.self = self;
    }

    /** @return the optional-header flags a REQ to {@code peer} carries now */
    static int optionalFlags(Peer peer, boolean hasCqData) {
        int flags = 0;
        if (peer.needsRawAddress()) {
            flags |= PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG;
        }
        if (hasCqData) {
            flags |= PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG;
        }
        if (peer.needsConnid()) {
            flags |= PacketFlags.CONNID_HDR_FLAG;
        }
        return flags;
    }

    /** @return the length of the optional headers the flags announce, as the provider lays them out */
    static int optionalLength(int flags) {
        return ((flags & PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG) == 0 ? 0 : RAW_ADDR_HEADER_LENGTH)
                + ((flags & PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG) == 0 ? 0 : ReqOptionalHeadersFlyweight.CQ_DATA_LENGTH)
                + ((flags & PacketFlags.CONNID_HDR_FLAG) == 0 ? 0 : ReqOptionalHeadersFlyweight.CONNID_LENGTH);
    }

    /** @return the whole header length of a REQ of this type to {@code peer} now */
    static int length(PacketType type, Peer peer, boolean hasCqData) {
        return length(type, 0, peer, hasCqData);
    }

    /** @return the whole header length of a REQ of this type with {@code rmaIovCount} rma_iov entries (§3.3) */
    static int length(PacketType type, int rmaIovCount, Peer peer, boolean hasCqData) {
        return type.mandatoryHeaderLength() + rmaIovCount * RmaIovFlyweight.LENGTH
                + optionalLength(optionalFlags(peer, hasCqData));
    }

    /**
     * Writes the base header and the optional headers, and zeroes the mandatory header between
     * them for the caller to fill: padding the provider leaves unwritten goes out as zeros.
     *
     * @return the header length: where the payload starts
     */
    int write(ByteBuffer buffer, PacketType type, int categoryFlags, Peer peer, boolean hasCqData, long cqData) {
        return write(buffer, type, categoryFlags, null, peer, hasCqData, cqData);
    }

    /**
     * As {@link #write(ByteBuffer, PacketType, int, Peer, boolean, long)}, for an RTW or RTR whose one
     * {@code rma_iov} entry ends the mandatory header (§3.3 tables 3.8 to 3.12, 4.3); the caller writes
     * {@code rma_iov_count}. The provider sets no category flag on these (DISCREPANCIES.md B8).
     */
    int write(ByteBuffer buffer, PacketType type, RmaIov remote, Peer peer, boolean hasCqData, long cqData) {
        return write(buffer, type, 0, remote, peer, hasCqData, cqData);
    }

    /**
     * As {@link #write(ByteBuffer, PacketType, RmaIov, Peer, boolean, long)}, with a category flag: an RTA's
     * {@code REQ_ATOMIC} (§3.3 tables 3.13 and 3.14, DISCREPANCIES.md B8).
     */
    int write(ByteBuffer buffer, PacketType type, int categoryFlags, RmaIov remote, Peer peer, boolean hasCqData,
              long cqData) {
        final int optionalFlags = optionalFlags(peer, hasCqData);
        final int mandatory = type.mandatoryHeaderLength() + (remote == null ? 0 : RmaIovFlyweight.LENGTH);
        final int header = mandatory + optionalLength(optionalFlags);
        for (int i = 0; i < header; i++) {
            buffer.put(i, (byte) 0);
        }
        base.wrap(buffer, 0).type(type.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(categoryFlags | optionalFlags);
        if (remote != null) {
            iov.wrap(buffer, type.mandatoryHeaderLength()).addr(remote.address()).len(remote.length())
                    .key(Integer.toUnsignedLong(remote.key()));
        }
        optional.wrap(buffer, mandatory, optionalFlags);
        if ((optionalFlags & PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG) != 0) {
            // DISCREPANCIES.md A4: the provider declares 36 bytes and sends 40 in all.
            optional.rawAddrLen(ReqOptionalHeadersFlyweight.PROVIDER_RAW_ADDR_LEN);
            self.encode(buffer, optional.rawAddressOffset());
        }
        if (hasCqData) {
            optional.cqData(cqData);
        }
        if ((optionalFlags & PacketFlags.CONNID_HDR_FLAG) != 0) {
            optional.connid(Integer.toUnsignedLong(self.connid()));
        }
        return header;
    }
}
