package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Waits for file descriptors to become readable, with a timeout ({@code poll(2)}), and can be
 * woken from another thread ({@link #wakeup()}, an {@code eventfd}). A progress thread registers
 * its completion channels' and CM event channel's descriptors, sleeps here when idle, and is
 * woken for shutdown or new work; a thread blocked in native code does not see
 * {@link Thread#interrupt()}.
 *
 * <p>Only {@link #wakeup()} may be called from other threads; {@link #poll} allocates nothing.
 */
public final class FdPoller implements AutoCloseable {
    private static final long SIZE = Structs.POLLFD.byteSize();
    private static final long FD = Structs.offset(Structs.POLLFD, "fd");
    private static final long EVENTS = Structs.offset(Structs.POLLFD, "events");
    private static final long REVENTS = Structs.offset(Structs.POLLFD, "revents");

    private final Arena arena = Arena.ofShared();
    private final MemorySegment fds;
    private final MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
    private final MemorySegment counter = arena.allocate(JAVA_LONG);
    private final MemorySegment wakeCapture = arena.allocate(Native.CAPTURE_STATE);
    private final MemorySegment one = arena.allocate(JAVA_LONG);
    private final int wakeFd;
    private int registered;
    private boolean closed;

    /**
     * @param capacity the most descriptors it will watch, besides its own wake-up descriptor
     */
    public FdPoller(int capacity) throws VerbsException {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, not " + capacity);
        }
        fds = arena.allocate(Structs.POLLFD, capacity + 1L);
        one.set(JAVA_LONG, 0, 1);
        try {
            wakeFd = (int) LibC.EVENTFD.invokeExact(capture, 0, Constants.EFD_NONBLOCK | Constants.EFD_CLOEXEC);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        if (wakeFd < 0) {
            arena.close();
            throw new VerbsException("eventfd", Native.errno(capture));
        }
        set(0, wakeFd);
    }

    private void set(int slot, int fd) {
        fds.set(JAVA_INT, slot * SIZE + FD, fd);
        fds.set(JAVA_SHORT, slot * SIZE + EVENTS, (short) Constants.POLLIN);
        fds.set(JAVA_SHORT, slot * SIZE + REVENTS, (short) 0);
    }

    /**
     * Watches a descriptor for readability.
     *
     * @param fd e.g. {@link CompletionChannel#fd()} or {@link CmEventChannel#fd()}
     * @return its index for {@link #isReadable(int)}
     */
    public int register(int fd) {
        if (registered + 1 == fds.byteSize() / SIZE) {
            throw new IllegalStateException("all " + registered + " slots are taken");
        }
        set(registered + 1, fd);
        return registered++;
    }

    /**
     * Waits until a registered descriptor is readable, {@link #wakeup()} is called, or the
     * timeout passes. A wake-up is consumed here.
     *
     * @param timeoutMillis the longest wait; 0 returns at once, -1 waits without limit
     * @return how many registered descriptors are readable (0 after a wake-up, timeout or signal)
     */
    public int poll(int timeoutMillis) throws VerbsException {
        int n;
        try {
            n = (int) LibC.POLL.invokeExact(capture, fds, (long) registered + 1, timeoutMillis);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        if (n < 0) {
            int errno = Native.errno(capture);
            if (errno == Constants.EINTR) {
                return 0;
            }
            throw new VerbsException("poll", errno);
        }
        if (readable(0)) {
            drainWakeups();
            n--;
        }
        return n;
    }

    private void drainWakeups() throws VerbsException {
        try {
            long rc = (long) LibC.READ.invokeExact(capture, wakeFd, counter, 8L);
            if (rc < 0 && Native.errno(capture) != Constants.EAGAIN) {
                throw new VerbsException("read(eventfd)", Native.errno(capture));
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    private boolean readable(int slot) {
        return fds.get(JAVA_SHORT, slot * SIZE + REVENTS) != 0;
    }

    /**
     * @param index an index from {@link #register(int)}
     * @return whether the last {@link #poll} found it readable (or in error or hung up, which a read reports)
     */
    public boolean isReadable(int index) {
        if (index < 0 || index >= registered) {
            throw new IndexOutOfBoundsException(index);
        }
        return readable(index + 1);
    }

    /** Makes the current or next {@link #poll} return at once. Safe from any thread. */
    public void wakeup() throws VerbsException {
        synchronized (wakeCapture) {
            if (closed) {
                return;
            }
            try {
                long rc = (long) LibC.WRITE.invokeExact(wakeCapture, wakeFd, one, 8L);
                if (rc < 0 && Native.errno(wakeCapture) != Constants.EAGAIN) {
                    throw new VerbsException("write(eventfd)", Native.errno(wakeCapture));
                }
            } catch (VerbsException e) {
                throw e;
            } catch (Throwable t) {
                throw Native.unexpected(t);
            }
        }
    }

    /** Closes the wake-up descriptor; the registered ones stay their owners'. */
    @Override
    public void close() {
        synchronized (wakeCapture) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                int ignored = (int) LibC.CLOSE.invokeExact(wakeFd);
            } catch (Throwable t) {
                throw Native.unexpected(t);
            }
        }
        arena.close();
    }
}
