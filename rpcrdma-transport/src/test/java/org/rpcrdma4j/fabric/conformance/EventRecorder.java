package org.rpcrdma4j.fabric.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * A {@link ConnectionListener} that writes one connection's events down as text, in the order the
 * fabric reported them ({@code "received <text>"}, {@code "receiveFailed FLUSHED"},
 * {@code "send 7 SUCCESS"}, {@code "rdma 5 REMOTE_ACCESS"}, {@code "disconnected CLOSED"}), and
 * whatever the seam forbids (an event before the connection was up, a second disconnect) as an
 * event of its own, so that a test's expected list shows it.
 */
public final class EventRecorder implements ConnectionListener {

    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    /** The peer's private data, once established. */
    public final CompletableFuture<ConnectPrivateData> established = new CompletableFuture<>();
    private boolean disconnected;

    /** @return the next event, failing the test if none comes within the hang guard */
    public String next() throws InterruptedException {
        String event = events.poll(HangGuard.SECONDS, TimeUnit.SECONDS);
        assertThat(event).as("an event within the hang guard").isNotNull();
        return event;
    }

    /** @return the next events, up to and including the disconnect */
    public List<String> untilDisconnected() throws InterruptedException {
        List<String> seen = new ArrayList<>();
        String event;
        do {
            event = next();
            seen.add(event);
        } while (!event.startsWith("disconnected"));
        return seen;
    }

    /** @return the events not taken yet */
    public List<String> rest() {
        List<String> rest = new ArrayList<>();
        events.drainTo(rest);
        return rest;
    }

    /** @return the peer's private data, failing the test if the connection is not up within the hang guard */
    public ConnectPrivateData peerData() throws Exception {
        return established.get(HangGuard.SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public void onEstablished(ConnectPrivateData peerData) {
        if (!established.complete(peerData)) {
            events.add("established again");
        }
    }

    @Override
    public void onReceived(ByteBuffer buffer, int length) {
        if (!established.isDone()) {
            events.add("received before established");
        }
        byte[] bytes = new byte[length];
        buffer.duplicate().get(bytes);
        events.add("received " + new String(bytes, StandardCharsets.ISO_8859_1));
    }

    @Override
    public void onReceiveFailed(ByteBuffer buffer, FabricStatus status) {
        events.add("receiveFailed " + status);
    }

    @Override
    public void onSendCompleted(long context, FabricStatus status) {
        events.add("send " + context + " " + status);
    }

    @Override
    public void onRdmaCompleted(long context, FabricStatus status) {
        events.add("rdma " + context + " " + status);
    }

    @Override
    public void onDisconnected(FabricStatus status, String detail) {
        events.add(disconnected ? "disconnected twice" : "disconnected " + status);
        disconnected = true;
    }
}
