package org.rpcrdma4j.efa.wire;

import static org.rpcrdma4j.efa.wire.GoldenPacket.integer;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Encodes a packet from fields in the golden {@code fields} shape (wire names, {@code 0x} hex values)
 * with nothing but the flyweights' setters, in wire order.
 */
final class GoldenEncoder {

    private final Map<String, Object> fields;
    private final ByteBuffer buffer;

    private GoldenEncoder(Map<String, Object> fields, ByteBuffer buffer) {
        this.fields = fields;
        this.buffer = buffer;
    }

    /**
     * Encodes the packet at index 0 of {@code buffer}.
     *
     * @return the packet length
     */
    static int encode(Map<String, Object> fields, ByteBuffer buffer) {
        return new GoldenEncoder(fields, buffer).encode();
    }

    private long v(String name) {
        Object value = fields.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing field " + name);
        }
        return integer(value);
    }

    /** The union slot of non-REQ headers: {@code connid} with CONNID_HDR, else {@code padding}. */
    private long connidOrPadding() {
        return fields.containsKey("connid") ? v("connid") : v("padding");
    }

    private int encode() {
        int typeId = (int) v("type");
        int flags = (int) v("flags");
        new BaseHeaderFlyweight().wrap(buffer, 0).type(typeId).version((int) v("version")).flags(flags);
        PacketType type = PacketType.fromId(typeId);
        int end = switch (type) {
            case HANDSHAKE -> handshake(flags);
            case CTS -> {
                new CtsFlyweight().wrap(buffer, 0).connid(connidOrPadding()).sendId(v("send_id"))
                        .recvId(v("recv_id")).recvLength(v("recv_length"));
                yield CtsFlyweight.HEADER_LENGTH;
            }
            case CTSDATA -> {
                CtsDataFlyweight ctsData = new CtsDataFlyweight().wrap(buffer, 0).recvId(v("recv_id"))
                        .segLength(v("seg_length")).segOffset(v("seg_offset"));
                if ((flags & PacketFlags.CONNID_HDR_FLAG) == 0) {
                    yield CtsDataFlyweight.HEADER_LENGTH;
                }
                ctsData.connid(v("opt_connid")).connidPadding(v("opt_connid_padding"));
                yield CtsDataFlyweight.HEADER_LENGTH + CtsDataFlyweight.CONNID_HEADER_LENGTH;
            }
            case READRSP -> {
                new ReadRspFlyweight().wrap(buffer, 0).connid(connidOrPadding()).recvId(v("recv_id"))
                        .sendId(v("send_id")).segLength(v("seg_length"));
                yield ReadRspFlyweight.HEADER_LENGTH;
            }
            case EOR -> {
                new EorFlyweight().wrap(buffer, 0).sendId(v("send_id")).recvId(v("recv_id")).connid(connidOrPadding());
                yield EorFlyweight.HEADER_LENGTH;
            }
            case ATOMRSP -> {
                new AtomRspFlyweight().wrap(buffer, 0).connid(connidOrPadding()).reserved(v("reserved"))
                        .recvId(v("recv_id")).segLength(v("seg_length"));
                yield AtomRspFlyweight.HEADER_LENGTH;
            }
            case RECEIPT -> {
                new ReceiptFlyweight().wrap(buffer, 0).txId(v("tx_id")).msgId(v("msg_id")).connid(connidOrPadding());
                yield ReceiptFlyweight.HEADER_LENGTH;
            }
            case READ_NACK -> {
                new ReadNackFlyweight().wrap(buffer, 0).sendId(v("send_id")).recvId(v("recv_id"))
                        .connid(connidOrPadding());
                yield ReadNackFlyweight.HEADER_LENGTH;
            }
            case PEER_ERROR -> {
                new PeerErrorFlyweight().wrap(buffer, 0).opId(v("op_id")).refKind(v("ref_kind"))
                        .provErrno(v("prov_errno")).connid(connidOrPadding());
                yield PeerErrorFlyweight.HEADER_LENGTH;
            }
            default -> req(type, flags);
        };
        return payload(end);
    }

    @SuppressWarnings("unchecked")
    private int handshake(int flags) {
        HandshakeFlyweight handshake = new HandshakeFlyweight().wrap(buffer, 0).nextraP3(v("nextra_p3"));
        List<Object> extraInfo = (List<Object>) fields.get("extra_info");
        for (int i = 0; i < extraInfo.size(); i++) {
            handshake.extraInfo(i, integer(extraInfo.get(i)));
        }
        if (fields.containsKey("opt_connid")) {
            handshake.connid(v("opt_connid"));
        }
        if (fields.containsKey("opt_host_id")) {
            handshake.hostId(v("opt_host_id"));
        }
        if (fields.containsKey("opt_device_version")) {
            handshake.deviceVersion(v("opt_device_version"));
        }
        if (fields.containsKey("opt_user_recv_qp_qpn")) {
            handshake.userRecvQpQpn(v("opt_user_recv_qp_qpn")).userRecvQpQkey(v("opt_user_recv_qp_qkey"));
        }
        if (fields.containsKey("opt_hmem_p2p_supported")) {
            handshake.hmemP2pSupported((int) v("opt_hmem_p2p_supported"));
        }
        return HandshakeFlyweight.EXTRA_INFO_OFFSET + extraInfo.size() * HandshakeFlyweight.EXTRA_INFO_WORD_LENGTH
                + HandshakeFlyweight.optionalHeadersLength(flags);
    }

    private int req(PacketType type, int flags) {
        switch (type) {
            case EAGER_MSGRTM, EAGER_TAGRTM -> {
                EagerRtmFlyweight rtm = new EagerRtmFlyweight().wrap(buffer, 0).msgId(v("msg_id"));
                if (type.isTagged()) {
                    rtm.tag(v("tag"));
                }
            }
            case MEDIUM_MSGRTM, MEDIUM_TAGRTM -> {
                MediumRtmFlyweight rtm = new MediumRtmFlyweight().wrap(buffer, 0).msgId(v("msg_id"))
                        .msgLength(v("msg_length")).segOffset(v("seg_offset"));
                if (type.isTagged()) {
                    rtm.tag(v("tag"));
                }
            }
            case LONGCTS_MSGRTM, LONGCTS_TAGRTM, DC_LONGCTS_MSGRTM, DC_LONGCTS_TAGRTM -> {
                LongCtsRtmFlyweight rtm = new LongCtsRtmFlyweight().wrap(buffer, 0).msgId(v("msg_id"))
                        .msgLength(v("msg_length")).sendId(v("send_id")).creditRequest(v("credit_request"));
                if (type.isTagged()) {
                    rtm.tag(v("tag"));
                }
            }
            case LONGREAD_MSGRTM, LONGREAD_TAGRTM -> {
                LongReadRtmFlyweight rtm = new LongReadRtmFlyweight().wrap(buffer, 0).msgId(v("msg_id"))
                        .msgLength(v("msg_length")).sendId(v("send_id")).readIovCount(v("read_iov_count"));
                if (type.isTagged()) {
                    rtm.tag(v("tag"));
                }
            }
            case DC_EAGER_MSGRTM, DC_EAGER_TAGRTM -> {
                DcEagerRtmFlyweight rtm = new DcEagerRtmFlyweight().wrap(buffer, 0).msgId(v("msg_id"))
                        .sendId(v("send_id")).padding(v("padding"));
                if (type.isTagged()) {
                    rtm.tag(v("tag"));
                }
            }
            case DC_MEDIUM_MSGRTM, DC_MEDIUM_TAGRTM -> {
                DcMediumRtmFlyweight rtm = new DcMediumRtmFlyweight().wrap(buffer, 0).msgId(v("msg_id"))
                        .sendId(v("send_id")).padding(v("padding")).msgLength(v("msg_length"))
                        .segOffset(v("seg_offset"));
                if (type.isTagged()) {
                    rtm.tag(v("tag"));
                }
            }
            case RUNTCTS_MSGRTM, RUNTCTS_TAGRTM -> {
                RuntCtsRtmFlyweight rtm = new RuntCtsRtmFlyweight().wrap(buffer, 0).msgId(v("msg_id"))
                        .msgLength(v("msg_length")).sendId(v("send_id")).creditRequest(v("credit_request"))
                        .segOffset(v("seg_offset")).runtLength(v("runt_length"));
                if (type.isTagged()) {
                    rtm.tag(v("tag"));
                }
            }
            case RUNTREAD_MSGRTM, RUNTREAD_TAGRTM -> {
                RuntReadRtmFlyweight rtm = new RuntReadRtmFlyweight().wrap(buffer, 0).msgId(v("msg_id"))
                        .msgLength(v("msg_length")).sendId(v("send_id")).readIovCount(v("read_iov_count"))
                        .segOffset(v("seg_offset")).runtLength(v("runt_length"));
                if (type.isTagged()) {
                    rtm.tag(v("tag"));
                }
            }
            case EAGER_RTW -> new EagerRtwFlyweight().wrap(buffer, 0).rmaIovCount(v("rma_iov_count"));
            case DC_EAGER_RTW -> new DcEagerRtwFlyweight().wrap(buffer, 0).rmaIovCount(v("rma_iov_count"))
                    .sendId(v("send_id")).padding(v("padding"));
            case LONGCTS_RTW, DC_LONGCTS_RTW -> new LongCtsRtwFlyweight().wrap(buffer, 0)
                    .rmaIovCount(v("rma_iov_count")).msgLength(v("msg_length")).sendId(v("send_id"))
                    .creditRequest(v("credit_request"));
            case LONGREAD_RTW -> new LongReadRtwFlyweight().wrap(buffer, 0).rmaIovCount(v("rma_iov_count"))
                    .msgLength(v("msg_length")).sendId(v("send_id")).readIovCount(v("read_iov_count"));
            case RUNTCTS_RTW -> new RuntCtsRtwFlyweight().wrap(buffer, 0).rmaIovCount(v("rma_iov_count"))
                    .msgLength(v("msg_length")).sendId(v("send_id")).creditRequest(v("credit_request"))
                    .segOffset(v("seg_offset")).runtLength(v("runt_length"));
            case RUNTREAD_RTW -> new RuntReadRtwFlyweight().wrap(buffer, 0).rmaIovCount(v("rma_iov_count"))
                    .msgLength(v("msg_length")).sendId(v("send_id")).readIovCount(v("read_iov_count"))
                    .segOffset(v("seg_offset")).runtLength(v("runt_length"));
            case SHORT_RTR, LONGCTS_RTR -> new RtrFlyweight().wrap(buffer, 0).rmaIovCount(v("rma_iov_count"))
                    .msgLength(v("msg_length")).recvId(v("recv_id")).recvLength(v("recv_length"));
            case WRITE_RTA, FETCH_RTA, COMPARE_RTA, DC_WRITE_RTA -> {
                RtaFlyweight rta = new RtaFlyweight().wrap(buffer, 0).msgId(v("msg_id"))
                        .rmaIovCount(v("rma_iov_count")).atomicDatatype(v("atomic_datatype")).atomicOp(v("atomic_op"));
                switch (type) {
                    case FETCH_RTA, COMPARE_RTA -> rta.recvId(v("recv_id"));
                    case DC_WRITE_RTA -> rta.sendId(v("send_id"));
                    default -> rta.padding(v("padding"));
                }
            }
            default -> throw new IllegalArgumentException(type + " is not a REQ type");
        }
        int at = iovArray("rma_iov", type.mandatoryHeaderLength());
        ReqOptionalHeadersFlyweight optional = new ReqOptionalHeadersFlyweight().wrap(buffer, at, flags);
        if ((flags & PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG) != 0) {
            rawAddress(optional, (Map<?, ?>) fields.get("opt_raw_addr"));
        }
        if ((flags & PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG) != 0) {
            optional.cqData(v("opt_cq_data"));
        }
        if ((flags & PacketFlags.CONNID_HDR_FLAG) != 0) {
            optional.connid(v("opt_connid"));
        }
        return iovArray("read_iov", at + optional.length());
    }

    private void rawAddress(ReqOptionalHeadersFlyweight optional, Map<?, ?> raw) {
        optional.rawAddrLen(integer(raw.get("addr_len")));
        new RawAddressFlyweight().wrap(buffer, optional.rawAddressOffset())
                .gid(HexFormat.of().parseHex((String) raw.get("gid")))
                .qpn((int) integer(raw.get("qpn")))
                .pad((int) integer(raw.get("pad")))
                .qkey(integer(raw.get("qkey")))
                .next(integer(raw.get("next")));
        buffer.put(optional.rawAddressOffset() + RawAddressFlyweight.LENGTH,
                HexFormat.of().parseHex((String) raw.get("trailing_bytes")));
    }

    /** Writes the named iov array, if present, at {@code at} and returns the index after it. */
    private int iovArray(String name, int at) {
        if (!(fields.get(name) instanceof List<?> entries)) {
            return at;
        }
        RmaIovFlyweight iov = new RmaIovFlyweight();
        for (Object entry : entries) {
            Map<?, ?> e = (Map<?, ?>) entry;
            iov.wrap(buffer, at).addr(integer(e.get("addr"))).len(integer(e.get("len"))).key(integer(e.get("key")));
            at += RmaIovFlyweight.LENGTH;
        }
        return at;
    }

    private int payload(int at) {
        if (!(fields.get("payload") instanceof String hex)) {
            return at;
        }
        byte[] bytes = HexFormat.of().parseHex(hex);
        buffer.put(at, bytes);
        return at + bytes.length;
    }
}
