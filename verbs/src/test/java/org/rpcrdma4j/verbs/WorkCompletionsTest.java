package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Completions written as a provider would, at the rdma-core 44 header offsets, and read back. */
class WorkCompletionsTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;

    private static void put(MemorySegment wcs, int i, String field, int value) {
        wcs.set(JAVA_INT, i * C.size("ibv_wc") + C.offset("ibv_wc." + field), value);
    }

    @Test
    void readsEachCompletionInPlace() {
        WorkCompletions wc = new WorkCompletions(4);
        MemorySegment raw = wc.segment();
        raw.set(JAVA_LONG, C.offset("ibv_wc.wr_id"), 11);
        put(raw, 0, "status", C.constant("IBV_WC_SUCCESS"));
        put(raw, 0, "opcode", C.constant("IBV_WC_RECV"));
        put(raw, 0, "byte_len", 1500);
        put(raw, 0, "qp_num", 17);
        put(raw, 0, "wc_flags", C.constant("IBV_WC_WITH_INV"));
        put(raw, 0, "invalidated_rkey", 0xcafe01);
        raw.set(JAVA_LONG, C.size("ibv_wc") + C.offset("ibv_wc.wr_id"), 12);
        put(raw, 1, "status", C.constant("IBV_WC_WR_FLUSH_ERR"));
        put(raw, 1, "vendor_err", 249);
        wc.filled(2);

        assertThat(wc.count()).isEqualTo(2);
        assertThat(wc.wrId(0)).isEqualTo(11);
        assertThat(wc.succeeded(0)).isTrue();
        assertThat(wc.status(0)).isSameAs(WcStatus.SUCCESS);
        assertThat(wc.opcode(0)).isSameAs(WcOpcode.RECV);
        assertThat(wc.byteLength(0)).isEqualTo(1500);
        assertThat(wc.qpNum(0)).isEqualTo(17);
        assertThat(wc.withInvalidate(0)).isTrue();
        assertThat(wc.invalidatedRkey(0)).isEqualTo(0xcafe01);

        assertThat(wc.wrId(1)).isEqualTo(12);
        assertThat(wc.succeeded(1)).isFalse();
        assertThat(wc.status(1)).isSameAs(WcStatus.WR_FLUSH_ERR);
        assertThat(wc.vendorError(1)).isEqualTo(249);
        assertThat(wc.withInvalidate(1)).isFalse();
        assertThat(wc.describe(1)).contains("WR_FLUSH_ERR", "Work Request Flushed Error", "vendor_err=249");
    }

    /** rdma_rxe reports a receive's invalidation with the kernel's flag, libibverbs' IBV_WC_IP_CSUM_OK bit. */
    @Test
    void aReceiveInvalidatingAsRxeReportsItCarriesItsKey() {
        WorkCompletions wc = new WorkCompletions(2);
        MemorySegment raw = wc.segment();
        put(raw, 0, "status", C.constant("IBV_WC_SUCCESS"));
        put(raw, 0, "opcode", C.constant("IBV_WC_RECV"));
        put(raw, 0, "wc_flags", C.constant("IBV_WC_GRH") | C.constant("IBV_WC_IP_CSUM_OK"));
        put(raw, 0, "invalidated_rkey", 0x08000124);
        put(raw, 1, "status", C.constant("IBV_WC_SUCCESS"));
        put(raw, 1, "opcode", C.constant("IBV_WC_SEND"));
        put(raw, 1, "wc_flags", C.constant("IBV_WC_IP_CSUM_OK"));
        wc.filled(2);

        assertThat(wc.withInvalidate(0)).isTrue();
        assertThat(wc.invalidatedRkey(0)).isEqualTo(0x08000124);
        assertThat(wc.withInvalidate(1)).as("not a receive").isFalse();
    }

    /** libefa's receive completion: the sender's QPN in src_qp, the receiver's handle number for it in slid. */
    @Test
    void aDatagramReceiveNamesItsSendersQueuePairAndAddressHandleNumber() {
        WorkCompletions wc = new WorkCompletions(2);
        MemorySegment raw = wc.segment();
        put(raw, 0, "status", C.constant("IBV_WC_SUCCESS"));
        put(raw, 0, "opcode", C.constant("IBV_WC_RECV"));
        put(raw, 0, "src_qp", 0x1234);
        raw.set(JAVA_SHORT, C.offset("ibv_wc.slid"), (short) 0xFFFE);
        raw.set(JAVA_SHORT, C.offset("ibv_wc.pkey_index"), (short) 0x7777);
        put(raw, 0, "wc_flags", 0);
        wc.filled(1);

        assertThat(wc.sourceQpNum(0)).isEqualTo(0x1234);
        assertThat(wc.slid(0)).as("u16, widened unsigned").isEqualTo(0xFFFE);
    }

    @Test
    void entriesBeyondTheLastPollAndMissingRkeysAreRefused() {
        WorkCompletions wc = new WorkCompletions(2);
        wc.filled(1);
        assertThatThrownBy(() -> wc.wrId(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> wc.invalidatedRkey(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new WorkCompletions(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void holdsCapacityEntriesOfTheCSize() {
        assertThat(new WorkCompletions(16).segment().byteSize()).isEqualTo(16 * C.size("ibv_wc"));
    }
}
