package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * librdmacm, bound once per process. Initialised only after {@link NativeLibrary#RDMACM} has
 * loaded ({@link Verbs#requireRdmacm()}). Its calls return -1 and set errno: all capture it.
 */
final class RdmaCm {
    private static final SymbolLookup LIB = NativeLibrary.RDMACM.loaded();

    static final MethodHandle CREATE_EVENT_CHANNEL = Native.downcall(LIB, "rdma_create_event_channel",
            FunctionDescriptor.of(ADDRESS), Native.ERRNO);
    static final MethodHandle DESTROY_EVENT_CHANNEL = Native.downcall(LIB, "rdma_destroy_event_channel",
            FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle CREATE_ID = Native.downcall(LIB, "rdma_create_id",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), Native.ERRNO);
    static final MethodHandle DESTROY_ID = Native.downcall(LIB, "rdma_destroy_id",
            FunctionDescriptor.of(JAVA_INT, ADDRESS), Native.ERRNO);
    static final MethodHandle BIND_ADDR = Native.downcall(LIB, "rdma_bind_addr",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle LISTEN = Native.downcall(LIB, "rdma_listen",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Native.ERRNO);
    static final MethodHandle RESOLVE_ADDR = Native.downcall(LIB, "rdma_resolve_addr",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), Native.ERRNO);
    static final MethodHandle RESOLVE_ROUTE = Native.downcall(LIB, "rdma_resolve_route",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Native.ERRNO);
    static final MethodHandle CREATE_QP = Native.downcall(LIB, "rdma_create_qp",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle DESTROY_QP = Native.downcall(LIB, "rdma_destroy_qp",
            FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle CONNECT = Native.downcall(LIB, "rdma_connect",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle ACCEPT = Native.downcall(LIB, "rdma_accept",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle REJECT = Native.downcall(LIB, "rdma_reject",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE), Native.ERRNO);
    static final MethodHandle DISCONNECT = Native.downcall(LIB, "rdma_disconnect",
            FunctionDescriptor.of(JAVA_INT, ADDRESS), Native.ERRNO);
    static final MethodHandle GET_CM_EVENT = Native.downcall(LIB, "rdma_get_cm_event",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.ERRNO);
    static final MethodHandle ACK_CM_EVENT = Native.downcall(LIB, "rdma_ack_cm_event",
            FunctionDescriptor.of(JAVA_INT, ADDRESS), Native.ERRNO);

    private RdmaCm() {
    }

    /** Forces the handles to be created (class initialisation). */
    static void link() {
    }
}
