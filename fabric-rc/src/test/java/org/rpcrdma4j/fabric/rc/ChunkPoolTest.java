package org.rpcrdma4j.fabric.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The chunk pool's size classes, its bound, reuse and release. */
class ChunkPoolTest {

    private final SimulatedRc.Device device;

    ChunkPoolTest() throws Exception {
        device = new SimulatedRc().device(InetAddress.getByAddress(new byte[] {10, 0, 2, 1}));
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
    void aLongChunkTakesWholeLargestBlocksAndOneOfTheClassThatFitsTheRest() throws Exception {
        try (ChunkPool pool = new ChunkPool(device, 32L << 20)) {
            List<ChunkPool.Block> blocks = pool.takeBlocks((16L << 20) + 100);
            assertEquals(17, blocks.size());
            for (ChunkPool.Block block : blocks.subList(0, 16)) {
                assertEquals(ChunkPool.MAX_BLOCK, block.memory().byteSize());
            }
            assertEquals(ChunkPool.MIN_BLOCK, blocks.get(16).memory().byteSize(), "the last 100 bytes");
            assertEquals(17, blocks.stream().map(block -> block.slab().lkey()).distinct().count(),
                    "each block in a slab of its own");
            assertEquals(2, pool.takeBlocks(2L << 20).size(), "no block for nothing left over");
            assertEquals(1, pool.takeBlocks(0).size());
            assertEquals((18L << 20) + 2 * ChunkPool.MIN_BLOCK, pool.bytesInUse());
        }
    }

    @Test
    void aLongChunkGetsAllItsBlocksOrNone() throws Exception {
        try (ChunkPool pool = new ChunkPool(device, 4L * ChunkPool.SLAB)) {
            assertNotNull(pool.takeBlocks(ChunkPool.MAX_BLOCK));
            assertNull(pool.takeBlocks(4L * ChunkPool.MAX_BLOCK), "three more slabs fit the bound, four do not");
            assertEquals(ChunkPool.MAX_BLOCK, pool.bytesInUse(), "the three it got went back");
            assertEquals(3, pool.takeBlocks(3L * ChunkPool.MAX_BLOCK).size(), "and are there to take");
            assertEquals(4L * ChunkPool.SLAB, pool.registeredBytes());
        }
    }

    @Test
    void aPoolBoundOfZeroRegistersNothing() throws Exception {
        try (ChunkPool pool = new ChunkPool(device, 0)) {
            assertNull(pool.take(1));
            assertEquals(0, device.liveRegistrations());
        }
    }
}
