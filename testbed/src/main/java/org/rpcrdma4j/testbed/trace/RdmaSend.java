package org.rpcrdma4j.testbed.trace;

import java.util.OptionalInt;

/**
 * One RDMA Send as it crossed the wire, reassembled from its packets: on an RPC-over-RDMA connection,
 * one RPC-over-RDMA message.
 *
 * @param frame       the frame that completed it (SEND_LAST or SEND_ONLY, with or without invalidate)
 * @param fromClient  whether the side that sent the RDMA-CM ConnectRequest sent it
 * @param bytes       the Send's payload
 * @param elided      whether an export elided part of it ({@link RocePacket#elided()}): it cannot be checked
 * @param invalidate  the receiver's R_key a Send with Invalidate named (its IETH), empty for a plain Send
 */
public record RdmaSend(int frame, boolean fromClient, byte[] bytes, boolean elided, OptionalInt invalidate) {

    /** @return "client->server" or "server->client" */
    public String direction() {
        return fromClient ? "client->server" : "server->client";
    }
}
