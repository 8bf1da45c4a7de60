package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A queue pair whose id was destroyed refuses posts in Java, before native code would touch freed
 * memory. The native structs here are zeroed stand-ins: a post that got past the check would fail
 * otherwise (binding libibverbs, or calling the provider's null function pointer).
 */
class UseAfterCloseTest {
    @Test
    void aDestroyedQueuePairRefusesPosts() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment context = arena.allocate(Structs.IBV_CONTEXT);
            MemorySegment qpStruct = arena.allocate(Structs.IBV_QP);
            qpStruct.set(JAVA_INT, Structs.offset(Structs.IBV_QP, "qp_num"), 17);
            QueuePair qp = new QueuePair(new VerbsContext(context, false), qpStruct, null);
            assertThat(qp.qpNum()).isEqualTo(17);
            qp.destroyed();
            assertThatThrownBy(() -> qp.post(new SendWorkRequest(1).reset(1)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("17");
            assertThatThrownBy(() -> qp.post(new ReceiveWorkRequest(1).reset(1)))
                    .isInstanceOf(IllegalStateException.class);
        }
    }
}
