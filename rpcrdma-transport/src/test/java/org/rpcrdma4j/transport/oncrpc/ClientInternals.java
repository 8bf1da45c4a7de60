package org.rpcrdma4j.transport.oncrpc;

import org.rpcrdma4j.transport.marshal.ChunkBufferPool;

/**
 * Test helper, published with the conformance kit: what the tests of a fabric module read of a client
 * that only this package sees, to check the transport end to end over that fabric.
 */
public final class ClientInternals {

    private ClientInternals() {
    }

    /** @return the pool of the memory behind the client's Write and Reply chunks */
    public static ChunkBufferPool chunkBufferPool(RdmaRpcClient client) {
        return client.chunkBufferPool();
    }
}
