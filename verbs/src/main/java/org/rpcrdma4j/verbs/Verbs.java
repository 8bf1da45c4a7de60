package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Entry point: loads libibverbs and librdmacm and lists RDMA devices.
 *
 * <p>Every downcall handle is created once per process, when its library is first required;
 * {@link #load()} does it for both at start-up, because the first call of each handle is slow
 * (15–120 ms each in an emulated guest).
 */
public final class Verbs {
    private Verbs() {
    }

    /**
     * Loads both libraries and creates every downcall handle now.
     *
     * @throws LibraryUnavailableException if either library, or a function in it, is missing
     */
    public static void load() throws LibraryUnavailableException {
        requireIbverbs();
        requireRdmacm();
    }

    /**
     * Names of the RDMA devices present, as {@code ibv_get_device_list} reports them (e.g.
     * {@code rxe0}). Empty on a host without any, including one whose kernel has no RDMA support
     * at all ({@code ibv_get_device_list} fails with ENOSYS when {@code /sys/class/infiniband_verbs}
     * is absent).
     *
     * @throws LibraryUnavailableException if libibverbs is missing
     * @throws VerbsException if the list cannot be taken for another reason
     */
    public static List<String> deviceNames() throws VerbsException {
        requireIbverbs();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) Ibv.GET_DEVICE_LIST.invokeExact(capture, count);
            if (list.equals(MemorySegment.NULL) && Native.errno(capture) == Constants.ENOSYS) {
                return List.of();
            }
            Native.checkPointer("ibv_get_device_list", list, capture);
            try {
                int n = count.get(JAVA_INT, 0);
                MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * (n + 1L));
                List<String> names = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    MemorySegment name = (MemorySegment) Ibv.GET_DEVICE_NAME.invokeExact(
                            devices.getAtIndex(ADDRESS, i));
                    names.add(Native.string(name, 64));
                }
                return List.copyOf(names);
            } finally {
                Ibv.FREE_DEVICE_LIST.invokeExact(list);
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Loads libibverbs and binds it, or says why not. */
    static void requireIbverbs() throws LibraryUnavailableException {
        NativeLibrary.IBVERBS.require();
        try {
            Ibv.link();
        } catch (LinkageError e) {
            throw NativeLibrary.IBVERBS.unavailable(describe(e));
        }
    }

    /** Loads librdmacm (and libibverbs, which its users need) and binds it, or says why not. */
    static void requireRdmacm() throws LibraryUnavailableException {
        requireIbverbs();
        NativeLibrary.RDMACM.require();
        try {
            RdmaCm.link();
        } catch (LinkageError e) {
            throw NativeLibrary.RDMACM.unavailable(describe(e));
        }
    }

    /** Loads libefa (and libibverbs, whose objects it takes) and binds it, or says why not. */
    static void requireEfa() throws LibraryUnavailableException {
        requireIbverbs();
        NativeLibrary.EFA.require();
        try {
            EfaDv.link();
        } catch (LinkageError e) {
            throw NativeLibrary.EFA.unavailable(describe(e));
        }
    }

    private static String describe(LinkageError e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return String.valueOf(cause.getMessage());
    }
}
