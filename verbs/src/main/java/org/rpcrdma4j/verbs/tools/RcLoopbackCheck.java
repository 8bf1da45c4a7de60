package org.rpcrdma4j.verbs.tools;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CmEvent;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.CmId;
import org.rpcrdma4j.verbs.ConnectionParameters;
import org.rpcrdma4j.verbs.MemoryWindow;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Verbs;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.tools.CheckPeer.CheckFailed;
import org.rpcrdma4j.verbs.tools.CheckPeer.Completion;

/**
 * Checks the verbs bindings on a real RDMA device (Soft-RoCE in the interop rig): one RC
 * connection set up by RDMA-CM, private data in the REQ and the REP, a Send, an RDMA Read, an
 * RDMA Write, a memory window bind and a Send with Invalidate of it, a disconnect. Prints one line
 * per step and exits 0 only if every step did what rdma-core's semantics promise.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp verbs.jar org.rpcrdma4j.verbs.tools.RcLoopbackCheck ADDRESS
 *     listens on ADDRESS (an address of an RDMA device, e.g. rxe0's netdev) and connects to itself
 * ... RcLoopbackCheck --server ADDRESS     one side: listens on ADDRESS, serves one connection
 * ... RcLoopbackCheck --client ADDRESS     the other: connects to a --server at ADDRESS
 * options: --port N (default 20050), --timeout SECONDS for the whole run (default 60)
 * </pre>
 *
 * Exit status: 0 all steps passed, 1 a step failed, 2 bad usage.
 */
public final class RcLoopbackCheck {
    private static final int MAGIC = 0x52434c42; // "RCLB"
    private static final int REQ_LENGTH = 8;
    private static final int REP_LENGTH = 24;
    private static final byte HELLO = 1;
    private static final byte WROTE = 2;
    private static final byte INVALIDATE = 3;
    private static final byte BYE = 4;
    private static final int HELLO_LENGTH = 64;

    private final InetSocketAddress address;
    private final int timeoutSeconds;

