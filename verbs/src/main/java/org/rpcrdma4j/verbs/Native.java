package org.rpcrdma4j.verbs;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/** Linking helpers shared by the binding classes: downcall handles, errno capture, C strings. */
final class Native {
    static final Linker LINKER = Linker.nativeLinker();

    /** Makes a handle take a leading segment into which the call's errno is captured. */
    static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    static final StructLayout CAPTURE_STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET = CAPTURE_STATE.byteOffset(groupElement("errno"));

    private Native() {
    }

    /** A handle on an exported function, created once: the first call of a handle is costly. */
    static MethodHandle downcall(SymbolLookup library, String name, FunctionDescriptor descriptor,
                                 Linker.Option... options) {
        MemorySegment address = library.find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("symbol not found: " + name));
        return LINKER.downcallHandle(address, descriptor, options);
    }

    /**
     * A handle whose first argument is the function's address: for the provider functions that
     * verbs.h reaches through {@code ibv_context.ops} in static inline functions. One handle
     * serves every context.
     */
    static MethodHandle pointerDowncall(FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(descriptor, options);
    }

    /** The errno captured by a call made with {@link #ERRNO}. */
    static int errno(MemorySegment captureState) {
        return captureState.get(JAVA_INT, ERRNO_OFFSET);
    }

    /** A NUL-terminated string at a native address, read up to max bytes; null for NULL. */
    static String string(MemorySegment pointer, int max) {
        if (pointer.equals(MemorySegment.NULL)) {
            return null;
        }
        return pointer.reinterpret(max).getString(0);
    }

    /** Throws for a call that returns 0 on success and an errno value otherwise (most verbs). */
    static void checkReturnedErrno(String call, int rc) throws VerbsException {
        if (rc != 0) {
            throw new VerbsException(call, rc < 0 ? -rc : rc);
        }
    }

    /** Throws for a call that returns -1 and sets errno (librdmacm, libc). */
    static void checkMinusOne(String call, int rc, MemorySegment captureState) throws VerbsException {
        if (rc == -1) {
            throw new VerbsException(call, errno(captureState));
        }
        if (rc != 0) {
            throw new VerbsException(call, rc < 0 ? -rc : rc);
        }
    }

    /** Throws for a call that returns NULL and sets errno; returns the pointer otherwise. */
    static MemorySegment checkPointer(String call, MemorySegment pointer, MemorySegment captureState)
            throws VerbsException {
        if (pointer.equals(MemorySegment.NULL)) {
            throw new VerbsException(call, errno(captureState));
        }
        return pointer;
    }

    /**
     * Wraps what a downcall threw that is not a failure of the callee: a wrong handle type is a
     * bug here, and native code does not throw Java exceptions.
     */
    static IllegalStateException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("downcall failed", t);
    }
}
