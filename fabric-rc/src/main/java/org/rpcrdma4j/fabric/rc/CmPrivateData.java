package org.rpcrdma4j.fabric.rc;

import java.nio.ByteBuffer;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * RFC 8797 private data in RDMA-CM messages. A receiver gets the CM message's whole room (56 bytes
 * in a REQ, 196 in a REP), zero-padded, not the sender's length, so the data is recognised by its
 * magic and version; anything else (none, another protocol's, garbage) means the RFC's defaults.
 */
final class CmPrivateData {

    private CmPrivateData() {
    }

    /**
     * @param room the private data of a CONNECT_REQUEST or ESTABLISHED event
     * @return the peer's RFC 8797 data, or {@link ConnectPrivateData#DEFAULT}
     */
    static ConnectPrivateData recognise(byte[] room) {
        return ConnectPrivateData.decode(ByteBuffer.wrap(room), 0, room.length).orElse(ConnectPrivateData.DEFAULT);
    }

    /** @return the bytes to put in a REQ or REP */
    static byte[] encode(ConnectPrivateData data) {
        return data.toBytes();
    }
}
