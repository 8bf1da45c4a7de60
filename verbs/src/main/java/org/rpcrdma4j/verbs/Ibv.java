package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * libibverbs, bound once per process. Initialised only after {@link NativeLibrary#IBVERBS} has
 * loaded ({@link Verbs#requireIbverbs()}). Handles marked ERRNO take a leading capture segment.
 */
final class Ibv {
    private static final SymbolLookup LIB = NativeLibrary.IBVERBS.loaded();

    static final MethodHandle GET_DEVICE_LIST = Native.downcall(LIB, "ibv_get_device_list",
            FunctionDescriptor.of(ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle FREE_DEVICE_LIST = Native.downcall(LIB, "ibv_free_device_list",
            FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle GET_DEVICE_NAME = Native.downcall(LIB, "ibv_get_device_name",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle OPEN_DEVICE = Native.downcall(LIB, "ibv_open_device",
            FunctionDescriptor.of(ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle CLOSE_DEVICE = Native.downcall(LIB, "ibv_close_device",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle QUERY_DEVICE = Native.downcall(LIB, "ibv_query_device",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** The exported symbol fills the 48-byte compat struct, a prefix of struct ibv_port_attr. */
    static final MethodHandle QUERY_PORT = Native.downcall(LIB, "ibv_query_port",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
    static final MethodHandle QUERY_GID = Native.downcall(LIB, "ibv_query_gid",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS), Native.ERRNO);
    static final MethodHandle GET_ASYNC_EVENT = Native.downcall(LIB, "ibv_get_async_event",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle ACK_ASYNC_EVENT = Native.downcall(LIB, "ibv_ack_async_event",
            FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle ALLOC_PD = Native.downcall(LIB, "ibv_alloc_pd",
            FunctionDescriptor.of(ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle DEALLOC_PD = Native.downcall(LIB, "ibv_dealloc_pd",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** Plain access flags only: with IBV_ACCESS_OPTIONAL_RANGE bits verbs.h calls ibv_reg_mr_iova2. */
    static final MethodHandle REG_MR = Native.downcall(LIB, "ibv_reg_mr",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), Native.ERRNO);
    static final MethodHandle DEREG_MR = Native.downcall(LIB, "ibv_dereg_mr",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CREATE_COMP_CHANNEL = Native.downcall(LIB, "ibv_create_comp_channel",
            FunctionDescriptor.of(ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle DESTROY_COMP_CHANNEL = Native.downcall(LIB, "ibv_destroy_comp_channel",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CREATE_CQ = Native.downcall(LIB, "ibv_create_cq",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), Native.ERRNO);
    static final MethodHandle DESTROY_CQ = Native.downcall(LIB, "ibv_destroy_cq",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle GET_CQ_EVENT = Native.downcall(LIB, "ibv_get_cq_event",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle ACK_CQ_EVENTS = Native.downcall(LIB, "ibv_ack_cq_events",
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    static final MethodHandle CREATE_SRQ = Native.downcall(LIB, "ibv_create_srq",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle DESTROY_SRQ = Native.downcall(LIB, "ibv_destroy_srq",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle MODIFY_QP = Native.downcall(LIB, "ibv_modify_qp",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle DESTROY_QP = Native.downcall(LIB, "ibv_destroy_qp",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** NULL for a queue pair not created with the extended verbs. */
    static final MethodHandle QP_TO_QP_EX = Native.downcall(LIB, "ibv_qp_to_qp_ex",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle CREATE_AH = Native.downcall(LIB, "ibv_create_ah",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle DESTROY_AH = Native.downcall(LIB, "ibv_destroy_ah",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));

    private Ibv() {
    }

    /** Forces the handles to be created (class initialisation). */
    static void link() {
    }
}
