package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Stage 6: a progress thread owns the endpoint; other threads hand it commands. */
class ProgressThreadTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void commandsRunOnTheProgressThreadAndCompletionsComeBack() throws InterruptedException {
        final SimPair pair = new SimPair(seed.seed());
        final BlockingQueue<CompletionEntry> done = new ArrayBlockingQueue<>(16);
        final ByteBuffer into = ByteBuffer.allocate(100_000);
        // One thread drives the fabric and both endpoints, so nothing is shared across threads.
        try (EndpointProgressThread thread = EndpointProgressThread.start(pair.a, done::add, now -> {
            pair.fabric.progress(now);
            pair.b.progress(now);
            pair.b.poll(done::add, 16);
        })) {
            thread.execute(ep -> pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1));
            thread.execute(ep -> ep.send(pair.aToB, SimPair.pattern(100_000, 9), 2));

            final CompletionEntry first = done.poll(30, TimeUnit.SECONDS);
            final CompletionEntry second = done.poll(30, TimeUnit.SECONDS);
            assertThat(first).isNotNull();
            assertThat(second).isNotNull();
            assertThat(first.ok() && second.ok()).isTrue();
        }
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(100_000, 9));
    }

    @Test
    void closingTheThreadClosesTheEndpointAndHandsOverWhatItCancelled() throws InterruptedException {
        final SimPair pair = new SimPair(seed.seed());
        final BlockingQueue<CompletionEntry> done = new ArrayBlockingQueue<>(16);
        final EndpointProgressThread thread = EndpointProgressThread.start(pair.a, done::add, pair.fabric::progress);
        final CountDownLatch posted = new CountDownLatch(1);
        thread.execute(ep -> {
            ep.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(8), 7);
            posted.countDown();
        });
        assertThat(posted.await(30, TimeUnit.SECONDS)).isTrue();

        thread.close();

        final CompletionEntry cancelled = done.poll(30, TimeUnit.SECONDS);
        assertThat(cancelled).isNotNull();
        assertThat(cancelled.context()).isEqualTo(7);
        assertThat(cancelled.error()).isEqualTo(EfaErrorCode.CANCELED);
        assertThat(pair.deviceA.isClosed()).isTrue();
    }
}
