package org.rpcrdma4j.xdr;

/**
 * A decoded header and where the inline RPC message starts.
 *
 * @param header        the transport header
 * @param payloadOffset buffer index of the first byte after the header
 * @param headerLength  bytes in the transport header
 * @param payloadLength bytes after the header in the message (the inline RPC message, if any)
 */
public record DecodedHeader(RpcRdmaHeader header, int payloadOffset, int headerLength, int payloadLength) {
}
