package org.rpcrdma4j.testbed.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.rpcrdma4j.xdr.DecodedHeader;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.ReplyChunk;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;

/**
 * Decode and encode of the two headers the transport handles most: a READ reply (one Write chunk of
 * one segment, empty Read list, no Reply chunk) and a call with a Read list of 8 segments and a Reply
 * chunk. The peer in the same run is a plain copy of the same header bytes, the least any decoder
 * that touches every byte must cost.
 *
 * <p>Run: {@code java -cp testbed/target/testbed.jar org.openjdk.jmh.Main HeaderCodecBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HeaderCodecBenchmark {

    private final RpcRdmaHeaderFlyweight view = new RpcRdmaHeaderFlyweight();
    private final HeaderDecoder decoder = new HeaderDecoder();
    private final ByteBuffer out = ByteBuffer.allocate(4096);
    private final byte[] copy = new byte[4096];

    private RpcRdmaHeader reply;
    private RpcRdmaHeader call;
    private ByteBuffer replyBytes;
    private ByteBuffer callBytes;
    private int replyLength;
    private int callLength;

    /** Builds both headers with Linux-like values and encodes them once for the decode benchmarks. */
    @Setup
    public void setUp() {
        int xid = 0x9e6c98b1;
        long base = (long) xid << 32;
        reply = RpcRdmaHeader.msg(xid, 64, List.of(),
                List.of(new WriteChunk(List.of(new Segment(0x0c44, 131072, base | 0x5666f000L)))), null);
        List<ReadSegment> reads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            reads.add(new ReadSegment(112, new Segment(0x0c50 + i, 32768, base | (0x100000L * i))));
        }
        call = RpcRdmaHeader.msg(xid, 128, reads, List.of(),
                new ReplyChunk(List.of(new Segment(0x0d00, 4096, base | 0xa000L))));
        // Replies carry the inline RPC reply after the header; calls the 112 inline bytes before the chunk.
        replyBytes = ByteBuffer.allocate(HeaderEncoder.encodedLength(reply) + 120);
        replyLength = HeaderEncoder.encode(reply, replyBytes, 0) + 120;
        callBytes = ByteBuffer.allocate(HeaderEncoder.encodedLength(call) + 112);
        callLength = HeaderEncoder.encode(call, callBytes, 0) + 112;
    }

    /** Flyweight decode of the reply, reading every field the transport uses. */
    @Benchmark
    public void decodeReplyFlyweight(Blackhole bh) throws RpcRdmaDecodeException {
        RpcRdmaHeaderFlyweight v = view.wrap(replyBytes, 0, replyLength);
        bh.consume(v.xid());
        bh.consume(v.credits());
        bh.consume(v.writeHandle(0, 0));
        bh.consume(v.writeLength(0, 0));
        bh.consume(v.writeOffset(0, 0));
        bh.consume(v.payloadOffset());
    }

    /** Flyweight decode of the call, reading every Read segment and the Reply chunk. */
    @Benchmark
    public void decodeCallFlyweight(Blackhole bh) throws RpcRdmaDecodeException {
        RpcRdmaHeaderFlyweight v = view.wrap(callBytes, 0, callLength);
        bh.consume(v.xid());
        for (int i = 0; i < v.readSegmentCount(); i++) {
            bh.consume(v.readPosition(i));
            bh.consume(v.readHandle(i));
            bh.consume(v.readLength(i));
            bh.consume(v.readOffset(i));
        }
        bh.consume(v.replyHandle(0));
        bh.consume(v.replyLength(0));
        bh.consume(v.replyOffset(0));
    }

    /** Record decode of the reply: the same checks plus the model objects. */
    @Benchmark
    public DecodedHeader decodeReplyRecords() throws RpcRdmaDecodeException {
        return decoder.decode(replyBytes, 0, replyLength);
    }

    /** Record decode of the call. */
    @Benchmark
    public DecodedHeader decodeCallRecords() throws RpcRdmaDecodeException {
        return decoder.decode(callBytes, 0, callLength);
    }

    /** Encode of the reply header into a caller-supplied buffer. */
    @Benchmark
    public int encodeReply() {
        return HeaderEncoder.encode(reply, out, 0);
    }

    /** Encode of the call header into a caller-supplied buffer. */
    @Benchmark
    public int encodeCall() {
        return HeaderEncoder.encode(call, out, 0);
    }

    /** Peer: copy the reply header's bytes. */
    @Benchmark
    public byte[] copyReplyHeader() {
        System.arraycopy(replyBytes.array(), 0, copy, 0, replyLength - 120);
        return copy;
    }

    /** Peer: copy the call header's bytes. */
    @Benchmark
    public byte[] copyCallHeader() {
        System.arraycopy(callBytes.array(), 0, copy, 0, callLength - 112);
        return copy;
    }
}
