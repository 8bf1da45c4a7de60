package org.rpcrdma4j.fabric.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.on;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.receives;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;

/**
 * What the transport needs of a fabric at the seam ({@link Fabric}, docs/ARCHITECTURE.md, "The fabric
 * seam"), driven by hand through connections whose listeners write every event down: connect, accept
 * and reject with RFC 8797 private data; messages whole and in order; a message longer than its
 * receive; RDMA Read and Write of registered memory, and the remote access error of each kind of bad
 * segment, which ends its connection only; a close or a broken connection flushing everything posted
 * before each end hears one disconnect; and a fabric closed under load ending every operation once,
 * then holding nothing.
 */
public abstract class SeamConformance {

    private static final ConnectPrivateData CLIENT_DATA = new ConnectPrivateData(false, 2048, 3072);
    private static final ConnectPrivateData SERVER_DATA = new ConnectPrivateData(false, 4096, 1024);
    private static final int RECEIVE_SIZE = 1024;
    private static final int MESSAGES = 32;
    /** Operations of each kind a server has in flight on each connection when its fabric closes. */
    private static final int LOAD = 16;
    private static final int CHUNK = 16 * 1024;
    private static final Set<MemoryAccess> LOCAL_WRITE = EnumSet.of(MemoryAccess.LOCAL_WRITE);
    private static final Set<MemoryAccess> REMOTE_READ = EnumSet.of(MemoryAccess.REMOTE_READ);
    private static final Set<MemoryAccess> REMOTE_WRITE = EnumSet.of(MemoryAccess.REMOTE_WRITE);
    private static final Set<MemoryAccess> NO_ACCESS = EnumSet.noneOf(MemoryAccess.class);

    private FabricFactory factory;
    private Fabric server;
    private Fabric client;
    private int serverReceives;
    private final BlockingQueue<Pair> accepted = new LinkedBlockingQueue<>();

    /** @return a new network of the fabric under test; the kit closes it after each test */
    protected abstract FabricFactory fabrics();

    /**
     * One connection: what the responder's acceptor saw of the request, and both ends with what each
     * heard. The acceptor records it without the requester's end, which {@link #pair} adds.
     *
     * @param peer         the requester's address, as the request named it
     * @param peerData     the private data the request carried
     * @param client       the requester's end; null as the acceptor records it
     * @param clientEvents what the requester's end heard; null as the acceptor records it
     * @param server       the responder's end
     * @param serverEvents what the responder's end heard
     */
    private record Pair(FabricAddress peer, ConnectPrivateData peerData, FabricConnection client,
                        EventRecorder clientEvents, FabricConnection server, EventRecorder serverEvents) {
    }

    @BeforeEach
    final void openFabrics() {
        factory = fabrics();
        server = factory.server();
        client = factory.client();
    }

    @AfterEach
    final void closeFabrics() {
        factory.close();
    }

    /** Accepts every request from now on, posting {@code receives} buffers of {@code size} bytes for each. */
    private void listen(int receives, int size) throws Exception {
        serverReceives = receives;
        run(server, () -> server.listen(request -> {
            EventRecorder events = new EventRecorder();
            FabricConnection connection = request.accept(SERVER_DATA, receives(receives, size), events);
            accepted.add(new Pair(request.peer(), request.privateData(), null, null, connection, events));
        }));
    }

    /** @return the responder's end of the next connection accepted */
    private Pair nextAccepted() throws InterruptedException {
        Pair next = accepted.poll(HangGuard.SECONDS, TimeUnit.SECONDS);
        assertThat(next).as("a connection accepted within the hang guard").isNotNull();
        return next;
    }

    private FabricConnection connect(Fabric from, EventRecorder events, int receives) throws Exception {
        FabricAddress to = server.localAddress();
        return on(from, () -> from.connect(to, CLIENT_DATA, receives(receives, RECEIVE_SIZE), events));
    }

    /** @return a connection from {@code from} to the listening server, up at both ends */
    private Pair pair(Fabric from, int receives) throws Exception {
        EventRecorder clientEvents = new EventRecorder();
        FabricConnection clientSide = connect(from, clientEvents, receives);
        Pair responder = nextAccepted();
        clientEvents.peerData();
        responder.serverEvents().peerData();
        return new Pair(responder.peer(), responder.peerData(), clientSide, clientEvents, responder.server(),
                responder.serverEvents());
    }

