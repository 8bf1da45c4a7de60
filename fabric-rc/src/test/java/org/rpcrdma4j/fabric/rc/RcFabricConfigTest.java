package org.rpcrdma4j.fabric.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@link RcFabric.Config}: Linux's retry counts by default, and only what a CM message can carry. */
class RcFabricConfigTest {

    @Test
    void defaultsAreLinuxs() {
        RcFabric.Config config = RcFabric.Config.DEFAULT;
        assertEquals(6, config.retryCount(), "xprtrdma's rpcrdma_ep_create");
        assertEquals(0, config.rnrRetryCount(), "xprtrdma's and svcrdma's: a broken credit shows at once");
        assertEquals(5000, config.resolveTimeoutMillis(), "xprtrdma's RDMA_RESOLVE_TIMEOUT");
        assertEquals(config, new RcFabric.Config(config.sendDepth(), config.slotSize(), config.chunkPoolBytes()));
    }

    @Test
    void countsOutsideThreeBitsAndNoTimeoutAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RcFabric.Config(16, 1024, 0, 8, 0, 5000));
        assertThrows(IllegalArgumentException.class, () -> new RcFabric.Config(16, 1024, 0, -1, 0, 5000));
        assertThrows(IllegalArgumentException.class, () -> new RcFabric.Config(16, 1024, 0, 6, 8, 5000));
        assertThrows(IllegalArgumentException.class, () -> new RcFabric.Config(16, 1024, 0, 6, -1, 5000));
        assertThrows(IllegalArgumentException.class, () -> new RcFabric.Config(16, 1024, 0, 6, 0, 0));
        assertEquals(7, new RcFabric.Config(16, 1024, 0, 7, 7, 1).rnrRetryCount());
    }
}
