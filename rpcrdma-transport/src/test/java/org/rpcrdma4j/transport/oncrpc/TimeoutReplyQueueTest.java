package org.rpcrdma4j.transport.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TimeoutReplyQueue} keeps oncrpc4j's timeout semantics: after its timeout a call's handler fails
 * with a {@link TimeoutException} exactly once, never after its reply, and the transport hears of it.
 * Time is a ticker the test moves; the queue's own timer is armed for the ticker's deadlines, minutes
 * away in real time, so only the sweeps the test makes decide.
 */
class TimeoutReplyQueueTest {

    private static final SocketAddress PEER = InetSocketAddress.createUnresolved("peer", 20049);
    private static final long TIMEOUT_S = 600;

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final List<Integer> timedOut = new CopyOnWriteArrayList<>();
    private final TimeoutReplyQueue queue = new TimeoutReplyQueue(timedOut::add, now::get,
            new ScheduledThreadPoolExecutor(1, DaemonThreads.named("test-timeouts")));

    @AfterEach
    void shutDown() {
        queue.shutdown();
    }

    @Test
    void aCallFailsWithATimeoutOnceItsDeadlineHasPassed() throws Exception {
        Answers answers = new Answers();
        queue.registerKey(7, PEER, answers, TIMEOUT_S, TimeUnit.SECONDS);

        advance(TimeUnit.SECONDS.toNanos(TIMEOUT_S) - 1);
        queue.sweep();
        assertThat(answers.failed.get()).isZero();
        assertThat(queue.deadlines()).isEqualTo(1);

        advance(1);
        queue.sweep();
        queue.sweep();
        assertThat(answers.failed.get()).isEqualTo(1);
        assertThat(answers.completed.get()).isZero();
        assertThat(answers.error).isInstanceOf(TimeoutException.class)
                .hasMessage("did not get a response within " + TIMEOUT_S + " SECONDS");
        assertThat(timedOut).containsExactly(7);
        assertThat(queue.get(7)).as("a reply after the timeout finds no call").isNull();
        assertThat(queue.deadlines()).isZero();
    }

    @Test
    void aCallAnsweredInTimeNeverTimesOut() throws Exception {
        Answers answers = new Answers();
        queue.registerKey(7, PEER, answers, TIMEOUT_S, TimeUnit.SECONDS);

        queue.get(7).completed(null, null);
        assertThat(queue.deadlines()).isZero();
        advance(TimeUnit.SECONDS.toNanos(TIMEOUT_S) * 2);
        queue.sweep();

        assertThat(answers.completed.get()).isEqualTo(1);
        assertThat(answers.failed.get()).isZero();
        assertThat(timedOut).isEmpty();
    }

    @Test
    void onlyTheCallsPastTheirDeadlineTimeOut() throws Exception {
        Answers shortTimeout = new Answers();
        Answers longTimeout = new Answers();
        queue.registerKey(1, PEER, longTimeout, 2 * TIMEOUT_S, TimeUnit.SECONDS);
        queue.registerKey(2, PEER, shortTimeout, TIMEOUT_S, TimeUnit.SECONDS);

        advance(TimeUnit.SECONDS.toNanos(TIMEOUT_S));
        queue.sweep();
        assertThat(timedOut).containsExactly(2);
        assertThat(shortTimeout.failed.get()).isEqualTo(1);
        assertThat(longTimeout.failed.get()).isZero();

        advance(TimeUnit.SECONDS.toNanos(TIMEOUT_S));
        queue.sweep();
        assertThat(timedOut).containsExactly(2, 1);
        assertThat(longTimeout.failed.get()).isEqualTo(1);
    }

    @Test
    void aCallWithoutTimeoutIsOncrpc4jsOwnEntry() throws Exception {
        Answers answers = new Answers();
        queue.registerKey(7, PEER, answers, 0, null);

        assertThat(queue.deadlines()).isZero();
        advance(Long.MAX_VALUE / 2);
        queue.sweep();
        assertThat(queue.get(7)).isSameAs(answers);
        assertThat(timedOut).isEmpty();
    }

    @Test
    void aDisconnectFailsTheCallAndItsDeadlineGoes() throws Exception {
        Answers answers = new Answers();
        queue.registerKey(7, PEER, answers, TIMEOUT_S, TimeUnit.SECONDS);

        queue.handleDisconnect(PEER);
        advance(TimeUnit.SECONDS.toNanos(TIMEOUT_S));
        queue.sweep();

        assertThat(answers.error).isInstanceOf(EOFException.class);
        assertThat(answers.failed.get()).isEqualTo(1);
        assertThat(queue.deadlines()).isZero();
        assertThat(timedOut).isEmpty();
    }

    @Test
    void repliesRacingTheTimerAnswerEachCallExactlyOnce() throws Exception {
        int calls = 20_000;
        Answers[] answers = new Answers[calls];
        for (int xid = 0; xid < calls; xid++) {
            answers[xid] = new Answers();
            queue.registerKey(xid, PEER, answers[xid], TIMEOUT_S, TimeUnit.SECONDS);
        }
        advance(TimeUnit.SECONDS.toNanos(TIMEOUT_S));
        CountDownLatch go = new CountDownLatch(1);
        Thread replies = new Thread(() -> {
            await(go);
            for (int xid = 0; xid < calls; xid++) {
                CompletionHandler<RpcReply, RpcTransport> handler = queue.get(xid);
                if (handler != null) {
                    handler.completed(null, null);
                }
            }
        });
        replies.start();
        go.countDown();
        queue.sweep();
        replies.join();

        int completed = 0;
        for (Answers answer : answers) {
            assertThat(answer.completed.get() + answer.failed.get()).isEqualTo(1);
            completed += answer.completed.get();
        }
        assertThat(timedOut).hasSize(calls - completed).doesNotHaveDuplicates();
        assertThat(queue.deadlines()).isZero();
    }

    @Test
    void aShutDownQueueRefusesCallsWithATimeout() {
        queue.shutdown();
        assertThatThrownBy(() -> queue.registerKey(7, PEER, new Answers(), TIMEOUT_S, TimeUnit.SECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(queue.get(7)).isNull();
    }

    private void advance(long nanos) {
        now.addAndGet(nanos);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Counts how a call was answered. */
    private static final class Answers implements CompletionHandler<RpcReply, RpcTransport> {

        final AtomicInteger completed = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        volatile Throwable error;

        @Override
        public void completed(RpcReply reply, RpcTransport transport) {
            completed.incrementAndGet();
        }

        @Override
        public void failed(Throwable exc, RpcTransport transport) {
            error = exc;
            failed.incrementAndGet();
        }
    }
}
