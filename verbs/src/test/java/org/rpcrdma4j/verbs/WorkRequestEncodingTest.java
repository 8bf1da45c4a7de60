package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Work requests read back at the offsets and with the constants of the rdma-core 44 headers, not
 * through the layouts that wrote them.
 */
class WorkRequestEncodingTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;

    private static int i32(MemorySegment s, String field) {
        return s.get(JAVA_INT, C.offset(field));
    }

    private static long i64(MemorySegment s, String field) {
        return s.get(JAVA_LONG, C.offset(field));
    }

    /** The struct ibv_sge array a request points to, sized for n entries. */
    private static MemorySegment sgList(MemorySegment wr, String struct, int n) {
        MemorySegment list = wr.get(ADDRESS, C.offset(struct + ".sg_list"));
        assertThat(list).isNotEqualTo(MemorySegment.NULL);
        return list.reinterpret(n * C.size("ibv_sge"));
    }

    private static void assertSge(MemorySegment list, int i, long addr, int length, int lkey) {
        long base = i * C.size("ibv_sge");
        assertThat(list.get(JAVA_LONG, base + C.offset("ibv_sge.addr"))).isEqualTo(addr);
        assertThat(list.get(JAVA_INT, base + C.offset("ibv_sge.length"))).isEqualTo(length);
        assertThat(list.get(JAVA_INT, base + C.offset("ibv_sge.lkey"))).isEqualTo(lkey);
    }

    @Test
    void rdmaWriteCarriesRemoteAddressKeyAndGatherList() {
        SendWorkRequest wr = new SendWorkRequest(2).reset(0x0102030405060708L)
                .rdmaWrite(0x1122334455667788L, 0xabcdef01).add(0x1000, 64, 0x55).add(0x2000, 32, 0x66).signaled();
        MemorySegment s = wr.segment();
        assertThat(i64(s, "ibv_send_wr.wr_id")).isEqualTo(0x0102030405060708L);
        assertThat(s.get(ADDRESS, C.offset("ibv_send_wr.next"))).isEqualTo(MemorySegment.NULL);
        assertThat(i32(s, "ibv_send_wr.opcode")).isEqualTo(C.constant("IBV_WR_RDMA_WRITE"));
        assertThat(i32(s, "ibv_send_wr.send_flags")).isEqualTo(C.constant("IBV_SEND_SIGNALED"));
        assertThat(i64(s, "ibv_send_wr.wr.rdma.remote_addr")).isEqualTo(0x1122334455667788L);
        assertThat(i32(s, "ibv_send_wr.wr.rdma.rkey")).isEqualTo(0xabcdef01);
        assertThat(i32(s, "ibv_send_wr.num_sge")).isEqualTo(2);
        MemorySegment list = sgList(s, "ibv_send_wr", 2);
        assertSge(list, 0, 0x1000, 64, 0x55);
        assertSge(list, 1, 0x2000, 32, 0x66);
    }

    @Test
    void rdmaReadAndSendWithInvalidateUseTheirOpcodesAndFields() {
        SendWorkRequest wr = new SendWorkRequest(1);
        MemorySegment s = wr.segment();
        wr.reset(1).rdmaRead(0x7000, 42).add(0x3000, 4096, 9).fenced();
        assertThat(i32(s, "ibv_send_wr.opcode")).isEqualTo(C.constant("IBV_WR_RDMA_READ"));
        assertThat(i32(s, "ibv_send_wr.send_flags")).isEqualTo(C.constant("IBV_SEND_FENCE"));
        assertThat(i32(s, "ibv_send_wr.wr.rdma.rkey")).isEqualTo(42);

        wr.reset(2).sendWithInvalidate(0x12345678).add(0x4000, 100, 7).signaled().solicited();
        assertThat(i32(s, "ibv_send_wr.opcode")).isEqualTo(C.constant("IBV_WR_SEND_WITH_INV"));
        assertThat(i32(s, "ibv_send_wr.invalidate_rkey")).isEqualTo(0x12345678);
        assertThat(i32(s, "ibv_send_wr.send_flags"))
                .isEqualTo(C.constant("IBV_SEND_SIGNALED") | C.constant("IBV_SEND_SOLICITED"));
        assertThat(i64(s, "ibv_send_wr.wr.rdma.remote_addr")).as("cleared by reset").isZero();
        assertSge(sgList(s, "ibv_send_wr", 1), 0, 0x4000, 100, 7);
    }

    @Test
    void resetStartsAPlainSendWithoutFlagsOrEntries() {
        SendWorkRequest wr = new SendWorkRequest(1).reset(5).rdmaWrite(1, 2).add(3, 4, 5).inline().signaled();
        wr.reset(6);
        MemorySegment s = wr.segment();
        assertThat(i32(s, "ibv_send_wr.opcode")).isEqualTo(C.constant("IBV_WR_SEND"));
        assertThat(i32(s, "ibv_send_wr.send_flags")).isZero();
        assertThat(i32(s, "ibv_send_wr.num_sge")).isZero();
        assertThat(i64(s, "ibv_send_wr.wr_id")).isEqualTo(6);
        assertThat(s.get(ADDRESS, C.offset("ibv_send_wr.sg_list"))).isNotEqualTo(MemorySegment.NULL);
    }

    @Test
    void bindAndLocalInvalidateNameTheWindow() {
        SendWorkRequest wr = new SendWorkRequest(1);
        MemorySegment s = wr.segment();
        MemorySegment window = MemorySegment.ofAddress(0x5000);
        MemorySegment region = MemorySegment.ofAddress(0x6000);
        wr.reset(3).bindWindow(window, 0x100, region, 0x9000, 8192, Access.bits(Access.REMOTE_READ, Access.REMOTE_WRITE));
        assertThat(i32(s, "ibv_send_wr.opcode")).isEqualTo(C.constant("IBV_WR_BIND_MW"));
        assertThat(s.get(ADDRESS, C.offset("ibv_send_wr.bind_mw.mw")).address()).isEqualTo(0x5000);
        assertThat(i32(s, "ibv_send_wr.bind_mw.rkey")).isEqualTo(0x100);
        assertThat(s.get(ADDRESS, C.offset("ibv_send_wr.bind_mw.bind_info.mr")).address()).isEqualTo(0x6000);
        assertThat(i64(s, "ibv_send_wr.bind_mw.bind_info.addr")).isEqualTo(0x9000);
        assertThat(i64(s, "ibv_send_wr.bind_mw.bind_info.length")).isEqualTo(8192);
        assertThat(i32(s, "ibv_send_wr.bind_mw.bind_info.mw_access_flags"))
                .isEqualTo(C.constant("IBV_ACCESS_REMOTE_READ") | C.constant("IBV_ACCESS_REMOTE_WRITE"));

        wr.reset(4).localInvalidate(0x101);
        assertThat(i32(s, "ibv_send_wr.opcode")).isEqualTo(C.constant("IBV_WR_LOCAL_INV"));
        assertThat(i32(s, "ibv_send_wr.invalidate_rkey")).isEqualTo(0x101);
        assertThat(s.get(ADDRESS, C.offset("ibv_send_wr.bind_mw.mw"))).isEqualTo(MemorySegment.NULL);
    }

    @Test
    void receiveRequestCarriesItsScatterList() {
        ReceiveWorkRequest wr = new ReceiveWorkRequest(2).reset(77).add(0x8000, 1024, 3).add(0x9000, 2048, 4);
        MemorySegment s = wr.segment();
        assertThat(i64(s, "ibv_recv_wr.wr_id")).isEqualTo(77);
        assertThat(s.get(ADDRESS, C.offset("ibv_recv_wr.next"))).isEqualTo(MemorySegment.NULL);
        assertThat(i32(s, "ibv_recv_wr.num_sge")).isEqualTo(2);
        MemorySegment list = sgList(s, "ibv_recv_wr", 2);
        assertSge(list, 0, 0x8000, 1024, 3);
        assertSge(list, 1, 0x9000, 2048, 4);
        wr.reset(78);
        assertThat(i32(s, "ibv_recv_wr.num_sge")).isZero();
    }

    @Test
    void moreEntriesThanRoomOrNegativeLengthsAreRefused() {
        SendWorkRequest send = new SendWorkRequest(1).reset(1).add(1, 1, 1);
        assertThatThrownBy(() -> send.add(2, 2, 2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1 scatter/gather");
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1).reset(1);
        assertThatThrownBy(() -> receive.add(2, -1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SendWorkRequest(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nextRkeyIncrementsOnlyTheConsumerByte() {
        assertThat(MemoryWindow.nextRkey(0x12345678)).isEqualTo(0x12345679);
        assertThat(MemoryWindow.nextRkey(0x123456ff)).isEqualTo(0x12345600);
        assertThat(MemoryWindow.nextRkey(0xffffffff)).isEqualTo(0xffffff00);
    }
}
