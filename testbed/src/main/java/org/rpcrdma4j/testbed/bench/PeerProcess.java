package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The second process of a bench between two processes: another JVM of this testbed, started with this
 * JVM's {@code java}, class path and the options that shape both alike (heap, native access), running a
 * hidden peer command. The bench talks to it in lines: it writes commands to the peer's standard input and
 * reads the peer's answers from its standard output, one line each; the peer's errors and logging go to this
 * process's standard error.
 *
 * <p>The peer ends when its input ends. {@link #close} ends its input, then kills it if it has not exited
 * within a few seconds, and a shutdown hook kills it if this JVM exits first: no run leaves a JVM behind.
 */
public final class PeerProcess implements PeerLink {

    private static final long EXIT_GRACE_S = 10;

    private final Process process;
    private final PrintWriter commands;
    private final PeerLines answers;
    private final Thread hook;

    private PeerProcess(Process process) {
        this.process = process;
        this.commands = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        this.answers = new PeerLines(process.getInputStream(), "the peer process", this::exitText);
        hook = new Thread(process::destroyForcibly, "bench-peer-kill");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Starts {@code testbed ARGS} in a JVM of its own.
     *
     * @param args the hidden peer command and its options
     * @return the peer, started
     * @throws IOException if the JVM cannot be started
     */
    public static PeerProcess start(List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // Both JVMs alike where it shapes what is measured; no agents or debug ports, which would clash.
            if (option.startsWith("-Xmx") || option.startsWith("-Xms") || option.startsWith("-XX:")
                    || option.startsWith("--enable-native-access")) {
                command.add(option);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.rpcrdma4j.testbed.Main"));
        command.addAll(args);
        return new PeerProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    @Override
    public void send(String line) throws IOException {
        commands.println(line);
        commands.flush();
        if (commands.checkError()) {
            throw new IOException("the peer process no longer reads its commands (" + exitText() + ")");
        }
    }

    /**
     * Waits for the peer's next line.
     *
     * @param limit how long to wait
     * @return the line
     * @throws IOException if the peer's output ends or nothing comes within the limit
     */
    public String next(Duration limit) throws IOException, InterruptedException {
        return answers.next(limit);
    }

    @Override
    public String poll() throws IOException {
        return answers.poll();
    }

    @Override
    public String expect(String word, Duration limit) throws IOException, InterruptedException {
        return answers.expect(word, limit);
    }

    private String exitText() {
        try {
            if (process.waitFor(1, TimeUnit.SECONDS)) {
                return "exit value " + process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "still running";
    }

    /** Ends the peer's input, the sign for it to stop, and waits for it to exit; kills it if it does not. */
    @Override
    public void close() {
        commands.close();
        try {
            if (!process.waitFor(EXIT_GRACE_S, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(EXIT_GRACE_S, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // this JVM is exiting: the hook runs anyway
            }
        }
    }
}
