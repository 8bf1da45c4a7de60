package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What needs only the C library: errno texts, the exception's message, poll(2) and its wake-up. */
class LibcTest {
    @Test
    void errnoHasItsSymbolicNameAndMeaning() {
        assertThat(Errno.name(2)).isEqualTo("ENOENT");
        assertThat(Errno.description(2)).isEqualTo("No such file or directory");
        assertThat(Errno.name(19)).isEqualTo("ENODEV");
    }

    @Test
    void exceptionNamesTheCallAndTheErrno() {
        VerbsException e = new VerbsException("rdma_bind_addr", 99);
        assertThat(e.call()).isEqualTo("rdma_bind_addr");
        assertThat(e.errno()).isEqualTo(99);
        assertThat(e.errnoName()).isEqualTo("EADDRNOTAVAIL");
        assertThat(e).hasMessage("rdma_bind_addr failed: EADDRNOTAVAIL (Cannot assign requested address)");
    }

    @Test
    void aMissingLibrarySaysWhichPackageToInstall() {
        LibraryUnavailableException e = NativeLibrary.RDMACM.unavailable("cannot open shared object file");
        assertThat(e.library()).isEqualTo("librdmacm.so.1");
        assertThat(e).hasMessageContaining("librdmacm1").hasMessageContaining("cannot open shared object file");
        assertThat(e.call()).isEqualTo("dlopen librdmacm.so.1");
    }

    /** An eventfd of the test's own, to stand in for a channel's descriptor. */
    private static int eventfd(Arena arena) throws Throwable {
        return (int) LibC.EVENTFD.invokeExact(arena.allocate(Native.CAPTURE_STATE), 0, Constants.EFD_NONBLOCK);
    }

    private static void signal(Arena arena, int fd) throws Throwable {
        MemorySegment one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1);
        long written = (long) LibC.WRITE.invokeExact(arena.allocate(Native.CAPTURE_STATE), fd, one, 8L);
        assertThat(written).isEqualTo(8);
    }

    @Test
    void pollReportsWhichRegisteredDescriptorIsReadable() throws Throwable {
        try (Arena arena = Arena.ofConfined(); FdPoller poller = new FdPoller(2)) {
            int quiet = eventfd(arena);
            int busy = eventfd(arena);
            int quietIndex = poller.register(quiet);
            int busyIndex = poller.register(busy);
            assertThat(poller.poll(0)).isZero();
            signal(arena, busy);
            assertThat(poller.poll(-1)).isEqualTo(1);
            assertThat(poller.isReadable(busyIndex)).isTrue();
            assertThat(poller.isReadable(quietIndex)).isFalse();
            int closedQuiet = (int) LibC.CLOSE.invokeExact(quiet);
            int closedBusy = (int) LibC.CLOSE.invokeExact(busy);
            assertThat(closedQuiet | closedBusy).isZero();
        }
    }

    @Test
    void registeringBeyondCapacityIsRefused() throws VerbsException {
        try (FdPoller poller = new FdPoller(1)) {
            poller.register(0);
            assertThatThrownBy(() -> poller.register(1))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS) // guards against a hang only: without the wake-up poll(-1) never returns
    void wakeupFromAnotherThreadEndsAnUnboundedPoll() throws Exception {
        try (FdPoller poller = new FdPoller(1)) {
            CompletableFuture<Integer> polled = CompletableFuture.supplyAsync(() -> {
                try {
                    return poller.poll(-1);
                } catch (VerbsException e) {
                    throw new IllegalStateException(e);
                }
            });
            poller.wakeup();
            assertThat(polled.get()).isZero();
            assertThat(poller.poll(0)).as("the wake-up was consumed").isZero();
        }
    }
}
