package org.rpcrdma4j.transport.marshal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.ReplyChunk;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;
import org.rpcrdma4j.xdr.XdrItem;

/** A reply's chunk data is RDMA-Written from where the reply holds it: the program's own buffer. */
class ReplyPlanTest {

    private static final int XID = 0x1234;
    private static final int CREDITS = 64;
    private static final int THRESHOLD = 4096;
    private static final int HEAD = 16;
    private static final int DATA = 8192;

    /** A 16-byte head, then 8 KiB of data in a direct buffer of its own, as oncrpc4j's shallow encoding leaves it. */
    private final ByteBuffer data = ByteBuffer.allocateDirect(DATA);
    private final MessageBytes reply = MessageBytes.of(List.of(ByteBuffer.wrap(new byte[HEAD]), data));
    private final List<XdrItem> payloads = List.of(new XdrItem(HEAD, DATA));

    @Test
    void writesEachSegmentFromTheProgramsBufferWithoutCopying() throws Exception {
        WriteChunk chunk = new WriteChunk(List.of(new Segment(7, 4096, 0x1000), new Segment(8, 8192, 0x9000)));

        LongAdder copied = new LongAdder();
        ReplyPlan plan = ReplyPlan.of(XID, CREDITS, reply, null, new ProvidedChunks(List.of(chunk), null), payloads,
                THRESHOLD, MessageBuffers.HEAP, copied);

        assertThat(plan.sources()).as("one source for the chunk's segments").hasSize(1);
        ByteBuffer source = plan.sources().get(0);
        assertThat(source.isDirect()).isTrue();
        assertThat(source.remaining()).isEqualTo(DATA);
        assertThat(plan.writes()).hasSize(2);
        assertThat(plan.writes()).allSatisfy(write -> assertThat(write.source()).isZero());
        assertThat(plan.writes().get(0).sourceOffset()).isZero();
        assertThat(plan.writes().get(0).target()).isEqualTo(new Segment(7, 4096, 0x1000));
        assertThat(plan.writes().get(1).sourceOffset()).isEqualTo(4096);
        assertThat(plan.writes().get(1).target()).isEqualTo(new Segment(8, 4096, 0x9000));
        RpcRdmaHeader header = new HeaderDecoder().decode(plan.message().array()).header();
        assertThat(header.proc()).isEqualTo(Proc.RDMA_MSG);
        assertThat(header.writeList().get(0).length()).isEqualTo(DATA);
        assertThat(plan.message().limit()).isEqualTo(plan.message().capacity());
        assertThat(copied.sum()).as("the inline head, once").isEqualTo(HEAD);
        assertThat(plan.message().getInt(plan.message().limit() - HEAD)).isEqualTo(reply.getInt(0));
    }

    @Test
    void aShortReplyIsSentFromTheBufferItWasEncodedIntoWithoutACopy() throws Exception {
        ByteBuffer encodedIn = ByteBuffer.allocate(ReplyPlan.HEADER_ROOM + 1024);
        encodedIn.putInt(ReplyPlan.HEADER_ROOM, XID).putInt(ReplyPlan.HEADER_ROOM + 4, 1);
        MessageBytes shortReply = MessageBytes.of(List.of(encodedIn.slice(ReplyPlan.HEADER_ROOM, 8)));

        LongAdder copied = new LongAdder();
        ReplyPlan plan = ReplyPlan.of(XID, CREDITS, shortReply, encodedIn, ProvidedChunks.NONE, List.of(), THRESHOLD,
                MessageBuffers.HEAP, copied);

        assertThat(plan.message()).isSameAs(encodedIn);
        assertThat(plan.message().position()).isZero();
        assertThat(plan.message().limit()).isEqualTo(ReplyPlan.HEADER_ROOM + 8);
        RpcRdmaHeader header = new HeaderDecoder().decode(plan.message().array()).header();
        assertThat(header.proc()).isEqualTo(Proc.RDMA_MSG);
        assertThat(header.xid()).isEqualTo(XID);
        assertThat(header.credits()).isEqualTo(CREDITS);
        assertThat(plan.message().getInt(ReplyPlan.HEADER_ROOM)).isEqualTo(XID);
        assertThat(copied.sum()).isZero();
    }

    @Test
    void theRestOfAReplyGoesIntoTheReplyChunkFromTheReducedCopy() throws Exception {
        WriteChunk chunk = new WriteChunk(List.of(new Segment(7, DATA, 0x1000)));
        ReplyChunk replyChunk = new ReplyChunk(List.of(new Segment(9, 1024, 0x20000)));

        LongAdder copied = new LongAdder();
        ReplyPlan plan = ReplyPlan.of(XID, CREDITS, reply, null, new ProvidedChunks(List.of(chunk), replyChunk), payloads,
                THRESHOLD, MessageBuffers.HEAP, copied);

        assertThat(plan.writes()).hasSize(2);
        assertThat(plan.sources()).hasSize(2);
        assertThat(plan.sources().get(plan.writes().get(0).source()).isDirect()).isTrue();
        ReplyPlan.Write rest = plan.writes().get(1);
        ByteBuffer reduced = plan.sources().get(rest.source());
        assertThat(reduced.isDirect()).isFalse();
        assertThat(reduced.remaining()).isEqualTo(HEAD);
        assertThat(rest.sourceOffset()).isZero();
        assertThat(rest.target()).isEqualTo(new Segment(9, HEAD, 0x20000));
        assertThat(new HeaderDecoder().decode(plan.message().array()).header().proc()).isEqualTo(Proc.RDMA_NOMSG);
        assertThat(copied.sum()).as("the reduced reply, once").isEqualTo(HEAD);
    }

    @Test
    void aResultLargerThanItsWriteChunkCannotBeConveyed() {
        WriteChunk small = new WriteChunk(List.of(new Segment(7, DATA - 4, 0x1000)));

        assertThat(ReplyPlan.of(XID, CREDITS, reply, null, new ProvidedChunks(List.of(small), null), payloads, THRESHOLD,
                MessageBuffers.HEAP, new LongAdder()))
                .isNull();
    }
}
