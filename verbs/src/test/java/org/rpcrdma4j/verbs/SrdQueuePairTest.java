package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
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
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The extended work-request calls of an SRD queue pair reach the provider's {@code wr_*} functions
 * where rdma-core 44's {@code struct ibv_qp_ex} has them (the layout file's offsets, not
 * {@link Structs}), with their arguments in order and the request's {@code wr_id} and flags in the
 * struct when the provider reads them. The provider is Java upcalls put in a fake struct, as libefa
 * 44 fills it for a queue pair with Sends and RDMA Read: no RDMA Write.
 */
class SrdQueuePairTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;
    private static final long WR_ID = C.offset("ibv_qp_ex.wr_id");
    private static final long WR_FLAGS = C.offset("ibv_qp_ex.wr_flags");

    /** What the fake provider was called with, in order. */
    private static final List<String> CALLS = new ArrayList<>();
    /** What the fake wr_complete returns next. */
    private static int completeAnswer;
    private static MemorySegment fakeQp;

    private Arena arena;
    private SrdQueuePair qp;
    private AddressHandle peer;

    /** What the provider reads of the current request; an upcall must not throw, so nothing is asserted here. */
    private static String request(MemorySegment qp) {
        MemorySegment q = qp.reinterpret(C.size("ibv_qp_ex"));
        return (q.address() == fakeQp.address() ? "" : " on another queue pair") + " wr_id=" + q.get(JAVA_LONG, WR_ID)
                + " flags=" + q.get(JAVA_INT, WR_FLAGS);
    }

    static int postRecv(MemorySegment qp, MemorySegment wr, MemorySegment bad) {
        CALLS.add("post_recv" + (qp.address() == fakeQp.address() ? "" : " on another queue pair"));
        return completeAnswer;
    }

    static void start(MemorySegment qp) {
        CALLS.add("start");
    }

    static int complete(MemorySegment qp) {
        CALLS.add("complete");
        return completeAnswer;
    }

    static void abort(MemorySegment qp) {
        CALLS.add("abort");
    }

    static void send(MemorySegment qp) {
        CALLS.add("send" + request(qp));
    }

    static void rdmaRead(MemorySegment qp, int rkey, long remoteAddr) {
        CALLS.add("rdma_read" + request(qp) + " rkey=" + rkey + " remote=" + remoteAddr);
    }

    static void setUdAddr(MemorySegment qp, MemorySegment ah, int remoteQpn, int remoteQkey) {
        CALLS.add("set_ud_addr ah=" + ah.address() + " qpn=" + remoteQpn + " qkey=" + remoteQkey);
    }

    static void setSge(MemorySegment qp, int lkey, long addr, int length) {
        CALLS.add("set_sge lkey=" + lkey + " addr=" + addr + " length=" + length);
    }

    static void setInlineData(MemorySegment qp, MemorySegment addr, long length) {
        CALLS.add("set_inline_data " + Arrays.toString(addr.reinterpret(length).toArray(JAVA_BYTE)));
    }

    private void install(String field, String method, FunctionDescriptor descriptor) throws ReflectiveOperationException {
        MethodType type = descriptor.toMethodType();
        MemorySegment stub = Linker.nativeLinker().upcallStub(
                MethodHandles.lookup().findStatic(SrdQueuePairTest.class, method, type), descriptor, arena);
        fakeQp.set(ADDRESS, C.offset("ibv_qp_ex." + field), stub);
    }

    @BeforeEach
    void fakeProvider() throws ReflectiveOperationException {
        arena = Arena.ofShared();
        CALLS.clear();
        completeAnswer = 0;
        fakeQp = arena.allocate(C.size("ibv_qp_ex"));
        fakeQp.set(JAVA_INT, C.offset("ibv_qp_ex.qp_base") + C.offset("ibv_qp.qp_num"), 77);
        FunctionDescriptor qpOnly = FunctionDescriptor.ofVoid(ADDRESS);
        install("wr_start", "start", qpOnly);
        install("wr_complete", "complete", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        install("wr_abort", "abort", qpOnly);
        install("wr_send", "send", qpOnly);
        install("wr_rdma_read", "rdmaRead", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG));
        install("wr_set_ud_addr", "setUdAddr", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, JAVA_INT));
        install("wr_set_sge", "setSge", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
        install("wr_set_inline_data", "setInlineData", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
        MemorySegment ibvContext = arena.allocate(C.size("ibv_context"));
        ibvContext.set(ADDRESS, C.offset("ibv_context.ops") + C.offset("ibv_context_ops.post_recv"),
                Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(SrdQueuePairTest.class, "postRecv",
                        MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class, MemorySegment.class)),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), arena));
        VerbsContext context = new VerbsContext(ibvContext, false);
        CompletionQueue cq = new CompletionQueue(context, null, arena.allocate(Structs.IBV_CQ));
        qp = new SrdQueuePair(context, fakeQp, new SrdQueuePairConfig(new QueuePairConfig(cq, cq, 16, 16, 2, 1, 8, false), true, false));
        peer = new AddressHandle(arena.allocate(8), new Gid(new byte[16]));
    }

    @AfterEach
    void freeStubs() {
        arena.close();
    }

    @Test
    void aBatchCallsTheProviderInOrderWithEachRequestsIdAndFlags() throws VerbsException {
        qp.start();
        qp.send(7, true);
        qp.setDestination(peer, 5, 0x11111111);
        qp.setSge(42, 0x1000, 64);
        qp.rdmaRead(8, false, 99, 0xfeed_0000_0000L);
        qp.setDestination(peer, 6, 0x11111111);
        qp.setSge(43, 0x2000, 1 << 20);
        assertThat(qp.complete()).isTrue();

        long ah = peer.pointer().address();
        assertThat(CALLS).containsExactly("start",
                "send wr_id=7 flags=" + C.constant("IBV_SEND_SIGNALED"),
                "set_ud_addr ah=" + ah + " qpn=5 qkey=286331153",
                "set_sge lkey=42 addr=4096 length=64",
                "rdma_read wr_id=8 flags=0 rkey=99 remote=" + 0xfeed_0000_0000L,
                "set_ud_addr ah=" + ah + " qpn=6 qkey=286331153",
                "set_sge lkey=43 addr=8192 length=1048576",
                "complete");
        assertThat(qp.qpNum()).isEqualTo(77);
    }

    @Test
    void inlineDataIsHandedOverByAddressAndLengthWithinTheGrantedSize() {
        qp.start();
        qp.send(1, false);
        MemorySegment data = arena.allocate(3);
        data.copyFrom(MemorySegment.ofArray(new byte[] {1, 2, 3}));
        qp.setInlineData(data);
        assertThatThrownBy(() -> qp.setInlineData(arena.allocate(9)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takes 8");
        qp.abort();
        assertThat(CALLS).containsExactly("start", "send wr_id=1 flags=0", "set_inline_data [1, 2, 3]", "abort");
    }

    @Test
    void aFullSendQueueIsFalseAndAnyOtherErrnoAnException() throws VerbsException {
        completeAnswer = 12;
        qp.start();
        assertThat(qp.complete()).isFalse();
        completeAnswer = 22;
        qp.start();
        assertThatThrownBy(qp::complete).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.call()).isEqualTo("ibv_wr_complete");
            assertThat(e.errno()).isEqualTo(22);
        });
        qp.start();
        completeAnswer = 0;
        assertThat(qp.complete()).isTrue();
    }

    @Test
    void requestsOutsideABatchAndNestedBatchesAreRefusedBeforeTheProviderSeesThem() throws VerbsException {
        assertThatThrownBy(() -> qp.send(1, false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("start() first");
        assertThatThrownBy(qp::complete).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(qp::abort).isInstanceOf(IllegalStateException.class);
        qp.start();
        assertThatThrownBy(qp::start).isInstanceOf(IllegalStateException.class);
        qp.complete();
        assertThat(CALLS).containsExactly("start", "complete");
    }

    @Test
    void receivesGoThroughTheContextsPostRecvAndAFullQueueIsFalse() throws VerbsException {
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1).reset(3);
        assertThat(qp.tryPost(receive)).isTrue();
        completeAnswer = 12;
        assertThat(qp.tryPost(receive)).isFalse();
        assertThatThrownBy(() -> qp.post(receive)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(12));
        assertThat(CALLS).containsExactly("post_recv", "post_recv", "post_recv");
    }

    @Test
    void anOperationTheProviderDidNotFillIsRefusedNotCalled() throws VerbsException {
        qp.start();
        assertThatThrownBy(() -> qp.rdmaWrite(1, true, 2, 3)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("RDMA Write");
        qp.abort();
        assertThat(CALLS).containsExactly("start", "abort");
    }
}
