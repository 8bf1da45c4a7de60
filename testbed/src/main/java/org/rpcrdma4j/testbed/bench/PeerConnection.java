package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A bench's peer on another host, started there by hand ({@code testbed bench efa-peer --control PORT}), reached
 * over a TCP connection that carries the same lines as a peer process's standard input and output. Closing the
 * connection ends the peer's input; the peer then closes its endpoint and exits.
 */
public final class PeerConnection implements PeerLink {

    private final Socket socket;
    private final PrintWriter commands;
    private final PeerLines answers;

    private PeerConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.commands = new PrintWriter(new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8));
        this.answers = new PeerLines(socket.getInputStream(), "the peer at " + socket.getRemoteSocketAddress(),
                () -> "its connection ended");
    }

    /**
     * Connects to a peer's control port.
     *
     * @param control where the peer listens for its bench
     * @param limit   how long to try
     * @return the link
     * @throws IOException if no connection is made within the limit
     */
    public static PeerConnection connect(InetSocketAddress control, Duration limit) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(control, (int) Math.min(Integer.MAX_VALUE, limit.toMillis()));
            return new PeerConnection(socket);
        } catch (IOException e) {
            socket.close();
            throw new IOException("no bench peer answers at " + control.getHostString() + ":" + control.getPort()
                    + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void send(String line) throws IOException {
        commands.println(line);
        commands.flush();
        if (commands.checkError()) {
            throw new IOException("the peer at " + socket.getRemoteSocketAddress() + " no longer reads");
        }
    }

    @Override
    public String poll() throws IOException {
        return answers.poll();
    }

    @Override
    public String expect(String word, Duration limit) throws IOException, InterruptedException {
        return answers.expect(word, limit);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closed either way
        }
    }
}
