package org.rpcrdma4j.fabric.conformance;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.glassfish.grizzly.memory.ByteBufferWrapper;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * A program whose procedures need every chunk combination, and its {@link DdpPolicy} (the same on
 * both sides, as an upper-layer binding is):
 * <ul>
 * <li>PUT: DDP-eligible opaque argument (WRITE-like: Read chunk), CRC32 result;</li>
 * <li>GET(length, fail): DDP-eligible opaque result after a status (READ-like: Write chunk); with
 *     {@code fail} the result has no data arm, so the Write chunk goes unused;</li>
 * <li>ECHO_DDP: DDP-eligible argument and result (Read + Write);</li>
 * <li>LIST(length, claimed): a long non-DDP result (Reply chunk); {@code claimed} is the bound the
 *     policy announces, to provoke a reply larger than the Reply chunk;</li>
 * <li>PUT_ECHO: DDP-eligible argument echoed as a non-DDP result (Read + Reply);</li>
 * <li>SUM: a non-DDP opaque argument (Position-zero when long), CRC32 result;</li>
 * <li>LEND(length, ignored): GET's successful result, its data lent shallow from a direct buffer of
 *     the program's, which counts when the transport disposes it.</li>
 * </ul>
 */
public final class ChunkProgram implements RpcDispatchable {

    public static final OncRpcProgram PROGRAM = new OncRpcProgram(0x2000_0124, 1);
    public static final int PUT = 1;
    public static final int GET = 2;
    public static final int ECHO_DDP = 3;
    public static final int LIST = 4;
    public static final int PUT_ECHO = 5;
    public static final int SUM = 6;
    public static final int LEND = 7;
    /** What the policy bounds a reply by beside its data: room for the RPC reply header and the result's other words. */
    public static final int REPLY_OVERHEAD = 64;

    /** LEND's buffers disposed by the transport. */
    public final AtomicInteger lentDisposed = new AtomicInteger();

    /** Every procedure waits for it before it runs, with its Read chunks already pulled. */
    public volatile CountDownLatch gate = new CountDownLatch(0);

    /** The XID of every call dispatched, in order, before it waits for the gate. */
    public final Queue<Integer> xids = new ConcurrentLinkedQueue<>();

    /** @return {@code length} bytes in a pattern that shows where each byte belongs */
    public static byte[] pattern(int length) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        return data;
    }

    /** @return the CRC32 of {@code data}, as the program answers it */
    public static int crc(byte[] data) {
        CRC32 crc = new CRC32();
        crc.update(data);
        return (int) crc.getValue();
    }

    /** Two ints: GET's and LIST's arguments. */
    public static final class IntPair implements XdrAble {
        public int first;
        public int second;

        public IntPair() {
        }

        public IntPair(int first, int second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            first = xdr.xdrDecodeInt();
            second = xdr.xdrDecodeInt();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            xdr.xdrEncodeInt(first);
            xdr.xdrEncodeInt(second);
        }
    }

    /** GET's result: a status, then the data when it is 0. */
    public static final class GetResult implements XdrAble {
        public int status;
        public byte[] data;

        /** For oncrpc4j, which instantiates results by reflection. */
        public GetResult() {
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            status = xdr.xdrDecodeInt();
            data = status == 0 ? xdr.xdrDecodeDynamicOpaque() : null;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            xdr.xdrEncodeInt(status);
            if (status == 0) {
                xdr.xdrEncodeDynamicOpaque(data);
            }
        }
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws IOException {
        xids.add(call.getXid());
        try {
            gate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        switch (call.getProcedure()) {
            case PUT, SUM -> {
                TestProgram.Opaque data = new TestProgram.Opaque();
                call.retrieveCall(data);
                call.reply(new XdrInt(crc(data.bytes)));
            }
            case GET -> {
                IntPair args = new IntPair();
                call.retrieveCall(args);
                GetResult result = new GetResult();
                result.status = args.second;
                result.data = pattern(args.first);
                call.reply(result);
            }
            case ECHO_DDP, PUT_ECHO -> {
                TestProgram.Opaque data = new TestProgram.Opaque();
                call.retrieveCall(data);
                call.reply(data);
            }
            case LEND -> {
                IntPair args = new IntPair();
                call.retrieveCall(args);
                ByteBuffer data = ByteBuffer.allocateDirect(args.first).put(pattern(args.first)).flip();
                call.reply(new XdrAble() {
                    @Override
                    public void xdrEncode(XdrEncodingStream xdr) {
                        xdr.xdrEncodeInt(0);
                        ((Xdr) xdr).xdrEncodeShallowByteBuffer(new ByteBufferWrapper(data) {
                            {
                                allowBufferDispose(true);
                            }

                            @Override
                            public void dispose() {
                                super.dispose();
                                lentDisposed.incrementAndGet();
                            }
                        });
                    }

                    @Override
                    public void xdrDecode(XdrDecodingStream xdr) {
                        throw new UnsupportedOperationException("a reply only");
                    }
                });
            }
            case LIST -> {
                IntPair args = new IntPair();
                call.retrieveCall(args);
                call.reply(new TestProgram.Opaque(pattern(args.first)));
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /** The chunk program's binding, and {@link DdpPolicy#NONE} for every other program. */
    public static final DdpPolicy POLICY = DdpPolicy.forProgram(PROGRAM.getNumber(), PROGRAM.getVersion(), new DdpPolicy() {
        @Override
        public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
            return switch (procedure.procedure()) {
                case PUT, ECHO_DDP, PUT_ECHO -> List.of(new XdrItem(call.bodyOffset() + 4, word(call, 0)));
                default -> List.of();
            };
        }

        @Override
        public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
            return switch (procedure.procedure()) {
                case GET, LEND, ECHO_DDP -> new ReplySize(REPLY_OVERHEAD + RoundUp.roundUp(word(call, 0)),
                        List.of((long) word(call, 0)));
                case LIST -> new ReplySize(word(call, 1) == 0 ? REPLY_OVERHEAD + word(call, 0) : word(call, 1),
                        List.of());
                case PUT_ECHO -> new ReplySize(REPLY_OVERHEAD + word(call, 0), List.of());
                default -> ReplySize.INLINE;
            };
        }

        @Override
        public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
            // Offsets only from the bytes before each result, as the requester's splice needs.
            int body = reply.bodyOffset();
            return switch (procedure.procedure()) {
                case GET, LEND -> body + 8 <= reply.bytes().length() && word(reply, 0) == 0
                        ? List.of(new XdrItem(body + 8, word(reply, 1))) : List.of();
                case ECHO_DDP -> body + 4 <= reply.bytes().length()
                        ? List.of(new XdrItem(body + 4, word(reply, 0))) : List.of();
                default -> List.of();
            };
        }

        private int word(RpcMessage message, int index) {
            return message.bytes().getInt(message.bodyOffset() + 4 * index);
        }
    });
}
