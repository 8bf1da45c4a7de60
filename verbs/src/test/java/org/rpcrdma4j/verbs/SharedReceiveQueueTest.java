package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A post to a shared receive queue reaches the provider's {@code post_srq_recv} where rdma-core 44's
 * {@code struct ibv_context_ops} has it (the layout file's offset, not {@link Structs}), with the SRQ
 * and the request; what the provider returns becomes the answer as for a queue pair's receives; and a
 * queue pair made on an SRQ names it in its {@code ibv_qp_init_attr}. The provider is a Java upcall in
 * a fake context: no library is needed.
 */
class SharedReceiveQueueTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;

    /** What the fake provider was called with. */
    private static final List<String> CALLS = new ArrayList<>();
    /** What the fake provider returns next. */
    private static volatile int answer;

    static int postSrqRecv(MemorySegment srq, MemorySegment wr, MemorySegment bad) {
        long wrId = wr.reinterpret(C.size("ibv_recv_wr")).get(JAVA_LONG, C.offset("ibv_recv_wr.wr_id"));
        CALLS.add("post_srq_recv srq=" + srq.address() + " wr_id=" + wrId);
        return answer;
    }

    private static VerbsContext fakeContext(Arena arena) throws ReflectiveOperationException {
        MemorySegment context = arena.allocate(C.size("ibv_context"));
        MemorySegment stub = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(
                SharedReceiveQueueTest.class, "postSrqRecv", MethodType.methodType(int.class, MemorySegment.class,
                        MemorySegment.class, MemorySegment.class)),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), arena);
        context.set(ADDRESS, C.offset("ibv_context.ops") + C.offset("ibv_context_ops.post_srq_recv"), stub);
        return new VerbsContext(context, false);
    }

    @Test
    void aPostReachesTheProvidersPostSrqRecvAndAFullQueueIsFalse() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            CALLS.clear();
            MemorySegment srqStruct = arena.allocate(C.size("ibv_srq"));
            SharedReceiveQueue srq = new SharedReceiveQueue(fakeContext(arena), srqStruct, 64);
            ReceiveWorkRequest receive = new ReceiveWorkRequest(1).reset(41).add(0x1000, 4112, 7);

            answer = 0;
            assertThat(srq.tryPost(receive)).isTrue();
            answer = 12;
            assertThat(srq.tryPost(receive.reset(42))).isFalse();
            answer = -12;
            assertThat(srq.tryPost(receive.reset(43))).isFalse();
            answer = 22;
            assertThatThrownBy(() -> srq.tryPost(receive.reset(44))).isInstanceOf(VerbsException.class)
                    .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(22));

            String at = "srq=" + srqStruct.address();
            assertThat(CALLS).containsExactly("post_srq_recv " + at + " wr_id=41", "post_srq_recv " + at + " wr_id=42",
                    "post_srq_recv " + at + " wr_id=43", "post_srq_recv " + at + " wr_id=44");
            assertThat(srq.capacity()).isEqualTo(64);
        }
    }

    @Test
    void aQueuePairOnASharedReceiveQueueNamesItInItsInitAttributes() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            VerbsContext context = fakeContext(arena);
            CompletionQueue cq = new CompletionQueue(context, null, arena.allocate(C.size("ibv_cq")));
            QueuePairConfig config = new QueuePairConfig(cq, cq, 32, 1, 1, 1, 0, false);
            MemorySegment srqStruct = arena.allocate(C.size("ibv_srq"));
            SharedReceiveQueue srq = new SharedReceiveQueue(context, srqStruct, 64);

            MemorySegment shared = CmId.initAttributes(arena, config, srq);
            assertThat(shared.get(ADDRESS, C.offset("ibv_qp_init_attr.srq")).address()).isEqualTo(srqStruct.address());
            assertThat(shared.get(JAVA_INT, C.offset("ibv_qp_init_attr.qp_type"))).isEqualTo((int) C.constant("IBV_QPT_RC"));
            assertThat(shared.get(JAVA_INT, C.offset("ibv_qp_init_attr.cap.max_send_wr"))).isEqualTo(32);

            MemorySegment own = CmId.initAttributes(arena, config, null);
            assertThat(own.get(ADDRESS, C.offset("ibv_qp_init_attr.srq"))).isEqualTo(MemorySegment.NULL);
        }
    }
}
