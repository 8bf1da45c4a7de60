package org.rpcrdma4j.efa.wire;

/**
 * The flag bits of the base header's {@code flags} field, for every packet type, in one place.
 *
 * <p>Each packet type defines its own flags (protocol section 1.3), so the same bit means different
 * things in different types: {@code 0x1} is {@link #REQ_OPT_RAW_ADDR_HDR_FLAG} in a REQ packet and
 * {@link #HANDSHAKE_HOST_ID_HDR_FLAG} in a HANDSHAKE. Only {@link #CONNID_HDR_FLAG} is universal.
 */
public final class PacketFlags {

    /**
     * Universal (protocol table 1.4): the packet carries the sender's connid. Where it sits depends on the
     * type: a union slot of the mandatory header for CTS, READRSP, EOR, ATOMRSP, RECEIPT, READ_NACK and
     * PEER_ERROR; an 8-byte trailer for CTSDATA and HANDSHAKE; a 4-byte optional header for REQ packets.
     */
    public static final int CONNID_HDR_FLAG = 0x8000;

    /** REQ (table 3.1): the optional raw-address header is present. */
    public static final int REQ_OPT_RAW_ADDR_HDR_FLAG = 0x1;
    /** REQ (table 3.1): the optional CQ data header is present. */
    public static final int REQ_OPT_CQ_DATA_HDR_FLAG = 0x2;
    /** REQ (table 3.1): two-sided communication; set on every RTM. */
    public static final int REQ_MSG_FLAG = 0x4;
    /** REQ (table 3.1): tagged two-sided communication; set on every TAGRTM. */
    public static final int REQ_TAGGED_FLAG = 0x8;
    /** REQ (table 3.1): emulated RMA. The provider never sets it on RTW or RTR (DISCREPANCIES.md B8). */
    public static final int REQ_RMA_FLAG = 0x10;
    /** REQ (table 3.1): emulated atomic; set on every RTA. */
    public static final int REQ_ATOMIC_FLAG = 0x20;
    /**
     * REQ: a LONGCTS RTM sent as the fallback after a READ_NACK, carrying no data. Missing from table 3.1
     * (DISCREPANCIES.md B6).
     */
    public static final int REQ_READ_NACK_FLAG = 0x2000;

    /** CTS: the CTS belongs to an emulated long-CTS read; the document calls it {@code CTS_EMULATED_READ}. */
    public static final int CTS_READ_REQ_FLAG = 0x80;

    /** HANDSHAKE (table 2.3): the 8-byte {@code host_id} optional header is present. */
    public static final int HANDSHAKE_HOST_ID_HDR_FLAG = 0x1;
    /** HANDSHAKE (table 2.3): the 8-byte {@code device_version} optional header is present. */
    public static final int HANDSHAKE_DEVICE_VERSION_HDR_FLAG = 0x2;
    /**
     * HANDSHAKE: the 8-byte user receive QP header ({@code qpn}, {@code qkey}) is present. Not in table 2.3;
     * sent by libfabric 1.22 to 2.5 with zero-copy receive (DISCREPANCIES.md B4).
     */
    public static final int HANDSHAKE_USER_RECV_QP_HDR_FLAG = 0x4;
    /**
     * HANDSHAKE: the 8-byte HMEM peer-to-peer header ({@code p2p_supported} and 7 reserved bytes) is present.
     * Not in table 2.3; libfabric main after v2.6.0 only (DISCREPANCIES.md B4).
     */
    public static final int HANDSHAKE_HMEM_P2P_HDR_FLAG = 0x8;

    private PacketFlags() {
    }
}
