package org.rpcrdma4j.transport.marshal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.XdrItem;

/** The peer reads a call's Read chunks where they lie: each item's own buffer is registered, not a copy. */
class CallPlanTest {

    private static final int XID = 0x51;
    private static final int INLINE = 1024;
    private static final int DATA = 8192;

    /** An RPC call header (xid, CALL, rpcvers 2, prog, vers, proc, AUTH_NONE cred and verf), then a length. */
    private static byte[] head() {
        ByteBuffer head = ByteBuffer.allocate(44);
        head.putInt(XID).putInt(0).putInt(2).putInt(0x20000124).putInt(1).putInt(1);
        head.putInt(0).putInt(0).putInt(0).putInt(0);
        return head.putInt(DATA).array();
    }

    /** The data after the head is DDP-eligible; replies fit inline. */
    private static final DdpPolicy DATA_POLICY = dataPolicy(DdpPolicy.ReplySize.INLINE);

    /**
     * @param reply the bound on every reply
     * @return a policy whose calls have the data after the head as their one DDP-eligible item
     */
    private static DdpPolicy dataPolicy(DdpPolicy.ReplySize reply) {
        return new DdpPolicy() {
            @Override
            public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage message) {
                return List.of(new XdrItem(message.bodyOffset() + 4, DATA));
            }

            @Override
            public ReplySize replySize(RpcProcedure procedure, RpcMessage message) {
                return reply;
            }

            @Override
            public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage message, RpcMessage results) {
                return NONE.replyPayloads(procedure, message, results);
            }
        };
    }

    private final ByteBuffer data = ByteBuffer.allocateDirect(DATA);
    private final MessageBytes call = MessageBytes.of(List.of(ByteBuffer.wrap(head()), data));
    private final RecordingFabric fabric = new RecordingFabric();

    @Test
    void aReadChunkIsRegisteredInTheBufferItLiesIn() throws Exception {
        CallPlan plan = CallPlan.of(XID, call, DATA_POLICY, INLINE, INLINE, 4096);

        LongAdder copied = new LongAdder();
        ChunkedCall chunked = plan.register(fabric, null, 8, copied, new ChunkBufferPool(0));

        assertThat(plan.readChunks()).isEqualTo(1);
        assertThat(fabric.registered).hasSize(1);
        assertThat(fabric.registered.get(0).isDirect()).as("the program's buffer, not a copy").isTrue();
        assertThat(fabric.registered.get(0).remaining()).isEqualTo(DATA);
        RpcRdmaHeader header = chunked.header();
        assertThat(header.readChunks()).hasSize(1);
        List<ReadSegment> segments = header.readList();
        assertThat(segments).extracting(ReadSegment::unsignedPosition).containsOnly(44L);
        assertThat(segments).extracting(s -> s.segment().offset()).containsExactly(0x1000L, 0x2000L);
        assertThat(chunked.message().remaining()).isEqualTo(chunked.message().capacity());
        assertThat(chunked.buffers()).isEqualTo(1);
        assertThat(copied.sum()).as("the inline part only").isEqualTo(chunked.message().capacity()
                - HeaderEncoder.encodedLength(header));

        chunked.release(fabric, Long.MAX_VALUE, () -> { });
        assertThat(fabric.deregistered).isEqualTo(1);
        assertThat(fabric.statistics().registrations()).isZero();
    }

    @Test
    void aPositionZeroCallInSeveralBuffersIsRegisteredAsOneCopy() throws Exception {
        CallPlan plan = CallPlan.of(XID, call, DdpPolicy.NONE, INLINE, INLINE, 65536);

        LongAdder copied = new LongAdder();
        plan.register(fabric, null, 8, copied, new ChunkBufferPool(0));

        assertThat(plan.positionZero()).isTrue();
        assertThat(copied.sum()).as("the whole call, gathered from two buffers").isEqualTo(44 + DATA);
        assertThat(fabric.registered).hasSize(1);
        assertThat(fabric.registered.get(0).isDirect()).isFalse();
        assertThat(fabric.registered.get(0).remaining()).isEqualTo(44 + DATA);
        assertThat(fabric.registered.get(0).getInt(0)).isEqualTo(XID);
    }

    @Test
    void aRegistrationThatFailsReleasesTheOthers() throws Exception {
        fabric.refuseAfter = 1;
        DdpPolicy bigReply = dataPolicy(new DdpPolicy.ReplySize(64 << 10, List.of()));

        ChunkBufferPool pool = new ChunkBufferPool(1 << 20);

        // The Read chunk's registration succeeds, the Reply chunk's fails.
        assertThat(CallPlan.of(XID, call, bigReply, INLINE, INLINE, 4096).register(fabric, null, 8, new LongAdder(),
                pool)).isNull();
        assertThat(fabric.deregistered).isEqualTo(1);
        assertThat(pool.idleBuffers()).as("the reply memory, never registered, went back").isEqualTo(1);
    }

    @Test
    void theReplyMemoryComesFromThePoolAndExactlyItsChunksAreRegistered() throws Exception {
        DdpPolicy bigReply = dataPolicy(new DdpPolicy.ReplySize(40_000, List.of()));
        ChunkBufferPool pool = new ChunkBufferPool(1 << 20);
        CallPlan plan = CallPlan.of(XID, call, bigReply, INLINE, INLINE, 4096);

        ChunkedCall first = plan.register(fabric, null, 8, new LongAdder(), pool);

        assertThat(fabric.registered.get(1).remaining()).as("the Reply chunk, not the size class").isEqualTo(40_000);
        assertThat(fabric.registered.get(1).capacity()).isEqualTo(40_000);
        assertThat(pool.allocated()).isEqualTo(1);
        first.release(fabric, Long.MAX_VALUE, () -> { });
        first.recycle();

        plan.register(fabric, null, 8, new LongAdder(), pool);

        assertThat(pool.reused()).isEqualTo(1);
        assertThat(fabric.registered.get(3).array()).isSameAs(fabric.registered.get(1).array());
    }

    @Test
    void theReplyMemoryCannotGoBackWhileRegistered() throws Exception {
        DdpPolicy bigReply = dataPolicy(new DdpPolicy.ReplySize(40_000, List.of()));
        ChunkBufferPool pool = new ChunkBufferPool(1 << 20);
        ChunkedCall chunked = CallPlan.of(XID, call, bigReply, INLINE, INLINE, 4096).register(fabric, null, 8,
                new LongAdder(), pool);

        assertThatThrownBy(chunked::recycle).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(chunked::replyLease).isInstanceOf(IllegalStateException.class);
        assertThat(pool.idleBuffers()).isZero();

        chunked.release(fabric, Long.MAX_VALUE, () -> { });
        assertThatThrownBy(() -> chunked.release(fabric, Long.MAX_VALUE, () -> { })).as("released once")
                .isInstanceOf(IllegalStateException.class);
        chunked.recycle();
        assertThat(pool.idleBuffers()).isEqualTo(1);
    }

    /** What {@link RecordingFabric} holds: its registrations. */
    private record Figures(int registrations) implements FabricStatistics {

        @Override
        public int connections() {
            return 0;
        }

        @Override
        public long bytesCopied() {
            return 0;
        }

        @Override
        public Map<String, Long> counters() {
            return Map.of();
        }

        @Override
        public Map<String, Long> gauges() {
            return Map.of();
        }
    }

    /** Registers at 0x1000 apart, records what, and refuses once told to. */
    private static final class RecordingFabric implements Fabric {
        final List<ByteBuffer> registered = new ArrayList<>();
        int deregistered;
        int refuseAfter = Integer.MAX_VALUE;

        @Override
        public Registration register(ByteBuffer memory, Set<MemoryAccess> access) {
            if (registered.size() >= refuseAfter) {
                return null;
            }
            registered.add(memory);
            return new Registration(registered.size(), 0x1000L * registered.size(), memory.remaining());
        }

        @Override
        public void deregister(Registration registration) {
            deregistered++;
        }

        @Override
        public FabricAddress localAddress() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void listen(java.util.function.Consumer<ConnectRequest> acceptor) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void stopListening() {
            throw new UnsupportedOperationException();
        }

        @Override
        public FabricConnection connect(FabricAddress peer, ConnectPrivateData privateData,
                                        List<ByteBuffer> receives, ConnectionListener listener) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void execute(Runnable command) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean onProgressThread() {
            return true;
        }

        @Override
        public FabricStatistics statistics() {
            return new Figures(registered.size() - deregistered);
        }

        /** Holds nothing that outlives the test. */
        @Override
        public void close() {
        }
    }
}
