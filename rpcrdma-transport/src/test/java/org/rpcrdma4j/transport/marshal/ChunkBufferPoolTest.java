package org.rpcrdma4j.transport.marshal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The requester's pool of chunk memory: size classes, reuse, the bound, and a lease's single end. */
class ChunkBufferPoolTest {

    private final ChunkBufferPool pool = new ChunkBufferPool(4 << 20);

    @Test
    void aLeaseHasTheSizeClassOfItsLength() {
        assertThat(pool.take(0).memory().capacity()).isEqualTo(ChunkBufferPool.MIN_CLASS);
        assertThat(pool.take(1).memory().capacity()).isEqualTo(ChunkBufferPool.MIN_CLASS);
        assertThat(pool.take(4096).memory().capacity()).isEqualTo(4096);
        assertThat(pool.take(4097).memory().capacity()).isEqualTo(8192);
        assertThat(pool.take(1 << 20).memory().capacity()).isEqualTo(1 << 20);
        assertThat(pool.allocated()).isEqualTo(5);
    }

    @Test
    void aBufferGivenBackServesTheNextLeaseOfItsClassUnzeroed() {
        ChunkBufferPool.Lease first = pool.take(1 << 20);
        first.memory().put(0, (byte) 42);
        assertThat(first.giveBack()).isTrue();
        assertThat(pool.idleBuffers()).isEqualTo(1);

        ChunkBufferPool.Lease second = pool.take((1 << 19) + 1);

        assertThat(second.memory()).isSameAs(first.memory());
        assertThat(second.memory().position()).isZero();
        assertThat(second.memory().limit()).isEqualTo(1 << 20);
        assertThat(second.memory().get(0)).as("not zeroed").isEqualTo((byte) 42);
        assertThat(pool.reused()).isEqualTo(1);
        assertThat(pool.allocated()).isEqualTo(1);
        assertThat(pool.idleBuffers()).isZero();
    }

    @Test
    void aLeasedBufferIsNeverLentTwice() {
        ChunkBufferPool.Lease first = pool.take(65536);
        ChunkBufferPool.Lease second = pool.take(65536);

        assertThat(second.memory()).isNotSameAs(first.memory());
        assertThat(pool.allocated()).isEqualTo(2);
    }

    @Test
    void aLeaseGoesBackOnceOnly() {
        ChunkBufferPool.Lease lease = pool.take(8192);

        assertThat(lease.giveBack()).isTrue();
        assertThat(lease.giveBack()).isFalse();

        assertThat(pool.idleBuffers()).isEqualTo(1);
        assertThat(pool.take(8192).memory()).isSameAs(lease.memory());
        assertThat(pool.take(8192).memory()).isNotSameAs(lease.memory());
    }

    @Test
    void aBufferHandedOverNeverComesBack() {
        ChunkBufferPool.Lease lease = pool.take(8192);

        lease.handOver();

        assertThat(lease.giveBack()).isFalse();
        assertThat(lease.ended()).isTrue();
        assertThat(pool.idleBuffers()).isZero();
        assertThat(pool.handedOver()).isEqualTo(1);
    }

    @Test
    void thePoolKeepsNoMoreIdleBytesThanItsBound() {
        ChunkBufferPool.Lease[] leases = new ChunkBufferPool.Lease[6];
        for (int i = 0; i < leases.length; i++) {
            leases[i] = pool.take(1 << 20);
        }
        for (ChunkBufferPool.Lease lease : leases) {
            lease.giveBack();
        }

        assertThat(pool.idleBuffers()).isEqualTo(4);
        assertThat(pool.idleBytes()).isEqualTo(4 << 20);
        assertThat(pool.dropped()).isEqualTo(2);
    }

    @Test
    void aPoolBoundedAtZeroKeepsNothing() {
        ChunkBufferPool none = new ChunkBufferPool(0);
        none.take(100).giveBack();

        assertThat(none.idleBuffers()).isZero();
        assertThat(none.dropped()).isEqualTo(1);
    }

    @Test
    void aShortViewIsCopiedAndTheLeaseMayGoBack() {
        ChunkBufferPool.Lease lease = pool.take(1 << 20);
        lease.memory().put(100, (byte) 7);
        ByteBuffer view = lease.memory().slice(100, 65536);

        ByteBuffer kept = lease.keep(view);

        assertThat(lease.holds(kept)).isFalse();
        assertThat(kept.remaining()).isEqualTo(65536);
        assertThat(kept.get(0)).isEqualTo((byte) 7);
        assertThat(pool.copiedOutBytes()).isEqualTo(65536);
        assertThat(lease.giveBack()).isTrue();
    }

    @Test
    void aViewOfMostOfTheBufferHandsItOver() {
        ChunkBufferPool.Lease lease = pool.take(1 << 20);
        ByteBuffer view = lease.memory().slice(0, (1 << 19) + 4);

        assertThat(lease.keep(view)).isSameAs(view);

        assertThat(lease.giveBack()).as("the caller's now").isFalse();
        assertThat(pool.idleBuffers()).isZero();
        assertThat(pool.copiedOutBytes()).isZero();
    }

    @Test
    void onlyBytesOfTheLeaseCanBeKept() {
        ChunkBufferPool.Lease lease = pool.take(8192);

        assertThat(lease.holds(ByteBuffer.allocate(10))).isFalse();
        assertThat(lease.holds(ByteBuffer.allocateDirect(10))).isFalse();
        assertThatThrownBy(() -> lease.keep(ByteBuffer.allocate(10))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pool.take(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ChunkBufferPool(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
