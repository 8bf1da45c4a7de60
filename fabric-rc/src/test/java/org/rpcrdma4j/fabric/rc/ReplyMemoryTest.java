package org.rpcrdma4j.fabric.rc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.marshal.ChunkBufferPool;
import org.rpcrdma4j.transport.oncrpc.ClientInternals;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The client's reply memory (Write and Reply chunks) comes from a pool and goes back once the reply
 * is decoded, end to end over the RC fabric on a simulated network (which copies each chunk into a
 * window pool block at registration and back at deregistration): a short READ into a large Write chunk
 * reuses one buffer call after call; a buffer is never lent again while a call, or the reader of its
 * reply, still has it; a view the caller keeps is never overwritten; a lost connection gives the memory
 * back only after deregistering it.
 */
class ReplyMemoryTest {

    private static final long HANG_GUARD_S = 30;
    private static final int MIB = 1 << 20;
    private static final int KIB64 = 64 << 10;

    private final SimulatedHosts hosts = new SimulatedHosts();
    private final RcFabric serverFabric = hosts.open(RcFabric.NFS_RDMA_PORT);
    private final RcFabric clientFabric = hosts.open(0);
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final ReadProgram program = new ReadProgram();
    private final RegistrationWatch watch = new RegistrationWatch(clientFabric);
    private RdmaRpcSvc svc;
    private RdmaRpcClient client;

