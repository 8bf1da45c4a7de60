package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * The verbs that are static inline in verbs.h: called through the provider's function pointers in
 * {@code ibv_context.ops} ({@link VerbsContext}), so they need no symbol of libibverbs and no library
 * loaded to be bound.
 */
final class ProviderOps {

    private ProviderOps() {
    }

    /** int (*poll_cq)(struct ibv_cq *, int num_entries, struct ibv_wc *); short and non-blocking: critical. */
    static final MethodHandle POLL_CQ = Native.pointerDowncall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), Linker.Option.critical(false));
    /** int (*req_notify_cq)(struct ibv_cq *, int solicited_only) */
    static final MethodHandle REQ_NOTIFY_CQ = Native.pointerDowncall(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /** int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad_wr) */
    static final MethodHandle POST_SEND = Native.pointerDowncall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **bad_wr) */
    static final MethodHandle POST_RECV = Native.pointerDowncall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** int (*post_srq_recv)(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **bad_recv_wr) */
    static final MethodHandle POST_SRQ_RECV = Native.pointerDowncall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** struct ibv_mw *(*alloc_mw)(struct ibv_pd *, enum ibv_mw_type) */
    static final MethodHandle ALLOC_MW = Native.pointerDowncall(
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), Native.ERRNO);
    /** int (*dealloc_mw)(struct ibv_mw *) */
    static final MethodHandle DEALLOC_MW = Native.pointerDowncall(FunctionDescriptor.of(JAVA_INT, ADDRESS));
}
