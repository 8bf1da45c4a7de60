package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The processes of one run of a peer tool (fi_pingpong, ibv_rc_pingpong), under one deadline: each is killed when
 * the run is closed, and when this JVM exits first, so that no run leaves one behind.
 */
final class ToolRun implements AutoCloseable {

    /** How long a client that found no server waits before it is run again. */
    private static final long RETRY_MS = 100;

    private final long deadline;
    private final List<Process> started = new CopyOnWriteArrayList<>();
    private final Thread kill = new Thread(() -> started.forEach(Process::destroyForcibly), "tool-kill");

    /** @param limit how long the whole run may take */
    ToolRun(Duration limit) {
        deadline = System.nanoTime() + limit.toNanos();
        Runtime.getRuntime().addShutdownHook(kill);
    }

    /** A started process and, once it ends, everything it printed (standard output and error together). */
    record Started(Process process, CompletableFuture<String> output) {
    }

    /**
     * @param command the command line
     * @return the process, started, its output being read
     */
    Started start(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        started.add(process);
        InputStream in = process.getInputStream();
        return new Started(process, CompletableFuture.supplyAsync(() -> {
            try {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(its output could not be read: " + e + ")";
            }
        }));
    }

    /**
     * Waits for a process to end.
     *
     * @return what it printed, if it exited with 0
     * @throws IOException      if it exited with another value, carrying what it printed
     * @throws TimeoutException if the run's deadline passes first
     */
    String await(Started process, String what) throws IOException, InterruptedException, TimeoutException {
        try {
            String output = process.output().get(remainingNanos(), TimeUnit.NANOSECONDS);
            if (!process.process().waitFor(remainingNanos(), TimeUnit.NANOSECONDS)) {
                throw new TimeoutException();
            }
            if (process.process().exitValue() != 0) {
                throw new IOException(what + " failed: " + output.strip());
            }
            return output;
        } catch (ExecutionException e) {
            throw new IOException(what + "'s output could not be read", e.getCause());
        }
    }

    /**
     * Runs a tool's client half until it finds its server listening: a client that comes first (however long it
     * took to start) fails saying so, and is run again, a moment later, while the server may still come.
     *
     * @param command     the client's command line
     * @param what        the client, as errors name it
     * @param refusal     what the client says when no server listens yet
     * @param serverAlive whether waiting for the server can still end well
     * @return what the client that ran printed
     * @throws IOException      if it fails otherwise, or still finds no server at the deadline
     * @throws TimeoutException if the deadline passes while it runs
     */
    String runClient(List<String> command, String what, String refusal, BooleanSupplier serverAlive)
            throws IOException, InterruptedException, TimeoutException {
        while (true) {
            try {
                return await(start(command), what);
            } catch (IOException e) {
                if (!e.getMessage().contains(refusal) || !serverAlive.getAsBoolean() || remainingNanos() == 0) {
                    throw e;
                }
                Thread.sleep(RETRY_MS);
            }
        }
    }

    /** @return nanoseconds left before the deadline, never negative */
    long remainingNanos() {
        return Math.max(0, deadline - System.nanoTime());
    }

    @Override
    public void close() {
        started.forEach(Process::destroyForcibly);
        try {
            Runtime.getRuntime().removeShutdownHook(kill);
        } catch (IllegalStateException e) {
            // this JVM is exiting: the hook runs anyway
        }
    }
}
