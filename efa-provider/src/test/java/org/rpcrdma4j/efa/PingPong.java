package org.rpcrdma4j.efa;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;

/**
 * A well-behaved client beside whatever a test does: it calls a server with a small tagged
 * request, one at a time, and the server answers each; {@link #roundTrips()} counts the answers
 * the client received. Runs on {@link SimNet}'s per-step hook and handles only its own completions
 * (contexts from {@link #CONTEXT_BASE} up), leaving the rest to the test.
 */
final class PingPong {

    /** The tag of requests and answers. */
    static final long TAG = 0x600D;
    static final long CONTEXT_BASE = 1L << 40;
    private static final int SERVER_RECEIVES = 4;

    private final EfaEndpoint server;
    private final EfaEndpoint client;
    private final long toServer;
    private final List<CompletionEntry> serverDone;
    private final List<CompletionEntry> clientDone;
    private long roundTrips;
    private boolean running = true;
    private boolean outstanding;

    PingPong(SimNet net, EfaEndpoint server, EfaEndpoint client) {
        this.server = server;
        this.client = client;
        this.toServer = client.insert(server.address());
        this.serverDone = net.done(server);
        this.clientDone = net.done(client);
        for (int i = 0; i < SERVER_RECEIVES; i++) {
            server.recvTagged(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(64), TAG, 0, CONTEXT_BASE);
        }
        net.everyStep(this::onStep);
        call();
    }

    long roundTrips() {
        return roundTrips;
    }

    /** Stops calling after the call in progress. */
    void stop() {
        running = false;
    }

    /** Calls again after {@link #stop()}. */
    void restart() {
        running = true;
        call();
    }

    /** @return whether a call is in progress */
    boolean outstanding() {
        return outstanding;
    }

    private void call() {
        client.recvTagged(toServer, ByteBuffer.allocate(64), TAG, 0, CONTEXT_BASE);
        client.sendTagged(toServer, ByteBuffer.allocate(48), TAG, CONTEXT_BASE);
        outstanding = true;
    }

    private void onStep() {
        for (Iterator<CompletionEntry> it = serverDone.iterator(); it.hasNext(); ) {
            final CompletionEntry entry = it.next();
            if (entry.context() != CONTEXT_BASE) {
                continue;
            }
            it.remove();
            if (!entry.ok()) {
                throw new AssertionError("the good peer's operation failed at the server: " + entry);
            }
            if (entry.kind() == CompletionEntry.Kind.TAGGED_RECV) {
                server.recvTagged(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(64), TAG, 0, CONTEXT_BASE);
                server.sendTagged(entry.source(), ByteBuffer.allocate(16), TAG, CONTEXT_BASE);
            }
        }
        for (Iterator<CompletionEntry> it = clientDone.iterator(); it.hasNext(); ) {
            final CompletionEntry entry = it.next();
            if (entry.context() != CONTEXT_BASE) {
                continue;
            }
            it.remove();
            if (!entry.ok()) {
                throw new AssertionError("the good peer's operation failed at the client: " + entry);
            }
            if (entry.kind() == CompletionEntry.Kind.TAGGED_RECV) {
                roundTrips++;
                outstanding = false;
                if (running) {
                    call();
                }
            }
        }
    }
}
