package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.junit.jupiter.api.Test;

/**
 * What a provider's {@code post_send} and {@code post_recv} return becomes the answer of a post: a
 * full queue (ENOMEM, as the provider returns it, or negated) is {@code false} from {@code tryPost}
 * and ENOMEM from {@code post}; another errno is an exception. The provider here is a Java upcall put
 * where the device's function pointers are, so no library is needed.
 */
class QueuePairPostTest {

    /** What the fake provider returns next. */
    private static volatile int answer;

    static int provider(MemorySegment qp, MemorySegment wr, MemorySegment bad) {
        return answer;
    }

    @Test
    void aFullQueueIsFalseAndAnyOtherErrnoAnException() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stub = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(
                    QueuePairPostTest.class, "provider", MethodType.methodType(int.class, MemorySegment.class,
                            MemorySegment.class, MemorySegment.class)),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), arena);
            MemorySegment context = arena.allocate(Structs.IBV_CONTEXT);
            context.set(ADDRESS, Structs.offset(Structs.IBV_CONTEXT, "ops") + Structs.offset(Structs.IBV_CONTEXT_OPS, "post_send"), stub);
            context.set(ADDRESS, Structs.offset(Structs.IBV_CONTEXT, "ops") + Structs.offset(Structs.IBV_CONTEXT_OPS, "post_recv"), stub);
            QueuePair qp = new QueuePair(new VerbsContext(context, false), arena.allocate(Structs.IBV_QP), null);
            SendWorkRequest send = new SendWorkRequest(1).reset(1).send();
            ReceiveWorkRequest receive = new ReceiveWorkRequest(1).reset(2);

            answer = 0;
            assertThat(qp.tryPost(send)).isTrue();
            assertThat(qp.tryPost(receive)).isTrue();
            answer = 12;
            assertThat(qp.tryPost(send)).isFalse();
            assertThat(qp.tryPost(receive)).isFalse();
            assertThatThrownBy(() -> qp.post(send)).isInstanceOf(VerbsException.class)
                    .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(12));
            answer = -12;
            assertThat(qp.tryPost(send)).isFalse();
            answer = 22;
            assertThatThrownBy(() -> qp.tryPost(send)).isInstanceOf(VerbsException.class)
                    .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(22));
        }
    }
}
