package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.time.Duration;

/**
 * The line channel between a bench and its peer: a second process it started ({@link PeerProcess}) or a peer
 * on another host that it reached over TCP ({@link PeerConnection}). The bench writes a command, the peer
 * answers with a line.
 */
public interface PeerLink extends AutoCloseable {

    /**
     * Sends one command.
     *
     * @param line the command
     * @throws IOException if the peer no longer reads
     */
    void send(String line) throws IOException;

    /**
     * Takes the peer's next line if it has come, for a thread that has other work while it waits.
     *
     * @return the line, or {@code null} if none has come yet
     * @throws IOException if the peer's output has ended
     */
    String poll() throws IOException;

    /**
     * Waits for the peer's next line, which must start with {@code word} and a space.
     *
     * @param word  what the line starts with
     * @param limit how long to wait
     * @return the rest of the line
     * @throws IOException if the peer says anything else, ends, or says nothing within the limit
     */
    String expect(String word, Duration limit) throws IOException, InterruptedException;

    /** Ends the peer's input, the sign for it to stop. */
    @Override
    void close();
}
