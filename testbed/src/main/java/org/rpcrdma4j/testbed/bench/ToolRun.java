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

/**
 * The processes of one run of a peer tool (fi_pingpong, ibv_rc_pingpong), under one deadline: each is killed when
 * the run is closed, and when this JVM exits first, so that no run leaves one behind.
 */
final class ToolRun implements AutoCloseable {

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
