package org.rpcrdma4j.transport.marshal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.ReplyChunk;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;

/** The handle a reply invalidates, picked as svcrdma's {@code svc_rdma_get_inv_rkey} picks it. */
class ProvidedChunksTest {

    private static ProvidedChunks of(RpcRdmaHeader call, boolean remoteInvalidation) {
        return ProvidedChunks.of(call.readList(), call.writeList(), call.replyChunk(), remoteInvalidation);
    }

    private static Segment segment(int handle) {
        return new Segment(handle, 4096, 0x9e6c98b15666f000L);
    }

    @Test
    void theOneHandleOfEveryListIsInvalidated() {
        RpcRdmaHeader call = RpcRdmaHeader.msg(1, 128, List.of(new ReadSegment(112, segment(7)),
                new ReadSegment(112, segment(7))), List.of(new WriteChunk(List.of(segment(7)))),
                new ReplyChunk(List.of(segment(7))));
        ProvidedChunks provided = of(call, true);
        assertThat(provided.invalidateHandle()).isEqualTo(7);
        assertThat(provided.writeList()).isEqualTo(call.writeList());
        assertThat(provided.replyChunk()).isEqualTo(call.replyChunk());
    }

    @Test
    void twoHandlesAnywhereMeanNone() {
        // A 256 KiB READ: two segments of two keys in one Write chunk.
        assertThat(of(RpcRdmaHeader.msg(1, 128, null,
                List.of(new WriteChunk(List.of(segment(7), segment(8)))), null), true).invalidateHandle()).isZero();
        // A Read chunk of one key and a Reply chunk of another.
        assertThat(of(RpcRdmaHeader.msg(1, 128, List.of(new ReadSegment(0, segment(7))), null,
                new ReplyChunk(List.of(segment(9)))), true).invalidateHandle()).isZero();
    }

    @Test
    void noChunksOrNoOfferMeanNone() {
        assertThat(of(RpcRdmaHeader.msg(1, 128, null, null, null), true).invalidateHandle()).isZero();
        assertThat(of(RpcRdmaHeader.msg(1, 128, null, null, new ReplyChunk(List.of(segment(7)))), false)
                .invalidateHandle()).isZero();
        assertThat(ProvidedChunks.NONE.invalidateHandle()).isZero();
    }

    @Test
    void aZeroHandleCountsAsNoneAsInSvcrdma() {
        assertThat(of(RpcRdmaHeader.msg(1, 128, null,
                List.of(new WriteChunk(List.of(segment(0), segment(5)))), null), true).invalidateHandle()).isEqualTo(5);
    }
}
