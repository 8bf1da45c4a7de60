package org.rpcrdma4j.testbed.nfs;

import java.nio.ByteBuffer;
import org.glassfish.grizzly.memory.ByteBufferWrapper;

/**
 * Data a service lends a reply, as a Grizzly buffer oncrpc4j encodes shallow: the transport's dispose
 * of the sent reply gives the data back. Grizzly refuses a second dispose, so it is given back once.
 */
final class LentBuffer extends ByteBufferWrapper {

    private final Runnable giveBack;

    /**
     * @param data     the data, between position and limit
     * @param giveBack what disposing it does
     */
    LentBuffer(ByteBuffer data, Runnable giveBack) {
        super(data);
        this.giveBack = giveBack;
        allowBufferDispose(true);
    }

    @Override
    public void dispose() {
        super.dispose();
        giveBack.run();
    }
}
