package org.rpcrdma4j.efa;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * An optional thread that owns an {@link EfaEndpoint} and calls {@link EfaEndpoint#progress(long)}
 * with {@link System#nanoTime()}, in the manner of an Agrona duty-cycle agent. The
 * endpoint stays single-threaded: other threads never touch it, they hand commands to
 * {@link #execute(Consumer)}, which go through a lock-free queue and run on this thread before
 * the next progress. Completions are handed to a sink on this thread.
 *
 * <p>{@link #close()} stops the thread, which then closes the endpoint and hands the completions
 * of what the close cancelled to the sink, still on its own thread.
 */
public final class EndpointProgressThread implements AutoCloseable {

    private static final int POLL_MAX = 64;

    private final EfaEndpoint endpoint;
    private final Consumer<CompletionEntry> completions;
    private final LongConsumer beforeProgress;
    private final ConcurrentLinkedQueue<Consumer<EfaEndpoint>> commands = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile RuntimeException failure;

    private EndpointProgressThread(EfaEndpoint endpoint, Consumer<CompletionEntry> completions,
                                   LongConsumer beforeProgress, String name) {
        this.endpoint = endpoint;
        this.completions = completions;
        this.beforeProgress = beforeProgress;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    /**
     * Starts a progress thread.
     *
     * @param endpoint the endpoint, owned by the thread from now on
     * @param completions receives every completion, on the progress thread
     * @param beforeProgress called on the progress thread with the time before each progress, for
     *     what must move in step with the endpoint (a simulated fabric); {@code now -> { }} if nothing
     * @return the running thread
     */
    public static EndpointProgressThread start(EfaEndpoint endpoint, Consumer<CompletionEntry> completions,
                                               LongConsumer beforeProgress) {
        final EndpointProgressThread agent = new EndpointProgressThread(Objects.requireNonNull(endpoint, "endpoint"),
                Objects.requireNonNull(completions, "completions"), Objects.requireNonNull(beforeProgress, "beforeProgress"),
                "efa-progress");
        agent.thread.start();
        return agent;
    }

    /**
     * Runs a command against the endpoint on the progress thread, before its next progress.
     *
     * @param command what to do, for example post a receive or send a message
     * @throws IllegalStateException if the thread has been closed
     */
    public void execute(Consumer<EfaEndpoint> command) {
        if (!running) {
            throw new IllegalStateException("the progress thread is closed");
        }
        commands.add(Objects.requireNonNull(command, "command"));
    }

    /**
     * Stops the thread, closes the endpoint on it and waits for it.
     *
     * @throws IllegalStateException if a command or the progress failed on the thread
     */
    @Override
    public void close() {
        running = false;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new IllegalStateException("the progress thread failed", failure);
        }
    }

    private void run() {
        try {
            while (running) {
                for (Consumer<EfaEndpoint> command = commands.poll(); command != null; command = commands.poll()) {
                    command.accept(endpoint);
                }
                final long now = System.nanoTime();
                beforeProgress.accept(now);
                int work = endpoint.progress(now);
                work += endpoint.poll(completions, POLL_MAX);
                if (work == 0) {
                    Thread.onSpinWait();
                }
            }
        } catch (RuntimeException e) {
            failure = e;
            running = false;
        } finally {
            endpoint.close();
            while (endpoint.poll(completions, POLL_MAX) > 0) {
                // The cancelled operations' completions go to the sink like any others.
            }
        }
    }
}
