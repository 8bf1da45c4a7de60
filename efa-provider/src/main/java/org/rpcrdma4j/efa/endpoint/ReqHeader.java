package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;

/**
 * The parts every REQ packet shares (EFA RDM protocol v4 §3.1): the base header and the
 * optional headers, in flag-bit order raw address, CQ data, connid. Which of them a packet to a
 * peer carries is decided here, once, from the peer's handshake state (§2.2, §4.3, §4.4).
 */
final class ReqHeader {

    private static final int RAW_ADDR_HEADER_LENGTH = ReqOptionalHeadersFlyweight.PROVIDER_RAW_ADDR_HEADER_LENGTH;

    private final ReqOptionalHeadersFlyweight optional = new ReqOptionalHeadersFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
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
        return type.mandatoryHeaderLength() + optionalLength(optionalFlags(peer, hasCqData));
    }

    /**
     * Writes the base header and the optional headers, and zeroes the mandatory header between
     * them for the caller to fill: padding the provider leaves unwritten goes out as zeros.
     *
     * @return the header length: where the payload starts
     */
    int write(ByteBuffer buffer, PacketType type, int categoryFlags, Peer peer, boolean hasCqData, long cqData) {
        final int optionalFlags = optionalFlags(peer, hasCqData);
        final int mandatory = type.mandatoryHeaderLength();
        final int header = mandatory + optionalLength(optionalFlags);
        for (int i = 0; i < header; i++) {
            buffer.put(i, (byte) 0);
        }
        base.wrap(buffer, 0).type(type.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(categoryFlags | optionalFlags);
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
