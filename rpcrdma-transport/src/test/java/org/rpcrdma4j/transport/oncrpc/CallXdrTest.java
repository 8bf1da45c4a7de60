package org.rpcrdma4j.transport.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.marshal.ReplyPlan;

/** A received call's bytes stay as they came while its reply is encoded into a message buffer. */
class CallXdrTest {

    /** Direct buffers, as a fabric that registered its message buffers hands out, counted back. */
    private static final class Counted implements MessageBuffers {
        final List<ByteBuffer> allocated = new ArrayList<>();
        final List<ByteBuffer> released = new ArrayList<>();

        @Override
        public ByteBuffer allocate(int size) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(size);
            allocated.add(buffer);
            return buffer;
        }

        @Override
        public void release(ByteBuffer buffer) {
            released.add(buffer);
        }

        @Override
        public boolean recycles() {
            return true;
        }
    }

    private final byte[] call = ByteBuffer.allocate(12).putInt(0x1234).putInt(0).putInt(77).array();
    private final Counted buffers = new Counted();

    @Test
    void aShortReplyIsEncodedAfterRoomForItsHeaderAndHandedOver() throws Exception {
        CallXdr xdr = new CallXdr(ByteBuffer.wrap(call), null, buffers, () -> { });
        xdr.beginEncoding();
        xdr.xdrEncodeInt(0x1234);
        xdr.xdrEncodeInt(1);
        xdr.endEncoding();
        MessageBytes reply = XdrBytes.view(xdr);

        ByteBuffer taken = CallXdr.takeReply(xdr);
        xdr.close();

        assertThat(taken).isSameAs(buffers.allocated.get(0));
        assertThat(taken.getInt(ReplyPlan.HEADER_ROOM)).isEqualTo(0x1234);
        assertThat(taken.getInt(ReplyPlan.HEADER_ROOM + 4)).isEqualTo(1);
        assertThat(reply.length()).isEqualTo(8);
        assertThat(buffers.released).as("the caller's now, not given back by the Xdr").isEmpty();
    }

    @Test
    void aReplyThatOutgrowsItsBufferIsKeptWholeAndTheBufferGoesBackAtClose() throws Exception {
        byte[] before = call.clone();
        CallXdr xdr = new CallXdr(ByteBuffer.wrap(call), null, buffers, () -> { });
        xdr.beginDecoding();
        assertThat(xdr.xdrDecodeInt()).isEqualTo(0x1234);

        xdr.beginEncoding();
        for (int i = 0; i < 600; i++) {
            xdr.xdrEncodeInt(i);
        }
        xdr.endEncoding();
        MessageBytes reply = XdrBytes.view(xdr);

        assertThat(call).isEqualTo(before);
        assertThat(CallXdr.takeReply(xdr)).isNull();
        assertThat(reply.length()).isEqualTo(2400);
        assertThat(reply.bufferCount()).as("grown in one piece, as oncrpc4j grows its own").isEqualTo(1);
        assertThat(reply.getInt(0)).isZero();
        assertThat(reply.getInt(2396)).isEqualTo(599);
        assertThat(buffers.released).isEmpty();
        xdr.close();
        assertThat(buffers.released).containsExactlyElementsOf(buffers.allocated);
    }

    @Test
    void aReplyInAHeapBufferGrowsInOnePieceToo() throws Exception {
        CallXdr xdr = new CallXdr(ByteBuffer.wrap(call), null, MessageBuffers.HEAP, () -> { });
        xdr.beginEncoding();
        for (int i = 0; i < 600; i++) {
            xdr.xdrEncodeInt(i);
        }
        xdr.endEncoding();
        MessageBytes reply = XdrBytes.view(xdr);

        assertThat(CallXdr.takeReply(xdr)).isNull();
        assertThat(reply.bufferCount()).isEqualTo(1);
        assertThat(reply.getInt(1200)).isEqualTo(300);
    }

    @Test
    void aCallDecodesInTheReceiveBufferLentToItWhichGoesBackAtClose() throws Exception {
        ByteBuffer receive = buffers.allocate(64);
        receive.put(28, call);
        AtomicInteger done = new AtomicInteger();
        CallXdr xdr = new CallXdr(receive.slice(28, call.length), receive, buffers, done::incrementAndGet);
        xdr.beginDecoding();
        assertThat(xdr.xdrDecodeInt()).isEqualTo(0x1234);
        assertThat(xdr.xdrDecodeInt()).isZero();
        assertThat(xdr.xdrDecodeInt()).isEqualTo(77);
        xdr.endDecoding();
        xdr.beginEncoding();
        xdr.xdrEncodeInt(0x1234);
        xdr.endEncoding();
        assertThat(buffers.released).isEmpty();

        xdr.close();
        xdr.close();

        assertThat(buffers.released).as("the call's receive and the reply's buffer, once each")
                .containsExactlyInAnyOrder(receive, buffers.allocated.get(1));
        assertThat(done).as("the call is done once").hasValue(1);
    }

    @Test
    void anXdrOfAnotherKindHandsNothingOver() {
        assertThat(CallXdr.takeReply(new org.dcache.oncrpc4j.xdr.Xdr(64))).isNull();
    }
}
