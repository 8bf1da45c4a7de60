package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/** The libc functions this module needs, from the C library the JVM itself runs on. */
final class LibC {
    private static final SymbolLookup LIBC = Native.LINKER.defaultLookup();

    /** int poll(struct pollfd *fds, nfds_t nfds, int timeout) */
    static final MethodHandle POLL = Native.downcall(LIBC, "poll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Native.ERRNO);
    /** int eventfd(unsigned int initval, int flags) */
    static final MethodHandle EVENTFD = Native.downcall(LIBC, "eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), Native.ERRNO);
    /** ssize_t read(int fd, void *buf, size_t count) */
    static final MethodHandle READ = Native.downcall(LIBC, "read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), Native.ERRNO);
    /** ssize_t write(int fd, const void *buf, size_t count) */
    static final MethodHandle WRITE = Native.downcall(LIBC, "write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), Native.ERRNO);
    /** int close(int fd) */
    static final MethodHandle CLOSE = Native.downcall(LIBC, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    /** int fcntl(int fd, int cmd, ... int arg), variadic after cmd */
    static final MethodHandle FCNTL = Native.downcall(LIBC, "fcntl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Native.ERRNO,
            Linker.Option.firstVariadicArg(2));
    /** const char *strerrordesc_np(int errnum) (glibc 2.32+), else char *strerror(int errnum) */
    static final MethodHandle STRERROR = LIBC.find("strerrordesc_np").or(() -> LIBC.find("strerror"))
            .map(a -> Native.LINKER.downcallHandle(a, FunctionDescriptor.of(ADDRESS, JAVA_INT)))
            .orElseThrow();
    /** const char *strerrorname_np(int errnum) (glibc 2.32+); null where absent */
    static final MethodHandle STRERRORNAME = LIBC.find("strerrorname_np")
            .map(a -> Native.LINKER.downcallHandle(a, FunctionDescriptor.of(ADDRESS, JAVA_INT)))
            .orElse(null);

    private LibC() {
    }

    /** Sets O_NONBLOCK on a descriptor, so a read that would block fails with EAGAIN. */
    static void setNonBlocking(int fd) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            int flags = (int) FCNTL.invokeExact(capture, fd, Constants.F_GETFL, 0);
            if (flags == -1) {
                throw new VerbsException("fcntl(F_GETFL)", Native.errno(capture));
            }
            int rc = (int) FCNTL.invokeExact(capture, fd, Constants.F_SETFL, flags | Constants.O_NONBLOCK);
            if (rc == -1) {
                throw new VerbsException("fcntl(F_SETFL)", Native.errno(capture));
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
