package org.rpcrdma4j.testbed.capture;

import java.nio.ByteBuffer;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * The RDMA-CM messages that set up one RC connection (IBTA 12.6), as 256-byte MADs of the CM class:
 * ConnectRequest with the RDMA IP CM service ID and header (the RDMA IP CM Service annex), ConnectReply,
 * ReadyToUse; each carries RFC 8797 private data where Linux's RDMA-CM puts it. They travel as UD Sends to
 * QP 1 behind a {@link #deth DETH}.
 */
final class CmMads {

    static final int MAD_LENGTH = 256;
    static final int CONNECT_REQUEST = 0x0010;
    static final int CONNECT_REPLY = 0x0013;
    static final int READY_TO_USE = 0x0014;
    /** The queue pair every CM MAD goes to and comes from (GSI). */
    static final int GSI_QP = 1;
    /** The Q_Key of QP 1 (IBTA 13.4.7.1). */
    static final int GSI_Q_KEY = 0x80010000;
    /** The NFS/RDMA port (RFC 5667 §5), which the service ID names and tshark's RPC-over-RDMA dissector knows. */
    static final int NFS_RDMA_PORT = 20049;

    /** The CM message's attribute data starts after the MAD's common header. */
    private static final int DATA = 24;
    /** REQ: the 92 bytes of private data, of which the RDMA IP CM header takes the first 36. */
    private static final int REQ_PRIVATE = DATA + 140;
    private static final int IP_CM_HEADER_LENGTH = 36;
    private static final int REP_PRIVATE = DATA + 36;
    private static final int MGMT_CLASS_CM = 0x07;
    private static final int CM_CLASS_VERSION = 2;
    private static final int METHOD_SEND = 0x03;
    /** Service ID of RDMA IP CM over TCP's port space: 0x0000000001, protocol 0x06, then the port. */
    private static final long IP_CM_TCP_SERVICE = 0x0000000001060000L;
    /** IBTA path MTU code for 4096 bytes. */
    private static final int MTU_4096 = 5;
    private static final int PERMISSIVE_LID = 0xFFFF;
    private static final int DEFAULT_P_KEY = 0xFFFF;
    private static final int HOP_LIMIT = 64;

    private CmMads() {
    }

    /** @return the DETH of a CM MAD: QP 1's Q_Key and source QP 1 */
    static byte[] deth() {
        return ByteBuffer.allocate(RoceFrame.DETH_LENGTH).putInt(GSI_Q_KEY).putInt(GSI_QP).array();
    }

    /**
     * @param commId      the client's communication ID
     * @param client      the client's IPv4 address
     * @param server      the server's IPv4 address
     * @param clientPort  the client's port in the IP CM header
     * @param qpn         the client's queue pair
     * @param startingPsn the first PSN the client sends with
     * @param data        the client's RFC 8797 private data
     * @return the ConnectRequest
     */
    static byte[] request(int commId, int client, int server, int clientPort, int qpn, int startingPsn,
                          ConnectPrivateData data) {
        ByteBuffer m = header(commId, CONNECT_REQUEST);
        m.position(DATA);
        m.putInt(commId).putInt(0).putLong(IP_CM_TCP_SERVICE | NFS_RDMA_PORT).putLong(guid(client)).putInt(0)
                .putInt(0)                                     // Local Q_Key: unused on RC
                .putInt(qpn << 8 | 16)                         // Local QPN, responder resources
                .putInt(16)                                    // Local EECN, initiator depth
                .putInt(20 << 3)                               // Remote EECN, remote CM response timeout, RC
                .putInt(startingPsn << 8 | 20 << 3 | 6)        // Starting PSN, local CM timeout, retry count
                .putShort((short) DEFAULT_P_KEY)
                .put((byte) (MTU_4096 << 4)).put((byte) (15 << 4))  // path MTU, RNR retries 0; max CM retries
                .putShort((short) PERMISSIVE_LID).putShort((short) PERMISSIVE_LID);
        gid(m, client);
        gid(m, server);
        m.putInt(0).put((byte) 0).put((byte) HOP_LIMIT).put((byte) 0).put((byte) (19 << 3));
        m.position(REQ_PRIVATE);
        m.put((byte) 0).put((byte) 0x40).putShort((short) clientPort);      // IP CM version 0.0, IPv4
        m.position(m.position() + 12).putInt(client).position(m.position() + 12).putInt(server);
        data.encode(m, REQ_PRIVATE + IP_CM_HEADER_LENGTH);
        return m.array();
    }

    /**
     * @param commId       the server's communication ID
     * @param remoteCommId the client's, from its request
     * @param server       the server's IPv4 address
     * @param qpn          the server's queue pair
     * @param startingPsn  the first PSN the server sends with
     * @param data         the server's RFC 8797 private data
     * @return the ConnectReply
     */
    static byte[] reply(int commId, int remoteCommId, int server, int qpn, int startingPsn, ConnectPrivateData data) {
        ByteBuffer m = header(remoteCommId, CONNECT_REPLY);
        m.position(DATA);
        m.putInt(commId).putInt(remoteCommId).putInt(0).putInt(qpn << 8).putInt(0).putInt(startingPsn << 8)
                .put((byte) 16).put((byte) 16).put((byte) 0).put((byte) 0).putLong(guid(server));
        data.encode(m, REP_PRIVATE);
        return m.array();
    }

    /**
     * @param commId       the client's communication ID
     * @param remoteCommId the server's
     * @return the ReadyToUse
     */
    static byte[] readyToUse(int commId, int remoteCommId) {
        ByteBuffer m = header(commId, READY_TO_USE);
        m.putInt(DATA, commId).putInt(DATA + 4, remoteCommId);
        return m.array();
    }

    /** The common MAD header; one transaction per connection, named after the client's communication ID. */
    private static ByteBuffer header(int transaction, int attribute) {
        ByteBuffer m = ByteBuffer.allocate(MAD_LENGTH);
        m.put((byte) 1).put((byte) MGMT_CLASS_CM).put((byte) CM_CLASS_VERSION).put((byte) METHOD_SEND).putInt(0)
                .putLong(Integer.toUnsignedLong(transaction)).putShort((short) attribute);
        return m;
    }

    /** A RoCE port's GID of an IPv4 interface: the address IPv4-mapped. */
    private static void gid(ByteBuffer m, int ipv4) {
        m.putLong(0).putInt(0xFFFF).putInt(ipv4);
    }

    /** A node GUID made of the address, locally administered, as a stand-in for a NIC's. */
    private static long guid(int ipv4) {
        return 0x0200_0000_0000_0000L | Integer.toUnsignedLong(ipv4);
    }
}
