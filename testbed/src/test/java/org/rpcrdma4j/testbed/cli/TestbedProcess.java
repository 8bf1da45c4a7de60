package org.rpcrdma4j.testbed.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.rpcrdma4j.testbed.Main;

/**
 * A testbed command in a JVM of its own, started with this test JVM's java and class path (after a
 * prefix such as {@code ip netns exec NS}, which execs it: the process is the JVM), its output and
 * errors collected line by line as they come, so a test can wait for a line such as the address
 * {@code serve} prints.
 */
final class TestbedProcess implements AutoCloseable {

    private final Process process;
    private final List<String> lines = new ArrayList<>();     // guarded by itself
    private final Thread reader;
    private boolean ended;                                     // guarded by lines

    private TestbedProcess(Process process, String name) {
        this.process = process;
        this.reader = new Thread(this::read, name + "-output");
        reader.start();
    }

    /**
     * @param prefix     what runs java, or nothing
     * @param properties system properties for the JVM, as {@code -Dname=value}
     * @param args       the testbed command and its options
     * @return the process, started
     */
    static TestbedProcess start(List<String> prefix, List<String> properties, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(properties);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        return new TestbedProcess(new ProcessBuilder(command).redirectErrorStream(true).start(), args[0]);
    }

    /**
     * @return group 1 of the first line that matches
     * @throws AssertionError if the output ends, or {@code guardS} pass, before such a line
     */
    String awaitLine(Pattern pattern, long guardS) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(guardS);
        synchronized (lines) {
            for (int seen = 0; ; seen++) {
                while (seen == lines.size()) {
                    long left = deadline - System.nanoTime();
                    if (ended || left <= 0) {
                        throw new AssertionError((ended ? "the output ended" : "nothing within " + guardS + " s")
                                + " matching " + pattern + ": " + String.join("\n", lines));
                    }
                    TimeUnit.NANOSECONDS.timedWait(lines, left);
                }
                Matcher matcher = pattern.matcher(lines.get(seen));
                if (matcher.find()) {
                    return matcher.group(1);
                }
            }
        }
    }

    /**
     * @return its exit value, once it has ended and all its output is read
     * @throws AssertionError if it has not ended within {@code guardS}
     */
    int awaitExit(long guardS) throws InterruptedException {
        if (!process.waitFor(guardS, TimeUnit.SECONDS)) {
            throw new AssertionError("still running after " + guardS + " s: " + output());
        }
        reader.join(TimeUnit.SECONDS.toMillis(guardS));
        return process.exitValue();
    }

    /** @return its process id: the JVM's, as {@code ip netns exec} execs it */
    long pid() {
        return process.pid();
    }

    /** Sends SIGTERM through the handle: {@link Process#destroy} would also close the pipe its last words come on. */
    int terminate(long guardS) throws InterruptedException {
        process.toHandle().destroy();
        return awaitExit(guardS);
    }

    /** @return what it printed so far, lines joined */
    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** Kills it if it still runs: a test that failed half-way leaves no JVM behind. */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor();
            reader.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            synchronized (lines) {
                lines.add("(its output could not be read further: " + e + ")");
            }
        } finally {
            synchronized (lines) {
                ended = true;
                lines.notifyAll();
            }
        }
    }
}
