package org.rpcrdma4j.verbs.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The chunk pool's size classes, its bound, reuse and release. */
class ChunkPoolTest {

    private final FakeRcNetwork.Device device;

    ChunkPoolTest() throws Exception {
        device = new FakeRcNetwork().device(InetAddress.getByAddress(new byte[] {10, 0, 2, 1}));
    }

    @Test
    void blocksArePowersOfTwoFromFourKibToOneMib() throws Exception {
        try (ChunkPool pool = new ChunkPool(device, 8L << 20)) {
            assertEquals(4096, pool.take(1).memory().byteSize());
            assertEquals(4096, pool.take(4096).memory().byteSize());
            assertEquals(8192, pool.take(4097).memory().byteSize());
            assertEquals(ChunkPool.MAX_BLOCK, pool.take(ChunkPool.MAX_BLOCK).memory().byteSize());
            assertNull(pool.take(ChunkPool.MAX_BLOCK + 1), "no block is larger");
            assertEquals(3L * ChunkPool.SLAB, pool.registeredBytes(), "one slab for each of the three classes used");
        }
    }

    @Test
    void aSlabIsCutIntoDistinctBlocksOfItsClassBeforeAnotherIsRegistered() throws Exception {
        try (ChunkPool pool = new ChunkPool(device, 8L << 20)) {
            Set<Long> addresses = new HashSet<>();
            for (int i = 0; i < ChunkPool.SLAB / ChunkPool.MIN_BLOCK; i++) {
                ChunkPool.Block block = pool.take(100);
                assertTrue(addresses.add(block.memory().address()), "a block was handed out twice");
            }
            assertEquals(ChunkPool.SLAB, pool.registeredBytes());
            assertEquals(1, device.liveRegistrations(), "one ibv_reg_mr for 256 blocks");
            pool.take(100);
            assertEquals(2L * ChunkPool.SLAB, pool.registeredBytes());
        }
    }

    @Test
    void thePoolNeverRegistersMoreThanItsBoundAndReusesWhatIsGiven() throws Exception {
        try (ChunkPool pool = new ChunkPool(device, 2L * ChunkPool.SLAB)) {
            ChunkPool.Block first = pool.take(ChunkPool.MAX_BLOCK);
            assertNotNull(pool.take(ChunkPool.MAX_BLOCK));
            assertNull(pool.take(ChunkPool.MAX_BLOCK), "a third slab would exceed the bound");
            assertNull(pool.take(10), "another class would need a slab too");
            pool.give(first);
            assertSame(first, pool.take(ChunkPool.MAX_BLOCK));
            assertEquals(2L * ChunkPool.SLAB, pool.registeredBytes());
        }
        assertEquals(0, device.liveRegistrations(), "closing deregistered every slab");
    }

    @Test
    void aPoolBoundOfZeroRegistersNothing() throws Exception {
        try (ChunkPool pool = new ChunkPool(device, 0)) {
            assertNull(pool.take(1));
            assertEquals(0, device.liveRegistrations());
        }
    }
}