    private static void run(Fabric fabric, Runnable action) throws Exception {
        on(fabric, () -> {
            action.run();
            return null;
        });
    }

    private static ByteBuffer message(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** @return a text of {@code length} bytes that starts with its number */
    private static String text(int number, int length) {
        StringBuilder text = new StringBuilder("message " + number + " ");
        while (text.length() < length) {
            text.append((char) ('a' + text.length() % 26));
        }
        return text.substring(0, length);
    }

    private static byte[] filled(int length, int value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) value);
        return bytes;
    }

    /** @return how an end ended: the status of the disconnect its events end with */
    private static FabricStatus ending(List<String> events) {
        String last = events.get(events.size() - 1);
        return FabricStatus.valueOf(last.substring("disconnected ".length()));
    }

    /** @return the events before the disconnect */
    private static List<String> beforeEnd(List<String> events) {
        return events.subList(0, events.size() - 1);
    }

    @Test
    void connectAndAcceptCarryTheirPrivateDataBothWays() throws Exception {
        listen(2, RECEIVE_SIZE);
        Pair pair = pair(client, 2);
        // The remote invalidation flag of a request is the fabric's to set (verbs RC offers it when its
        // chunks go through memory windows); the sizes are the transport's and arrive as sent.
        assertThat(pair.peerData().maxSendSize()).isEqualTo(CLIENT_DATA.maxSendSize());
        assertThat(pair.peerData().maxRecvSize()).isEqualTo(CLIENT_DATA.maxRecvSize());
        assertThat(pair.serverEvents().peerData()).isEqualTo(pair.peerData());
        assertThat(pair.clientEvents().peerData()).isEqualTo(SERVER_DATA);
        assertThat(pair.peer().inetAddress()).isEqualTo(client.localAddress().inetAddress());
        assertThat(server.statistics().connections()).isEqualTo(1);
        assertThat(client.statistics().connections()).isEqualTo(1);
    }

    @Test
    void bothEndsShowTheConnectionsSocketAddressesTheSameForItsLifetime() throws Exception {
        listen(2, RECEIVE_SIZE);
        Pair pair = pair(client, 2);
        InetSocketAddress serverEnd = on(client, pair.client()::remoteSocketAddress);
        InetSocketAddress clientEnd = on(client, pair.client()::localSocketAddress);
        assertThat(serverEnd).isEqualTo(new InetSocketAddress(server.localAddress().inetAddress(),
                server.localAddress().number()));
        assertThat(clientEnd.getAddress()).isEqualTo(client.localAddress().inetAddress());
        assertThat(on(server, pair.server()::localSocketAddress)).isEqualTo(serverEnd);
        assertThat(on(server, pair.server()::remoteSocketAddress)).isEqualTo(clientEnd);
        // The same objects on every call, so that a program resolves a caller's host name once.
        assertThat(on(client, pair.client()::remoteSocketAddress)).isSameAs(serverEnd);
        assertThat(on(client, pair.client()::localSocketAddress)).isSameAs(clientEnd);
        assertThat(on(server, pair.server()::remoteSocketAddress))
                .isSameAs(on(server, pair.server()::remoteSocketAddress));
    }

    @Test
    void aRejectedRequestFlushesTheRequestersReceivesThenEndsRefused() throws Exception {
        run(server, () -> server.listen(Fabric.ConnectRequest::reject));
        EventRecorder events = new EventRecorder();
        connect(client, events, 3);
        assertThat(events.untilDisconnected()).containsExactly("receiveFailed FLUSHED", "receiveFailed FLUSHED",
                "receiveFailed FLUSHED", "disconnected REFUSED");
        assertThat(events.established).isNotDone();
        HangGuard.waitFor(() -> server.statistics().connections() == 0 && client.statistics().connections() == 0);
    }

    @Test
    void aRequestNoOneListensForIsRefused() throws Exception {
        EventRecorder unheard = new EventRecorder();
        connect(client, unheard, 1);
        assertThat(unheard.untilDisconnected()).containsExactly("receiveFailed FLUSHED", "disconnected REFUSED");

        listen(1, RECEIVE_SIZE);
        run(server, server::stopListening);
        EventRecorder stopped = new EventRecorder();
        connect(client, stopped, 1);
        assertThat(stopped.untilDisconnected()).containsExactly("receiveFailed FLUSHED", "disconnected REFUSED");
        assertThat(accepted).isEmpty();
    }

    @Test
    void messagesArriveWholeAndInOrderBothWays() throws Exception {
        listen(MESSAGES, RECEIVE_SIZE);
        Pair pair = pair(client, MESSAGES);
        List<String> calls = new ArrayList<>();
        List<String> replies = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            // From 12 bytes up to the receive's size exactly.
            calls.add(text(i, i == MESSAGES - 1 ? RECEIVE_SIZE : 12 + i * 31));
            replies.add(text(1000 + i, RECEIVE_SIZE - i * 31));
        }
        exchange(client, pair.client(), pair.clientEvents(), calls, pair.serverEvents());
        exchange(server, pair.server(), pair.serverEvents(), replies, pair.clientEvents());
    }

    /** Sends the texts at once; the receiver gets each whole and in order, and each send completes once. */
    private static void exchange(Fabric fabric, FabricConnection from, EventRecorder sender, List<String> texts,
                                 EventRecorder receiver) throws Exception {
        List<Boolean> posted = on(fabric, () -> {
            List<Boolean> sent = new ArrayList<>();
            for (int i = 0; i < texts.size(); i++) {
                sent.add(from.send(message(texts.get(i)), i));
            }
            return sent;
        });
        assertThat(posted).containsOnly(true);
        List<String> completions = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            assertThat(receiver.next()).isEqualTo("received " + texts.get(i));
            completions.add(sender.next());
            expected.add("send " + i + " SUCCESS");
        }
        assertThat(completions).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aMessageLongerThanItsReceiveFailsThatReceive() throws Exception {
        listen(2, 16);
        Pair pair = pair(client, 2);
        run(client, () -> pair.client().send(message("seventeen bytes!!"), 1));
        assertThat(pair.serverEvents().next()).isEqualTo("receiveFailed MESSAGE_TOO_LONG");
        if (factory.messageTooLongEndsConnection()) {
            assertThat(pair.serverEvents().untilDisconnected())
                    .containsExactly("receiveFailed FLUSHED", "disconnected MESSAGE_TOO_LONG");
            List<String> clientEnd = pair.clientEvents().untilDisconnected();
            assertThat(clientEnd).filteredOn(event -> event.startsWith("send 1 ")).hasSize(1);
            assertThat(clientEnd).filteredOn(event -> event.startsWith("receiveFailed ")).hasSize(2);
            assertThat(ending(clientEnd).ok()).isFalse();
        } else {
            assertThat(pair.clientEvents().next()).startsWith("send 1 ");
            run(client, () -> pair.client().send(message("sixteen bytes!!!"), 2));
            assertThat(pair.clientEvents().next()).isEqualTo("send 2 SUCCESS");
            assertThat(pair.serverEvents().next()).isEqualTo("received sixteen bytes!!!");
        }
    }

    /**
     * A requester exposes memory to read and memory to write, registered for its connection as its
     * chunks are, and tells the responder of them with a message, as a call carries its chunks; the
     * responder reads the one and writes the other. What the device or the peer wrote is in each
     * side's buffer once that side deregistered it, or, deregistered with a continuation, once the
     * continuation runs on the progress thread; bytes nobody wrote keep their values.
     */
    @Test
    void rdmaReadAndWriteMoveTheBytesTheirSegmentsName() throws Exception {
        listen(2, RECEIVE_SIZE);
        Pair pair = pair(client, 2);
        byte[] callData = ChunkProgram.pattern(3000);
        // Memory only written is registered from byte 50 on: what lies before it (and after the reply
        // memory's) is never touched; what lies inside and is not written is undefined (Fabric's
        // buffer ownership), so only the written bytes are checked there.
        byte[] replyMemory = filled(2000, 0x11);
        Registration readable = on(client, () -> client.register(pair.client(), ByteBuffer.wrap(callData),
                REMOTE_READ));
        Registration writable = on(client, () -> client.register(pair.client(), ByteBuffer.wrap(replyMemory, 50, 1600),
                REMOTE_WRITE));
        assertThat(client.statistics().registrations()).isEqualTo(2);
        // A fabric may read the caller's bytes up to the message that tells the peer of the handles.
        run(client, () -> pair.client().send(message("the call"), 30));
        assertThat(pair.clientEvents().next()).isEqualTo("send 30 SUCCESS");
        assertThat(pair.serverEvents().next()).isEqualTo("received the call");

        byte[] pulled = filled(3100, 0x22);
        Registration target = on(server, () -> server.register(ByteBuffer.wrap(pulled, 50, 3050), LOCAL_WRITE));
        run(server, () -> pair.server().read(target, 50, readable.segment(0, callData.length), 31));
        assertThat(pair.serverEvents().next()).isEqualTo("rdma 31 SUCCESS");
        CompletableFuture<Boolean> pulledBack = new CompletableFuture<>();
        run(server, () -> server.deregister(target, Long.MAX_VALUE,
                () -> pulledBack.complete(server.onProgressThread())));
        assertThat(pulledBack.get(HangGuard.SECONDS, TimeUnit.SECONDS)).as("the continuation runs on the progress"
                + " thread").isTrue();
        assertThat(Arrays.copyOfRange(pulled, 100, 3100)).isEqualTo(callData);
        assertThat(Arrays.copyOf(pulled, 50)).containsOnly(0x22);

        byte[] result = filled(1500, 0x5a);
        Registration source = on(server, () -> server.register(ByteBuffer.wrap(result), NO_ACCESS));
        run(server, () -> pair.server().write(source, 0, writable.segment(50, result.length), 32));
        assertThat(pair.serverEvents().next()).isEqualTo("rdma 32 SUCCESS");
        // As a reply follows its RDMA Writes: once it is here, so are they.
        run(server, () -> pair.server().send(message("done"), 33));
        assertThat(pair.serverEvents().next()).isEqualTo("send 33 SUCCESS");
        assertThat(pair.clientEvents().next()).isEqualTo("received done");
        run(client, () -> {
            client.deregister(writable);
            client.deregister(readable);
        });
        run(server, () -> server.deregister(source));
        assertThat(Arrays.copyOfRange(replyMemory, 100, 1600)).isEqualTo(result);
        assertThat(Arrays.copyOf(replyMemory, 50)).containsOnly(0x11);
        assertThat(Arrays.copyOfRange(replyMemory, 1650, 2000)).containsOnly(0x11);
        assertThat(client.statistics().registrations()).isZero();
        assertThat(server.statistics().registrations()).isZero();
    }

    @Test
    void anRdmaOfAHandleNeverRegisteredIsARemoteAccessErrorThatEndsOnlyItsConnection() throws Exception {
        listen(2, RECEIVE_SIZE);
        Pair bad = pair(client, 2);
        Pair good = pair(factory.client(), 2);
        assertRemoteAccessError(bad, true, new Segment(0x7eadbeef, 64, 0x1000));
        run(server, () -> good.server().send(message("still here"), 1));
        assertThat(good.clientEvents().next()).isEqualTo("received still here");
    }

    @Test
    void anRdmaBeyondItsRegistrationIsARemoteAccessError() throws Exception {
        listen(2, RECEIVE_SIZE);
        Pair pair = pair(client, 2);
        Registration readable = on(client, () -> client.register(pair.client(), ByteBuffer.allocate(64), REMOTE_READ));
        assertRemoteAccessError(pair, true, new Segment(readable.handle(), 65, readable.address()));
        run(client, () -> client.deregister(readable));
    }

    @Test
    void anRdmaItsRegistrationDoesNotAllowIsARemoteAccessError() throws Exception {
        listen(2, RECEIVE_SIZE);
        Pair pair = pair(client, 2);
        Registration readOnly = on(client, () -> client.register(pair.client(), ByteBuffer.allocate(64), REMOTE_READ));
        assertRemoteAccessError(pair, false, readOnly.segment(0, 64));
        run(client, () -> client.deregister(readOnly));
    }

    @Test
    void anRdmaOfADeregisteredHandleIsARemoteAccessError() throws Exception {
        listen(2, RECEIVE_SIZE);
        Pair pair = pair(client, 2);
        Registration gone = on(client, () -> client.register(pair.client(), ByteBuffer.allocate(64), REMOTE_WRITE));
        run(client, () -> client.deregister(gone));
        assertRemoteAccessError(pair, false, gone.segment(0, 64));
    }

    /**
     * The responder's RDMA of {@code remote} fails with a remote access error, which ends its
     * connection as svcrdma and xprtrdma end it: the responder hears the failure, then its receives
     * flushed, then one disconnect that names it; the requester hears its receives flushed, then one
     * disconnect.
     */
    private void assertRemoteAccessError(Pair pair, boolean read, Segment remote) throws Exception {
        Registration local = on(server, () -> server.register(ByteBuffer.allocate(remote.length()),
                read ? LOCAL_WRITE : NO_ACCESS));
        run(server, () -> {
            if (read) {
                pair.server().read(local, 0, remote, 9);
            } else {
                pair.server().write(local, 0, remote, 9);
            }
        });
        List<String> end = pair.serverEvents().untilDisconnected();
        assertThat(end).first().isEqualTo("rdma 9 REMOTE_ACCESS");
        assertThat(end.subList(1, end.size() - 1)).hasSize(serverReceives).containsOnly("receiveFailed FLUSHED");
        assertThat(ending(end)).isEqualTo(FabricStatus.REMOTE_ACCESS);
        List<String> peerEnd = pair.clientEvents().untilDisconnected();
        assertThat(beforeEnd(peerEnd)).containsOnly("receiveFailed FLUSHED");
        assertThat(ending(peerEnd).ok()).isFalse();
        run(server, () -> server.deregister(local));
    }

    @Test
    void closingFlushesEverythingPostedThenEachEndHearsOneDisconnect() throws Exception {
        listen(5, RECEIVE_SIZE);
        Pair pair = pair(client, 6);
        run(server, () -> {
            pair.server().close();
            pair.server().close();
        });
        assertThat(pair.serverEvents().untilDisconnected())
                .containsExactlyElementsOf(flushedThen(5, "disconnected CLOSED"));
        assertThat(pair.clientEvents().untilDisconnected())
                .containsExactlyElementsOf(flushedThen(6, "disconnected CLOSED"));
        assertThat(on(client, () -> pair.client().postReceive(ByteBuffer.allocate(64))))
                .as("a closed connection takes no receive").isFalse();
        // Whatever either progress thread had queued has run by now: nothing follows a disconnect.
        run(client, () -> { });
        run(server, () -> { });
        assertThat(pair.serverEvents().rest()).isEmpty();
        assertThat(pair.clientEvents().rest()).isEmpty();
        HangGuard.waitFor(() -> server.statistics().connections() == 0 && client.statistics().connections() == 0);
    }

    private static List<String> flushedThen(int receives, String end) {
        List<String> events = new ArrayList<>(Collections.nCopies(receives, "receiveFailed FLUSHED"));
        events.add(end);
        return events;
    }

    @Test
    void aBrokenConnectionFlushesThenEachEndHearsOneDisconnectAndTheFabricConnectsAgain() throws Exception {
        listen(3, RECEIVE_SIZE);
        Pair pair = pair(client, 4);
        factory.breakConnections(client);
        List<String> end = pair.clientEvents().untilDisconnected();
        assertThat(beforeEnd(end)).hasSize(4).containsOnly("receiveFailed FLUSHED");
        assertThat(ending(end)).as("a failure, not an orderly close").isNotIn(FabricStatus.SUCCESS, FabricStatus.CLOSED);
        List<String> peerEnd = pair.serverEvents().untilDisconnected();
        assertThat(beforeEnd(peerEnd)).hasSize(3).containsOnly("receiveFailed FLUSHED");
        assertThat(ending(peerEnd).ok()).isFalse();
        HangGuard.waitFor(() -> server.statistics().connections() == 0 && client.statistics().connections() == 0);

        Pair again = pair(client, 1);
        run(client, () -> again.client().send(message("again"), 1));
        assertThat(again.serverEvents().next()).isEqualTo("received again");
    }

    /**
     * A responder's fabric closes with Sends, RDMA Reads and RDMA Writes in flight on two connections,
     * and registrations its user never deregistered: every operation ends once (done or flushed) before
     * each end hears one disconnect, and the closed fabric holds nothing. The requesters' fabrics, once
     * their chunks are deregistered and they are closed too, hold nothing either.
     */
    @Test
    void closingAFabricUnderLoadEndsEveryOperationOnceThenHoldsNothing() throws Exception {
        listen(2, RECEIVE_SIZE);
        Fabric second = factory.client();
        List<Pair> pairs = List.of(pair(client, LOAD), pair(second, LOAD));
        List<Fabric> requesters = List.of(client, second);
        List<Registration> chunks = new ArrayList<>();
        for (int i = 0; i < pairs.size(); i++) {
            Fabric fabric = requesters.get(i);
            FabricConnection connection = pairs.get(i).client();
            chunks.add(on(fabric, () -> fabric.register(connection, ByteBuffer.wrap(ChunkProgram.pattern(LOAD * CHUNK)),
                    REMOTE_READ)));
            chunks.add(on(fabric, () -> fabric.register(connection, ByteBuffer.allocate(LOAD * CHUNK), REMOTE_WRITE)));
        }
        run(server, () -> {
            for (int i = 0; i < pairs.size(); i++) {
                FabricConnection connection = pairs.get(i).server();
                Registration target = server.register(ByteBuffer.allocate(LOAD * CHUNK), LOCAL_WRITE);
                Registration source = server.register(ByteBuffer.wrap(ChunkProgram.pattern(LOAD * CHUNK)), NO_ACCESS);
                for (int k = 0; k < LOAD; k++) {
                    connection.read(target, (long) k * CHUNK, chunks.get(2 * i).segment((long) k * CHUNK, CHUNK), k);
                    connection.write(source, (long) k * CHUNK, chunks.get(2 * i + 1).segment((long) k * CHUNK, CHUNK),
                            LOAD + k);
                    connection.send(message(text(k, 64)), 2 * LOAD + k);
                }
            }
        });
        factory.close(server);

        for (Pair pair : pairs) {
            List<String> end = pair.serverEvents().untilDisconnected();
            assertThat(ending(end)).isEqualTo(FabricStatus.CLOSED);
            List<String> operations = new ArrayList<>();
            for (String event : beforeEnd(end)) {
                if (event.startsWith("receiveFailed ")) {
                    assertThat(event).isEqualTo("receiveFailed FLUSHED");
                    continue;
                }
                String[] words = event.split(" ");
                assertThat(words[2]).as(event).isIn("SUCCESS", "FLUSHED");
                operations.add(words[0] + " " + words[1]);
            }
            List<String> expected = new ArrayList<>();
            for (int k = 0; k < LOAD; k++) {
                expected.addAll(List.of("rdma " + k, "rdma " + (LOAD + k), "send " + (2 * LOAD + k)));
            }
            assertThat(operations).as("every operation once").containsExactlyInAnyOrderElementsOf(expected);
            assertThat(pair.serverEvents().rest()).isEmpty();
            List<String> peerEnd = pair.clientEvents().untilDisconnected();
            assertThat(ending(peerEnd)).isEqualTo(FabricStatus.CLOSED);
            assertThat(beforeEnd(peerEnd)).hasSize(LOAD)
                    .allMatch(event -> event.startsWith("received message ") || event.equals("receiveFailed FLUSHED"));
        }
        Leaks.assertNoneIn(server);

        for (int i = 0; i < pairs.size(); i++) {
            Fabric fabric = requesters.get(i);
            Registration readable = chunks.get(2 * i);
            Registration writable = chunks.get(2 * i + 1);
            run(fabric, () -> {
                fabric.deregister(readable);
                fabric.deregister(writable);
            });
            HangGuard.waitFor(() -> fabric.statistics().connections() == 0);
            assertThat(fabric.statistics().registrations()).isZero();
            factory.close(fabric);
            Leaks.assertNoneIn(fabric);
        }
    }
}