    private void serveAndConnect(ReconnectPolicy reconnect) throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(workers).withRpcService(ReadProgram.PROGRAM, program)
                .withDdpPolicy(ReadProgram.POLICY).build();
        svc.start();
        client = RdmaRpcClient.builder(watch, serverFabric.localAddress()).withDdpPolicy(ReadProgram.POLICY)
                .withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S)).withReconnectPolicy(reconnect).connect();
    }

    @AfterEach
    void nothingLeaks() throws Exception {
        try {
            program.gate.countDown();
            if (client != null) {
                HangGuard.waitFor(() -> client.statistics().callsInProgress() == 0
                        && client.statistics().chunkRegistrations() == 0
                        && clientFabric.statistics().registrations() == 0);
            }
            assertThat(watch.violations).as("buffers registered while registered already").isEmpty();
        } finally {
            try {
                if (client != null) {
                    client.close();
                }
                if (svc != null) {
                    svc.stop();
                }
            } finally {
                hosts.close();
                workers.shutdownNow();
            }
        }
    }

    private ChunkBufferPool pool() {
        return ClientInternals.chunkBufferPool(client);
    }

    private RpcCall rpc() {
        return new RpcCall(ReadProgram.PROGRAM.getNumber(), ReadProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport());
    }

    private <T extends XdrAble> T read(int count, int length, int salt, T result) throws Exception {
        rpc().call(ReadProgram.READ, new Args(count, length, salt), result, HANG_GUARD_S, TimeUnit.SECONDS);
        return result;
    }

    @Test
    void sequentialShortReadsIntoALargeWriteChunkReuseOneBuffer() throws Exception {
        serveAndConnect(ReconnectPolicy.NEVER);

        for (int salt = 1; salt <= 3; salt++) {
            Copied result = read(MIB, KIB64, salt, new Copied());
            assertThat(result.data).isEqualTo(ReadProgram.data(KIB64, salt));
            assertThat(pool().idleBuffers()).as("back once decoded").isEqualTo(1);
        }

        assertThat(pool().allocated()).isEqualTo(1);
        assertThat(pool().reused()).isEqualTo(2);
        assertThat(watch.replyBuffers()).as("one 1 MiB buffer behind every Write chunk").hasSize(1);
    }

    @Test
    void aShortViewTheCallerKeepsIsACopyAndSurvivesTheNextCall() throws Exception {
        serveAndConnect(ReconnectPolicy.NEVER);

        Viewed first = read(MIB, KIB64, 1, new Viewed());
        Viewed second = read(MIB, KIB64, 2, new Viewed());

        assertThat(bytes(first.data)).isEqualTo(ReadProgram.data(KIB64, 1));
        assertThat(bytes(second.data)).isEqualTo(ReadProgram.data(KIB64, 2));
        assertThat(pool().reused()).isEqualTo(1);
        assertThat(pool().copiedOutBytes()).isEqualTo(2L * KIB64);
        assertThat(client.statistics().bytesCopied()).as("the copy is counted")
                .isGreaterThanOrEqualTo(2L * KIB64);
    }

    @Test
    void aViewOfMostOfTheBufferIsTheCallersForGood() throws Exception {
        serveAndConnect(ReconnectPolicy.NEVER);

        Viewed first = read(MIB, MIB, 1, new Viewed());
        Viewed second = read(MIB, MIB, 2, new Viewed());

        assertThat(bytes(first.data)).as("never overwritten by the next call").isEqualTo(ReadProgram.data(MIB, 1));
        assertThat(bytes(second.data)).isEqualTo(ReadProgram.data(MIB, 2));
        assertThat(pool().handedOver()).isEqualTo(2);
        assertThat(pool().reused()).isZero();
        assertThat(pool().idleBuffers()).isZero();
        assertThat(pool().copiedOutBytes()).as("no copy of a full read").isZero();
    }

    @Test
    void aBufferIsNotLentAgainWhileItsCallIsOutstanding() throws Exception {
        serveAndConnect(ReconnectPolicy.NEVER);
        read(MIB, 16, 0, new Copied());
        program.gate = new CountDownLatch(1);

        CompletableFuture<Copied> first = readAsync(MIB, KIB64, 1);
        CompletableFuture<Copied> second = readAsync(MIB, KIB64, 2);
        HangGuard.waitFor(() -> program.dispatched.size() == 3);

        assertThat(pool().idleBuffers()).isZero();
        assertThat(pool().allocated()).as("one buffer each").isEqualTo(2);
        program.gate.countDown();
        assertThat(first.get(HANG_GUARD_S, TimeUnit.SECONDS).data).isEqualTo(ReadProgram.data(KIB64, 1));
        assertThat(second.get(HANG_GUARD_S, TimeUnit.SECONDS).data).isEqualTo(ReadProgram.data(KIB64, 2));
        HangGuard.waitFor(() -> pool().idleBuffers() == 2);
    }

    @Test
    void aReplyNotYetDecodedKeepsItsBuffer() throws Exception {
        serveAndConnect(ReconnectPolicy.NEVER);
        CompletableFuture<RpcReply> kept = new CompletableFuture<>();

        // The handler keeps the reply and decodes it later, as oncrpc4j lets it.
        rpc().call(ReadProgram.READ, new Args(MIB, KIB64, 1), new CompletionHandler<RpcReply, RpcTransport>() {
            @Override
            public void completed(RpcReply reply, RpcTransport transport) {
                kept.complete(reply);
            }

            @Override
            public void failed(Throwable error, RpcTransport transport) {
                kept.completeExceptionally(error);
            }
        }, HANG_GUARD_S, TimeUnit.SECONDS);
        RpcReply reply = kept.get(HANG_GUARD_S, TimeUnit.SECONDS);

        assertThat(pool().idleBuffers()).isZero();
        assertThat(read(MIB, KIB64, 2, new Copied()).data).isEqualTo(ReadProgram.data(KIB64, 2));
        assertThat(pool().allocated()).as("the kept reply's buffer was not lent").isEqualTo(2);

        Copied late = new Copied();
        reply.getReplyResult(late);
        assertThat(late.data).isEqualTo(ReadProgram.data(KIB64, 1));
        assertThat(pool().idleBuffers()).isEqualTo(2);
    }

    @Test
    void aReplyChunkGoesBackToo() throws Exception {
        serveAndConnect(ReconnectPolicy.NEVER);

        for (int salt = 1; salt <= 3; salt++) {
            assertThat(rpcList(20_000, salt)).isEqualTo(ReadProgram.data(20_000, salt));
        }

        assertThat(pool().allocated()).isEqualTo(1);
        assertThat(pool().reused()).isEqualTo(2);
    }

    @Test
    void aLostConnectionGivesTheBufferBackOnlyOnceDeregistered() throws Exception {
        serveAndConnect(ReconnectPolicy.NEVER);
        read(MIB, 16, 0, new Copied());
        program.gate = new CountDownLatch(1);
        CompletableFuture<Copied> held = readAsync(MIB, KIB64, 1);
        HangGuard.waitFor(() -> program.dispatched.size() == 2);
        watch.onDeregister = buffer -> watch.idleAtDeregister.add(pool().idleBuffers());

        hosts.breakConnections(serverFabric);

        assertThat(held).failsWithin(HANG_GUARD_S, TimeUnit.SECONDS);
        HangGuard.waitFor(() -> pool().idleBuffers() == 1);
        assertThat(watch.idleAtDeregister).as("nothing idle while the buffer was still registered")
                .containsExactly(0);
        assertThat(watch.live).isEmpty();
        assertThat(pool().reused()).isEqualTo(1);
    }

    private byte[] rpcList(int length, int salt) throws Exception {
        Copied result = new Copied();
        rpc().call(ReadProgram.LIST, new Args(length, length, salt), result, HANG_GUARD_S, TimeUnit.SECONDS);
        return result.data;
    }

    private CompletableFuture<Copied> readAsync(int count, int length, int salt) throws IOException {
        CompletableFuture<Copied> done = new CompletableFuture<>();
        Copied result = new Copied();
        rpc().call(ReadProgram.READ, new Args(count, length, salt), new CompletionHandler<RpcReply, RpcTransport>() {
            @Override
            public void completed(RpcReply reply, RpcTransport transport) {
                try {
                    reply.getReplyResult(result);
                    done.complete(result);
                } catch (IOException e) {
                    done.completeExceptionally(e);
                }
            }

            @Override
            public void failed(Throwable error, RpcTransport transport) {
                done.completeExceptionally(error);
            }
        }, HANG_GUARD_S, TimeUnit.SECONDS);
        return done;
    }

    private static byte[] bytes(ByteBuffer data) {
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        return bytes;
    }

    /** READ's and LIST's arguments: the count asked for, the bytes answered, and what they are made of. */
    private record Args(int count, int length, int salt) implements XdrAble {

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(count);
            xdr.xdrEncodeInt(length);
            xdr.xdrEncodeInt(salt);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            throw new UnsupportedOperationException("encoded only");
        }
    }

    /** A status, then the data, copied by oncrpc4j as it decodes ({@code xdrDecodeDynamicOpaque}). */
    static final class Copied implements XdrAble {
        int status;
        byte[] data;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            status = xdr.xdrDecodeInt();
            data = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            xdr.xdrEncodeInt(status);
            xdr.xdrEncodeDynamicOpaque(data);
        }
    }

    /** A status, then the data as a view of the reply ({@code xdrDecodeByteBuffer}), as nfs4j's READ decodes it. */
    static final class Viewed implements XdrAble {
        ByteBuffer data;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            xdr.xdrDecodeInt();
            data = xdr.xdrDecodeByteBuffer();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException("decoded only");
        }
    }

    /**
     * READ(count, length, salt): {@code length} bytes of at most {@code count}, a DDP result with a
     * Write chunk of {@code count}, as NFS READ; LIST: the same bytes as a long non-DDP result (Reply
     * chunk). Each procedure waits for the gate.
     */
    static final class ReadProgram implements RpcDispatchable {

        static final OncRpcProgram PROGRAM = new OncRpcProgram(0x2000_0128, 1);
        static final int READ = 1;
        static final int LIST = 2;

        volatile CountDownLatch gate = new CountDownLatch(0);
        final List<Integer> dispatched = Collections.synchronizedList(new ArrayList<>());

        static byte[] data(int length, int salt) {
            byte[] data = new byte[length];
            for (int i = 0; i < length; i++) {
                data[i] = (byte) (i * 31 + salt);
            }
            return data;
        }

        @Override
        public void dispatchOncRpcCall(RpcCall call) throws IOException {
            dispatched.add(call.getXid());
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int[] args = new int[3];
            call.retrieveCall(new XdrAble() {
                @Override
                public void xdrDecode(XdrDecodingStream xdr) throws IOException {
                    for (int i = 0; i < args.length; i++) {
                        args[i] = xdr.xdrDecodeInt();
                    }
                }

                @Override
                public void xdrEncode(XdrEncodingStream xdr) {
                    throw new UnsupportedOperationException("decoded only");
                }
            });
            Copied result = new Copied();
            result.data = data(args[1], args[2]);
            call.reply(result);
        }

        static final DdpPolicy POLICY = DdpPolicy.forProgram(PROGRAM.getNumber(), PROGRAM.getVersion(), new Policy());

        /** READ's data is DDP-eligible with a Write chunk of the count asked; LIST's reply is bounded by it. */
        private static final class Policy implements DdpPolicy {

            @Override
            public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
                return List.of();
            }

            @Override
            public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
                int count = call.bytes().getInt(call.bodyOffset());
                return procedure.procedure() == READ
                        ? new ReplySize(64 + RoundUp.roundUp(count), List.of((long) count))
                        : new ReplySize(64 + count, List.of());
            }

            @Override
            public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
                int body = reply.bodyOffset();
                return procedure.procedure() == READ && body + 8 <= reply.bytes().length()
                        ? List.of(new XdrItem(body + 8, reply.bytes().getInt(body + 4))) : List.of();
            }
        }
    }

    /**
     * The client's fabric, watching its registrations: a buffer registered while it is registered
     * already (a pooled buffer lent again too soon) is a violation.
     */
    private static final class RegistrationWatch implements Fabric {

        private final Fabric fabric;
        /** The backing array of every registration live now, by registration. */
        final Map<Registration, byte[]> live = Collections.synchronizedMap(new IdentityHashMap<>());
        final Set<byte[]> everRegistered =
                Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        final List<String> violations = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> idleAtDeregister = Collections.synchronizedList(new ArrayList<>());
        volatile Consumer<byte[]> onDeregister = buffer -> { };

        RegistrationWatch(Fabric fabric) {
            this.fabric = fabric;
        }

        /** @return the distinct arrays registered for replies (heap memory the client registered) */
        Set<byte[]> replyBuffers() {
            return everRegistered;
        }

        @Override
        public Registration register(FabricConnection on, ByteBuffer memory, Set<MemoryAccess> access) {
            return watch(memory, access, fabric.register(on, memory, access));
        }

        @Override
        public Registration register(ByteBuffer memory, Set<MemoryAccess> access) {
            return watch(memory, access, fabric.register(memory, access));
        }

        private Registration watch(ByteBuffer memory, Set<MemoryAccess> access, Registration registration) {
            if (registration != null && memory.hasArray() && access.contains(MemoryAccess.REMOTE_WRITE)) {
                if (live.containsValue(memory.array())) {
                    violations.add("registered again while registered: " + memory);
                }
                live.put(registration, memory.array());
                everRegistered.add(memory.array());
            }
            return registration;
        }

        @Override
        public void deregister(Registration registration) {
            deregister(registration, Long.MAX_VALUE);
        }

        @Override
        public void deregister(Registration registration, long readable) {
            watchDeregister(registration);
            fabric.deregister(registration, readable);
            live.remove(registration);
        }

        @Override
        public void deregister(Registration registration, long readable, Runnable then) {
            watchDeregister(registration);
            fabric.deregister(registration, readable, then);
            live.remove(registration);
        }

        private void watchDeregister(Registration registration) {
            byte[] array = live.get(registration);
            if (array != null) {
                onDeregister.accept(array);
            }
        }

        @Override
        public FabricAddress localAddress() {
            return fabric.localAddress();
        }

        @Override
        public void execute(Runnable command) {
            fabric.execute(command);
        }

        @Override
        public boolean onProgressThread() {
            return fabric.onProgressThread();
        }

        @Override
        public void listen(Consumer<ConnectRequest> acceptor) {
            fabric.listen(acceptor);
        }

        @Override
        public void stopListening() {
            fabric.stopListening();
        }

        @Override
        public FabricConnection connect(FabricAddress peer, ConnectPrivateData privateData, List<ByteBuffer> receives,
                                        ConnectionListener listener) {
            return fabric.connect(peer, privateData, receives, listener);
        }

        @Override
        public FabricStatistics statistics() {
            return fabric.statistics();
        }

        @Override
        public void close() {
            fabric.close();
        }
    }
}
