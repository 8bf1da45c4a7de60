package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/**
 * The extended work-request verbs ({@code ibv_wr_*}), static inline in verbs.h: each calls the function
 * its provider put in {@code struct ibv_qp_ex} ({@link SrdQueuePair}), so, as {@link ProviderOps}, they
 * need no symbol and no library to be bound.
 */
final class QueuePairExOps {

    private QueuePairExOps() {
    }

    /** void (*wr_start)(struct ibv_qp_ex *): opens a batch (libefa takes the send queue's lock). */
    static final MethodHandle WR_START = Native.pointerDowncall(FunctionDescriptor.ofVoid(ADDRESS));
    /** int (*wr_complete)(struct ibv_qp_ex *): posts the batch, or nothing of it and returns an errno value. */
    static final MethodHandle WR_COMPLETE = Native.pointerDowncall(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** void (*wr_abort)(struct ibv_qp_ex *): drops the batch. */
    static final MethodHandle WR_ABORT = Native.pointerDowncall(FunctionDescriptor.ofVoid(ADDRESS));
    /** void (*wr_send)(struct ibv_qp_ex *) */
    static final MethodHandle WR_SEND = Native.pointerDowncall(FunctionDescriptor.ofVoid(ADDRESS));
    /** void (*wr_rdma_read)(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr) */
    static final MethodHandle WR_RDMA_READ = Native.pointerDowncall(
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG));
    /** void (*wr_rdma_write)(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr) */
    static final MethodHandle WR_RDMA_WRITE = Native.pointerDowncall(
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG));
    /** void (*wr_set_ud_addr)(struct ibv_qp_ex *, struct ibv_ah *, uint32_t remote_qpn, uint32_t remote_qkey) */
    static final MethodHandle WR_SET_UD_ADDR = Native.pointerDowncall(
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, JAVA_INT));
    /** void (*wr_set_sge)(struct ibv_qp_ex *, uint32_t lkey, uint64_t addr, uint32_t length) */
    static final MethodHandle WR_SET_SGE = Native.pointerDowncall(
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    /** void (*wr_set_inline_data)(struct ibv_qp_ex *, void *addr, size_t length) */
    static final MethodHandle WR_SET_INLINE_DATA = Native.pointerDowncall(
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
}
