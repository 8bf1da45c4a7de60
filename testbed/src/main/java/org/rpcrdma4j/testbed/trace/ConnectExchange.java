package org.rpcrdma4j.testbed.trace;

import java.nio.ByteBuffer;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * The RPC-over-RDMA private data (RFC 8797 §4) of a capture's RDMA-CM ConnectRequest (the client's) and
 * ConnectReply (the server's): each side's inline receive size bounds what the other side sends.
 * Absent or foreign private data means the RFC 8166 default of 1024 bytes (RFC 8797 §5).
 */
public final class ConnectExchange {

    private static final int MAD_LENGTH = 256;
    /** REQ private data: the last 92 bytes of the MAD, after the 36-byte RDMA-CM IP header (IBTA 12.6.5). */
    private static final int REQ_RPCRDMA_PRIVATE = MAD_LENGTH - 92 + 36;
    /** REP private data: the last 196 bytes of the MAD (IBTA 12.6.8). */
    private static final int REP_RPCRDMA_PRIVATE = MAD_LENGTH - 196;

    private ConnectPrivateData client = ConnectPrivateData.DEFAULT;
    private ConnectPrivateData server = ConnectPrivateData.DEFAULT;

    ConnectExchange() {
    }

    /** Takes the next packet: the first REQ and first REP count. */
    void onPacket(RocePacket p) {
        int mad = p.mad();
        int attribute = p.cmAttribute();
        if (attribute < 0 || p.to() < mad + MAD_LENGTH) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(p.bytes());
        if (attribute == RocePacket.CM_REQ && client == ConnectPrivateData.DEFAULT) {
            client = ConnectPrivateData.decode(b, mad + REQ_RPCRDMA_PRIVATE, ConnectPrivateData.ENCODED_LENGTH)
                    .orElse(ConnectPrivateData.DEFAULT);
        } else if (attribute == RocePacket.CM_REP && server == ConnectPrivateData.DEFAULT) {
            server = ConnectPrivateData.decode(b, mad + REP_RPCRDMA_PRIVATE, ConnectPrivateData.ENCODED_LENGTH)
                    .orElse(ConnectPrivateData.DEFAULT);
        }
    }

    /** @return what the client offered in its ConnectRequest */
    public ConnectPrivateData client() {
        return client;
    }

    /** @return what the server answered in its ConnectReply */
    public ConnectPrivateData server() {
        return server;
    }
}
