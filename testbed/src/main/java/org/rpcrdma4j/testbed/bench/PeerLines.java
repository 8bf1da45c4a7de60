package org.rpcrdma4j.testbed.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A peer's answers, one line each, read from its output by a thread of their own as they come, so that the
 * bench can wait for one or take one only if it has come.
 */
final class PeerLines {

    /** What the reader queues once the output has ended: compared by identity, no line can be it. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String ENDED = new String("(ended)");

    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final String peer;
    private final Supplier<String> why;

    /**
     * Starts reading.
     *
     * @param output what the peer writes
     * @param peer   the peer, as errors name it ("the peer process")
     * @param why    what is known of its end, for errors ("exit value 1")
     */
    PeerLines(InputStream output, String peer, Supplier<String> why) {
        this.peer = peer;
        this.why = why;
        Thread reader = new Thread(() -> read(output), "bench-peer-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param limit how long to wait
     * @return the peer's next line
     * @throws IOException if its output ends or nothing comes within the limit
     */
    String next(Duration limit) throws IOException, InterruptedException {
        String line = lines.poll(limit.toNanos(), TimeUnit.NANOSECONDS);
        if (line == null) {
            throw new IOException(peer + " said nothing within " + limit.toSeconds() + " s");
        }
        return checked(line);
    }

    /** See {@link PeerLink#poll()}. */
    String poll() throws IOException {
        String line = lines.poll();
        return line == null ? null : checked(line);
    }

    /** See {@link PeerLink#expect}. */
    String expect(String word, Duration limit) throws IOException, InterruptedException {
        String line = next(limit);
        if (!line.startsWith(word + " ") && !line.equals(word)) {
            throw new IOException(peer + " said '" + line + "' where '" + word + "' was due");
        }
        return line.substring(Math.min(line.length(), word.length() + 1));
    }

    private String checked(String line) throws IOException {
        if (line == ENDED) {
            lines.add(ENDED);
            throw new IOException(peer + " ended (" + why.get() + ")");
        }
        return line;
    }

    private void read(InputStream output) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(output, StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                lines.add(line);
            }
        } catch (IOException e) {
            // the pipe or connection broke: the same as its end
        } finally {
            lines.add(ENDED);
        }
    }
}
