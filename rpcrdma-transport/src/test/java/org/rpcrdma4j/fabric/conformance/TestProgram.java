package org.rpcrdma4j.fabric.conformance;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcRejectStatus;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/** A small program: echo, failures of every kind, and a gated procedure that counts concurrency. */
public final class TestProgram implements RpcDispatchable {

    public static final OncRpcProgram PROGRAM = new OncRpcProgram(0x2000_0123, 1);
    public static final int NULL = 0;
    public static final int ECHO = 1;
    public static final int THROW_RUNTIME = 2;
    public static final int THROW_REJECT = 3;
    public static final int EXPECT_INT_PAIR = 4;
    public static final int GATED = 5;
    public static final int ADDRESSES = 6;

    public final AtomicInteger inProgress = new AtomicInteger();
    public final AtomicInteger maxInProgress = new AtomicInteger();
    public volatile CountDownLatch gate = new CountDownLatch(0);
    /** What {@link #ADDRESSES} saw of each call's transport: its remote, then its local socket address. */
    public final List<InetSocketAddress> addresses = new CopyOnWriteArrayList<>();
    /** What the caller's IP address said of itself before {@link #ADDRESSES} asked for its host name. */
    public final List<String> unresolvedNames = new CopyOnWriteArrayList<>();

    /** Variable-length opaque data. */
    public static final class Opaque implements XdrAble {
        public byte[] bytes = new byte[0];

        public Opaque() {
        }

        public Opaque(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            bytes = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            xdr.xdrEncodeDynamicOpaque(bytes);
        }
    }

    /** Two ints, which a single opaque of a few bytes cannot satisfy. */
    private static final class IntPair implements XdrAble {
        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            xdr.xdrDecodeInt();
            xdr.xdrDecodeInt();
            xdr.xdrDecodeInt();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
        }
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws IOException {
        switch (call.getProcedure()) {
            case NULL -> call.reply(XdrVoid.XDR_VOID);
            case ECHO -> {
                Opaque data = new Opaque();
                call.retrieveCall(data);
                call.reply(data);
            }
            case THROW_RUNTIME -> throw new IllegalStateException("program bug");
            case THROW_REJECT -> throw new RpcException(RpcRejectStatus.AUTH_ERROR, "no",
                    new RpcAuthError(RpcAuthStat.AUTH_TOOWEAK));
            case EXPECT_INT_PAIR -> {
                call.retrieveCall(new IntPair());
                call.reply(XdrVoid.XDR_VOID);
            }
            case GATED -> {
                TestProgram.pass(gate, inProgress, maxInProgress);
                call.reply(XdrVoid.XDR_VOID);
            }
            case ADDRESSES -> {
                // As nfs4j checks a caller against its exports: by the host name of its address.
                InetSocketAddress remote = call.getTransport().getRemoteSocketAddress();
                unresolvedNames.add(remote.getAddress().toString());
                remote.getAddress().getHostName();
                addresses.add(remote);
                addresses.add(call.getTransport().getLocalSocketAddress());
                call.reply(XdrVoid.XDR_VOID);
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /**
     * @param transport the client's transport
     * @return a call of this program on it
     */
    public static RpcCall call(RpcTransport transport) {
        return new RpcCall(PROGRAM.getNumber(), PROGRAM.getVersion(), new RpcAuthTypeNone(), transport);
    }

    /**
     * Waits at a gate, counting the calls inside it and the most at once.
     *
     * @param gate          opened by the test
     * @param inProgress    calls inside now
     * @param maxInProgress the most calls inside at once
     */
    public static void pass(CountDownLatch gate, AtomicInteger inProgress, AtomicInteger maxInProgress) {
        maxInProgress.accumulateAndGet(inProgress.incrementAndGet(), Math::max);
        try {
            gate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        inProgress.decrementAndGet();
    }
}
