package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * libefa's direct verbs (efadv.h), bound once per process. Initialised only after
 * {@link NativeLibrary#EFA} has loaded ({@link Verbs#requireEfa()}). Each call takes the size of the
 * struct it is given ({@code inlen}), so that an older caller works with a newer library.
 */
final class EfaDv {
    private static final SymbolLookup LIB = NativeLibrary.EFA.loaded();

    /** int efadv_query_device(ibv_context *, efadv_device_attr *, uint32_t inlen): 0 or an errno value. */
    static final MethodHandle QUERY_DEVICE = Native.downcall(LIB, "efadv_query_device",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    /** ibv_qp *efadv_create_qp_ex(ibv_context *, ibv_qp_init_attr_ex *, efadv_qp_init_attr *, inlen): NULL, errno. */
    static final MethodHandle CREATE_QP_EX = Native.downcall(LIB, "efadv_create_qp_ex",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), Native.ERRNO);
    /** int efadv_query_ah(ibv_ah *, efadv_ah_attr *, uint32_t inlen): 0 or an errno value. */
    static final MethodHandle QUERY_AH = Native.downcall(LIB, "efadv_query_ah",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

    private EfaDv() {
    }

    /** Forces the handles to be created (class initialisation). */
    static void link() {
    }
}
