package org.rpcrdma4j.efa.wire;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The packet types of EFA RDM protocol v4 with their stable type IDs, as the libfabric provider
 * defines them (protocol table 1.2, completed from the provider: DISCREPANCIES.md B1).
 *
 * <p>Per type it records the length of the mandatory header (for REQ types the provider's base header
 * size, without the {@code rma_iov} entries), whether an {@code rma_iov} array belongs to the mandatory
 * header, whether a {@code read_iov} array follows the optional headers, whether the type is tagged (the
 * tag is then the last 8 bytes of the mandatory header) and which extra features a peer must have
 * advertised before it may be sent (the provider's per-type REQ table).
 *
 * <p>IDs 6 ({@code RMA_CONTEXT}, internal to the provider) and 131 ({@code READ_RTR}, defined but never
 * built or handled) never appear on the wire and have no constant here; 132 is a range marker, not a type.
 */
public enum PacketType {
    /** Retired request to send; refused on receipt. */
    RETIRED_RTS(1, 0, Traits.RETIRED),
    /** Retired connection acknowledgement; refused on receipt. */
    RETIRED_CONNACK(2, 0, Traits.RETIRED),
    /** Clear to send (long-CTS message, write and read), {@link CtsFlyweight}. */
    CTS(3, CtsFlyweight.HEADER_LENGTH, 0),
    /** Data of a long-CTS transfer, {@link CtsDataFlyweight}. */
    CTSDATA(4, CtsDataFlyweight.HEADER_LENGTH, 0),
    /** Data of an emulated read, {@link ReadRspFlyweight}. */
    READRSP(5, ReadRspFlyweight.HEADER_LENGTH, 0),
    /** End of read (long-read message and write), {@link EorFlyweight}. */
    EOR(7, EorFlyweight.HEADER_LENGTH, 0),
    /** Result of an emulated fetch or compare atomic, {@link AtomRspFlyweight}. */
    ATOMRSP(8, AtomRspFlyweight.HEADER_LENGTH, 0),
    /** Capability exchange, {@link HandshakeFlyweight}; the mandatory header is the part before {@code extra_info}. */
    HANDSHAKE(9, HandshakeFlyweight.HEADER_LENGTH, 0),
    /** Delivery-complete acknowledgement, {@link ReceiptFlyweight}. */
    RECEIPT(10, ReceiptFlyweight.HEADER_LENGTH, 0),
    /** Refusal of a long-read or runting-read, {@link ReadNackFlyweight}. */
    READ_NACK(11, ReadNackFlyweight.HEADER_LENGTH, 0),
    /** Error report, libfabric main after v2.6.0 only, {@link PeerErrorFlyweight}. */
    PEER_ERROR(12, PeerErrorFlyweight.HEADER_LENGTH, 0),

    /** Eager message, {@link EagerRtmFlyweight}. */
    EAGER_MSGRTM(64, EagerRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ),
    /** Eager tagged message, {@link EagerRtmFlyweight}. */
    EAGER_TAGRTM(65, EagerRtmFlyweight.TAGRTM_HEADER_LENGTH, Traits.REQ | Traits.TAGGED),
    /** Medium message, {@link MediumRtmFlyweight}. */
    MEDIUM_MSGRTM(66, MediumRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ),
    /** Medium tagged message, {@link MediumRtmFlyweight}. */
    MEDIUM_TAGRTM(67, MediumRtmFlyweight.TAGRTM_HEADER_LENGTH, Traits.REQ | Traits.TAGGED),
    /** Long-CTS message, {@link LongCtsRtmFlyweight}. */
    LONGCTS_MSGRTM(68, LongCtsRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ),
    /** Long-CTS tagged message, {@link LongCtsRtmFlyweight}. */
    LONGCTS_TAGRTM(69, LongCtsRtmFlyweight.TAGRTM_HEADER_LENGTH, Traits.REQ | Traits.TAGGED),
    /** Emulated eager write, {@link EagerRtwFlyweight}. */
    EAGER_RTW(70, EagerRtwFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV),
    /** Emulated long-CTS write, {@link LongCtsRtwFlyweight}. */
    LONGCTS_RTW(71, LongCtsRtwFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV),
    /** Emulated short read, {@link RtrFlyweight}. */
    SHORT_RTR(72, RtrFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV),
    /** Emulated long-CTS read, {@link RtrFlyweight}. */
    LONGCTS_RTR(73, RtrFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV),
    /** Emulated write atomic, {@link RtaFlyweight}. */
    WRITE_RTA(74, RtaFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV),
    /** Emulated fetch atomic, {@link RtaFlyweight}. */
    FETCH_RTA(75, RtaFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV),
    /** Emulated compare atomic, {@link RtaFlyweight}. */
    COMPARE_RTA(76, RtaFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV),

    /** Long-read message, {@link LongReadRtmFlyweight}. */
    LONGREAD_MSGRTM(128, LongReadRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ | Traits.READ_IOV, ExtraFeature.RDMA_READ),
    /** Long-read tagged message, {@link LongReadRtmFlyweight}. */
    LONGREAD_TAGRTM(129, LongReadRtmFlyweight.TAGRTM_HEADER_LENGTH,
            Traits.REQ | Traits.TAGGED | Traits.READ_IOV, ExtraFeature.RDMA_READ),
    /** Long-read write, {@link LongReadRtwFlyweight}. */
    LONGREAD_RTW(130, LongReadRtwFlyweight.HEADER_LENGTH,
            Traits.REQ | Traits.RMA_IOV | Traits.READ_IOV, ExtraFeature.RDMA_READ),

    /** Delivery-complete eager message, {@link DcEagerRtmFlyweight}. */
    DC_EAGER_MSGRTM(133, DcEagerRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ, ExtraFeature.DELIVERY_COMPLETE),
    /** Delivery-complete eager tagged message, {@link DcEagerRtmFlyweight}. */
    DC_EAGER_TAGRTM(134, DcEagerRtmFlyweight.TAGRTM_HEADER_LENGTH,
            Traits.REQ | Traits.TAGGED, ExtraFeature.DELIVERY_COMPLETE),
    /** Delivery-complete medium message, {@link DcMediumRtmFlyweight}. */
    DC_MEDIUM_MSGRTM(135, DcMediumRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ, ExtraFeature.DELIVERY_COMPLETE),
    /** Delivery-complete medium tagged message, {@link DcMediumRtmFlyweight}. */
    DC_MEDIUM_TAGRTM(136, DcMediumRtmFlyweight.TAGRTM_HEADER_LENGTH,
            Traits.REQ | Traits.TAGGED, ExtraFeature.DELIVERY_COMPLETE),
    /** Delivery-complete long-CTS message, {@link LongCtsRtmFlyweight}. */
    DC_LONGCTS_MSGRTM(137, LongCtsRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ, ExtraFeature.DELIVERY_COMPLETE),
    /** Delivery-complete long-CTS tagged message (the document's {@code DC_LONTCTS_TAGRTM}), {@link LongCtsRtmFlyweight}. */
    DC_LONGCTS_TAGRTM(138, LongCtsRtmFlyweight.TAGRTM_HEADER_LENGTH,
            Traits.REQ | Traits.TAGGED, ExtraFeature.DELIVERY_COMPLETE),
    /** Delivery-complete emulated eager write, {@link DcEagerRtwFlyweight}. */
    DC_EAGER_RTW(139, DcEagerRtwFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV, ExtraFeature.DELIVERY_COMPLETE),
    /** Delivery-complete emulated long-CTS write, {@link LongCtsRtwFlyweight}. */
    DC_LONGCTS_RTW(140, LongCtsRtwFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV, ExtraFeature.DELIVERY_COMPLETE),
    /** Delivery-complete emulated write atomic, {@link RtaFlyweight}. */
    DC_WRITE_RTA(141, RtaFlyweight.HEADER_LENGTH, Traits.REQ | Traits.RMA_IOV, ExtraFeature.DELIVERY_COMPLETE),

    /** Runting long-CTS message; defined but never sent by the provider, {@link RuntCtsRtmFlyweight}. */
    RUNTCTS_MSGRTM(142, RuntCtsRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ, ExtraFeature.RUNT),
    /** Runting long-CTS tagged message; defined but never sent by the provider, {@link RuntCtsRtmFlyweight}. */
    RUNTCTS_TAGRTM(143, RuntCtsRtmFlyweight.TAGRTM_HEADER_LENGTH, Traits.REQ | Traits.TAGGED, ExtraFeature.RUNT),
    /**
     * Runting long-CTS write; defined but never sent by the provider, {@link RuntCtsRtwFlyweight}. Its
     * {@code rma_iov} array is not laid out (DISCREPANCIES.md E1).
     */
    RUNTCTS_RTW(144, RuntCtsRtwFlyweight.HEADER_LENGTH, Traits.REQ, ExtraFeature.RUNT),
    /** Runting-read message (section 4.5), {@link RuntReadRtmFlyweight}. */
    RUNTREAD_MSGRTM(145, RuntReadRtmFlyweight.MSGRTM_HEADER_LENGTH, Traits.REQ | Traits.READ_IOV,
            ExtraFeature.RUNT, ExtraFeature.RDMA_READ),
    /** Runting-read tagged message (section 4.5), {@link RuntReadRtmFlyweight}. */
    RUNTREAD_TAGRTM(146, RuntReadRtmFlyweight.TAGRTM_HEADER_LENGTH,
            Traits.REQ | Traits.TAGGED | Traits.READ_IOV, ExtraFeature.RUNT, ExtraFeature.RDMA_READ),
    /**
     * Runting-read write; defined but never sent by the provider, {@link RuntReadRtwFlyweight}. Its
     * {@code rma_iov} array is not laid out (DISCREPANCIES.md E1).
     */
    RUNTREAD_RTW(147, RuntReadRtwFlyweight.HEADER_LENGTH, Traits.REQ | Traits.READ_IOV,
            ExtraFeature.RUNT, ExtraFeature.RDMA_READ);

    private static final PacketType[] BY_ID = new PacketType[256];

    static {
        for (PacketType type : values()) {
            BY_ID[type.id] = type;
        }
    }

    private final int id;
    private final int mandatoryHeaderLength;
    private final int traits;
    private final Set<ExtraFeature> requiredFeatures;

    PacketType(int id, int mandatoryHeaderLength, int traits, ExtraFeature... requiredFeatures) {
        this.id = id;
        this.mandatoryHeaderLength = mandatoryHeaderLength;
        this.traits = traits;
        EnumSet<ExtraFeature> features = EnumSet.noneOf(ExtraFeature.class);
        Collections.addAll(features, requiredFeatures);
        this.requiredFeatures = Collections.unmodifiableSet(features);
    }

    /**
     * Looks a type up by the ID in the base header's {@code type} byte.
     *
     * @param id the type ID, 0 to 255
     * @return the type, or {@code null} if protocol v4 defines no packet type with that ID
     */
    public static PacketType fromId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /**
     * Returns the stable type ID carried in the base header.
     *
     * @return the ID, 1 to 147
     */
    public int id() {
        return id;
    }

    /**
     * Returns the length of the mandatory header: for REQ types without the {@code rma_iov} entries
     * (the provider's per-type base header size), for HANDSHAKE without {@code extra_info}.
     *
     * @return the length in bytes; 0 for retired types
     */
    public int mandatoryHeaderLength() {
        return mandatoryHeaderLength;
    }

    /**
     * Tells whether this is a REQ type, the first packet of a subprotocol (section 3.1), which takes the
     * REQ optional headers.
     *
     * @return true for the types from 64 up
     */
    public boolean isReq() {
        return (traits & Traits.REQ) != 0;
    }

    /**
     * Tells whether the type was retired from protocol v4 and must be refused.
     *
     * @return true for RTS and CONNACK
     */
    public boolean isRetired() {
        return (traits & Traits.RETIRED) != 0;
    }

    /**
     * Tells whether the type is a tagged RTM, whose {@code tag} is the last 8 bytes of the mandatory header.
     *
     * @return true for the TAGRTM types
     */
    public boolean isTagged() {
        return (traits & Traits.TAGGED) != 0;
    }

    /**
     * Tells whether {@code rma_iov_count} entries of {@code efa_rma_iov} end the mandatory header.
     *
     * @return true for RTW, RTR and RTA types, except RUNTCTS_RTW and RUNTREAD_RTW (DISCREPANCIES.md E1)
     */
    public boolean hasRmaIov() {
        return (traits & Traits.RMA_IOV) != 0;
    }

    /**
     * Tells whether {@code read_iov_count} entries of {@code read_iov} follow the optional headers.
     *
     * @return true for the long-read and runting-read types
     */
    public boolean hasReadIov() {
        return (traits & Traits.READ_IOV) != 0;
    }

    /**
     * Returns the extra features a peer must have advertised in its HANDSHAKE before this type may be sent
     * to it.
     *
     * @return an unmodifiable set, empty for baseline types
     */
    public Set<ExtraFeature> requiredFeatures() {
        return requiredFeatures;
    }

    /** Trait bits; a nested holder because enum constants cannot use the enum's own static fields. */
    private static final class Traits {
        static final int REQ = 1;
        static final int TAGGED = 1 << 1;
        static final int RMA_IOV = 1 << 2;
        static final int READ_IOV = 1 << 3;
        static final int RETIRED = 1 << 4;
    }
}