    private RcLoopbackCheck(InetSocketAddress address, int timeoutSeconds) {
        this.address = address;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** @param args see the class comment */
    public static void main(String[] args) {
        String mode = "loopback";
        String host = null;
        int port = 20050;
        int timeout = 60;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--server", "--client" -> {
                        mode = args[i].substring(2);
                        host = args[++i];
                    }
                    case "--port" -> port = Integer.parseInt(args[++i]);
                    case "--timeout" -> timeout = Integer.parseInt(args[++i]);
                    default -> host = args[i];
                }
            }
            if (host == null) {
                throw new IllegalArgumentException("no address");
            }
        } catch (RuntimeException e) {
            System.err.println("usage: RcLoopbackCheck [--server|--client] ADDRESS [--port N] [--timeout SECONDS]: "
                    + e.getMessage());
            System.exit(2);
            return;
        }
        boolean ok;
        try {
            RcLoopbackCheck check = new RcLoopbackCheck(new InetSocketAddress(InetAddress.getByName(host), port), timeout);
            Verbs.load();
            System.out.println("check: libibverbs and librdmacm loaded, devices " + Verbs.deviceNames());
            ok = switch (mode) {
                case "server" -> check.runSide("server", check::serve, null);
                case "client" -> check.runSide("client", check::connect, null);
                default -> check.loopback();
            };
        } catch (Exception e) {
            System.out.println("check: FAIL " + e);
            ok = false;
        }
        System.out.println(ok ? "RESULT OK" : "RESULT FAIL");
        System.exit(ok ? 0 : 1);
    }

    private boolean loopback() throws Exception {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Boolean> server = CompletableFuture.supplyAsync(
                () -> runSide("server", this::serve, listening));
        try {
            listening.get(timeoutSeconds, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.out.println("client: FAIL the server did not listen: " + e);
            return false;
        }
        boolean client = runSide("client", this::connect, null);
        return server.get(timeoutSeconds, TimeUnit.SECONDS) & client;
    }

    @FunctionalInterface
    private interface Script {
        void run(CheckPeer peer, CompletableFuture<Void> listening) throws Exception;
    }

    private boolean runSide(String name, Script script, CompletableFuture<Void> listening) {
        boolean ok = true;
        CheckPeer peer = null;
        try {
            peer = new CheckPeer(name, timeoutSeconds);
            script.run(peer, listening == null ? new CompletableFuture<>() : listening);
        } catch (Exception e) {
            System.out.println(name + ": FAIL " + (e instanceof CheckFailed ? e.getMessage() : e.toString()));
            ok = false;
        } finally {
            if (listening != null) {
                listening.complete(null);
            }
            if (peer != null) {
                try {
                    peer.close();
                    peer.step("cleanup", "queue pair, id, queues, registrations and channels released");
                } catch (VerbsException | RuntimeException e) {
                    System.out.println(name + ": FAIL cleanup " + e.getMessage());
                    ok = false;
                }
            }
        }
        return ok;
    }

    // ---------------------------------------------------------------------------------- server

    private void serve(CheckPeer peer, CompletableFuture<Void> listening) throws Exception {
        peer.listener = peer.events.createId();
        peer.listener.bind(address);
        peer.listener.listen(4);
        peer.step("listen", String.valueOf(peer.listener.localAddress()));
        listening.complete(null);

        int nonce;
        try (CmEvent request = peer.awaitEvent(CmEventType.CONNECT_REQUEST)) {
            peer.id = request.id();
            ByteBuffer data = ByteBuffer.wrap(request.privateData());
            if (request.listenId() != peer.listener || data.remaining() < REQ_LENGTH || data.getInt() != MAGIC) {
                peer.id.reject(new byte[0]);
                throw new CheckFailed("rejected a CONNECT_REQUEST not for the listener or without the magic: "
                        + hex(request.privateData()));
            }
            nonce = data.getInt();
            peer.step("connect request", "from " + peer.id.peerAddress() + ", private data room "
                    + request.privateDataLength() + " bytes (the REQ's room, not the 8 sent), nonce " + nonce);
        }
        peer.setUp(peer.id, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        MemorySegment exposed = peer.buffer.asSlice(CheckPeer.EXPOSED, CheckPeer.SLOT);
        fill(exposed, 7, 3);
        ReceiveWorkRequest recv = new ReceiveWorkRequest(1);
        peer.qp.post(recv.reset(1).add(peer.region, CheckPeer.RECV, CheckPeer.SLOT));

        ByteBuffer rep = ByteBuffer.allocate(REP_LENGTH).putInt(MAGIC).putInt(nonce)
                .putLong(peer.region.address() + CheckPeer.EXPOSED).putInt(peer.region.rkey()).putInt(CheckPeer.SLOT);
        peer.id.accept(new ConnectionParameters(rep.array(), 4, 4, 7, 7));
        peer.awaitEvent(CmEventType.ESTABLISHED).close();
        peer.step("established", "REP carried " + REP_LENGTH + " bytes: nonce, exposed address and rkey");

        Completion hello = peer.awaitCompletion(1, WcOpcode.RECV);
        expectMessage(peer, hello, HELLO, HELLO_LENGTH);
        peer.step("receive send", hello.byteLength() + " bytes, content as sent");
        peer.qp.post(recv.reset(2).add(peer.region, CheckPeer.RECV, CheckPeer.SLOT));

        Completion wrote = peer.awaitCompletion(2, WcOpcode.RECV);
        expectMessage(peer, wrote, WROTE, 1);
        if (!matches(exposed, 5, 11)) {
            throw new CheckFailed("the client's RDMA Write did not land in the exposed memory");
        }
        peer.step("rdma write landed", CheckPeer.SLOT + " bytes in the exposed memory, pattern as written");
        peer.qp.post(recv.reset(3).add(peer.region, CheckPeer.RECV, CheckPeer.SLOT));

        Completion invalidate = peer.awaitCompletion(3, WcOpcode.RECV);
        expectMessage(peer, invalidate, INVALIDATE, 5);
        int rkey = peer.buffer.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN),
                CheckPeer.RECV + 1);
        peer.buffer.set(ValueLayout.JAVA_BYTE, CheckPeer.SEND, BYE);
        SendWorkRequest send = new SendWorkRequest(1);
        peer.qp.post(send.reset(4).sendWithInvalidate(rkey).add(peer.region, CheckPeer.SEND, 1).signaled());
        peer.awaitCompletion(4, WcOpcode.SEND);
        peer.step("send with invalidate", "of the client's window rkey " + CheckPeer.hex(rkey));

        peer.awaitEvent(CmEventType.DISCONNECTED).close();
        peer.step("disconnected", "by the client");
    }

    // ---------------------------------------------------------------------------------- client

    private void connect(CheckPeer peer, CompletableFuture<Void> unused) throws Exception {
        CmId id = peer.events.createId();
        peer.id = id;
        id.resolveAddress(null, address, 5000);
        peer.awaitEvent(CmEventType.ADDR_RESOLVED).close();
        peer.step("address resolved", id.localAddress() + " -> " + id.peerAddress());
        id.resolveRoute(5000);
        peer.awaitEvent(CmEventType.ROUTE_RESOLVED).close();
        peer.step("route resolved", "");
        peer.setUp(id, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.MW_BIND);
        ReceiveWorkRequest recv = new ReceiveWorkRequest(1);
        peer.qp.post(recv.reset(100).add(peer.region, CheckPeer.RECV, CheckPeer.SLOT));

        int nonce = ThreadLocalRandom.current().nextInt();
        byte[] req = ByteBuffer.allocate(REQ_LENGTH).putInt(MAGIC).putInt(nonce).array();
        id.connect(new ConnectionParameters(req, 4, 4, 7, 7));
        long exposedAddress;
        int exposedRkey;
        try (CmEvent established = peer.awaitEvent(CmEventType.ESTABLISHED)) {
            ByteBuffer rep = ByteBuffer.wrap(established.privateData());
            if (rep.remaining() < REP_LENGTH || rep.getInt() != MAGIC || rep.getInt() != nonce) {
                throw new CheckFailed("REP private data lacks the magic or the nonce: " + hex(established.privateData()));
            }
            exposedAddress = rep.getLong();
            exposedRkey = rep.getInt();
            peer.step("established", "private data room " + established.privateDataLength()
                    + " bytes (the REP's room), exposed memory at " + Long.toHexString(exposedAddress) + " rkey "
                    + CheckPeer.hex(exposedRkey));
        }

        SendWorkRequest send = new SendWorkRequest(1);
        MemorySegment out = peer.buffer.asSlice(CheckPeer.SEND, CheckPeer.SLOT);
        fill(out.asSlice(0, HELLO_LENGTH), 1, 0);
        out.set(ValueLayout.JAVA_BYTE, 0, HELLO);
        peer.qp.post(send.reset(1).send().add(peer.region, CheckPeer.SEND, HELLO_LENGTH));
        peer.awaitCompletion(1, WcOpcode.SEND);
        peer.step("send", HELLO_LENGTH + " bytes");

        MemorySegment readInto = peer.buffer.asSlice(CheckPeer.READ_INTO, CheckPeer.SLOT);
        peer.qp.post(send.reset(2).rdmaRead(exposedAddress, exposedRkey).add(peer.region, CheckPeer.READ_INTO,
                CheckPeer.SLOT));
        peer.awaitCompletion(2, WcOpcode.RDMA_READ);
        if (!matches(readInto, 7, 3)) {
            throw new CheckFailed("the RDMA Read did not bring the server's pattern");
        }
        peer.step("rdma read", CheckPeer.SLOT + " bytes, the server's pattern");

        fill(peer.buffer.asSlice(CheckPeer.EXPOSED, CheckPeer.SLOT), 5, 11);
        peer.qp.post(send.reset(3).rdmaWrite(exposedAddress, exposedRkey).add(peer.region, CheckPeer.EXPOSED,
                CheckPeer.SLOT));
        peer.awaitCompletion(3, WcOpcode.RDMA_WRITE);
        peer.step("rdma write", CheckPeer.SLOT + " bytes");
        out.set(ValueLayout.JAVA_BYTE, 0, WROTE);
        peer.qp.post(send.reset(4).add(peer.region, CheckPeer.SEND, 1));
        peer.awaitCompletion(4, WcOpcode.SEND);

        peer.window = peer.pd.allocateWindow();
        int rkey = MemoryWindow.nextRkey(peer.window.rkey());
        peer.qp.post(send.reset(5).bindWindow(peer.window, rkey, peer.region, CheckPeer.EXPOSED, CheckPeer.SLOT,
                Access.REMOTE_READ, Access.REMOTE_WRITE));
        peer.awaitCompletion(5, WcOpcode.BIND_MW);
        peer.window.bound(rkey);
        peer.step("bind memory window", "rkey " + CheckPeer.hex(rkey));
        out.set(ValueLayout.JAVA_BYTE, 0, INVALIDATE);
        out.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 1, rkey);
        peer.qp.post(send.reset(6).add(peer.region, CheckPeer.SEND, 5));
        peer.awaitCompletion(6, WcOpcode.SEND);

        Completion bye = peer.awaitCompletion(100, WcOpcode.RECV);
        if (!bye.withInvalidate() || bye.invalidatedRkey() != rkey) {
            throw new CheckFailed("the server's Send with Invalidate did not invalidate rkey " + CheckPeer.hex(rkey)
                    + ": " + bye.description());
        }
        expectMessage(peer, bye, BYE, 1);
        peer.step("receive send with invalidate", "window rkey " + CheckPeer.hex(rkey) + " invalidated");

        id.disconnect();
        peer.awaitEvent(CmEventType.DISCONNECTED).close();
        peer.step("disconnected", "");
    }

    // ---------------------------------------------------------------------------------- helpers

    private static void expectMessage(CheckPeer peer, Completion c, byte type, int length) throws CheckFailed {
        byte got = peer.buffer.get(ValueLayout.JAVA_BYTE, CheckPeer.RECV);
        if (c.byteLength() != length || got != type) {
            throw new CheckFailed("expected message " + type + " of " + length + " bytes, got " + got + " of "
                    + c.byteLength());
        }
        if (type == HELLO && !matches(peer.buffer.asSlice(CheckPeer.RECV + 1, HELLO_LENGTH - 1), 1, 1)) {
            throw new CheckFailed("the Send's content differs from what was sent");
        }
    }

    /** Byte i is i * factor + offset. */
    private static void fill(MemorySegment s, int factor, int offset) {
        for (int i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * factor + offset));
        }
    }

    private static boolean matches(MemorySegment s, int factor, int offset) {
        for (int i = 0; i < s.byteSize(); i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != (byte) (i * factor + offset)) {
                return false;
            }
        }
        return true;
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(Arrays.copyOf(b, Math.min(b.length, 32)));
    }
}
