package org.rpcrdma4j.xdr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One test per decode rule; each also checks that the same view then decodes a good message. */
class HeaderDecoderRulesTest {

    private static final long XID = 0xfb40e883L;
    /** The first call of v3-small (NFS v3 NULL, frame 28) as the Linux client sent it. */
    private static final byte[] LINUX_NULL_CALL = Xdr.hex("fb40e883000000010000008000000000000000000000000000000000"
            + "fb40e8830000000000000002000186a3000000030000000000000000000000000000000000000000");

    private final RpcRdmaHeaderFlyweight view = new RpcRdmaHeaderFlyweight();

    /** Fixed words of an RDMA_MSG call of version 1 with 128 credits. */
    private static Xdr msg() {
        return Xdr.words(XID, 1, 128, 0);
    }

    private RpcRdmaDecodeException rejected(byte[] message, Rule rule) {
        return rejected(view, message, rule);
    }

    private static RpcRdmaDecodeException rejected(RpcRdmaHeaderFlyweight view, byte[] message, Rule rule) {
        RpcRdmaDecodeException e = catchThrowableOfType(RpcRdmaDecodeException.class,
                () -> view.wrap(ByteBuffer.wrap(message), 0, message.length));
        assertThat(e).as("rejection of %s", Arrays.toString(message)).isNotNull();
        assertThat(e.rule()).isEqualTo(rule);
        assertThat(e.action()).isEqualTo(rule.action());
        assertThat(e.getMessage()).isNotBlank();
        assertThat(e.getStackTrace()).isEmpty();
        // Nothing of the rejected message stays visible, and the view goes on decoding.
        assertThatThrownBy(view::xid).isInstanceOf(IllegalStateException.class);
        assertRecovers(view);
        return e;
    }

    private static void assertRecovers(RpcRdmaHeaderFlyweight view) {
        try {
            view.wrap(ByteBuffer.wrap(LINUX_NULL_CALL), 0, LINUX_NULL_CALL.length);
        } catch (RpcRdmaDecodeException e) {
            throw new AssertionError("a good message after a rejected one was refused", e);
        }
        assertThat(Integer.toUnsignedLong(view.xid())).isEqualTo(XID);
        assertThat(view.payloadLength()).isEqualTo(40);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void noXidIsDropped(int length) {
        RpcRdmaDecodeException e = rejected(Arrays.copyOf(LINUX_NULL_CALL, length), Rule.NO_XID);

        assertThat(e.action()).isEqualTo(Action.DROP);
        assertThat(e.xid()).isEmpty();
        assertThat(e.answer(64)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 7, 8, 12, 15})
    void shortHeaderIsAnsweredWithErrChunkWhenTheXidIsThere(int length) {
        RpcRdmaDecodeException e = rejected(Arrays.copyOf(LINUX_NULL_CALL, length), Rule.SHORT_HEADER);

        assertThat(e.action()).isEqualTo(Action.ERR_CHUNK);
        assertThat(Integer.toUnsignedLong(e.xid().orElseThrow())).isEqualTo(XID);
        assertThat(e.answer(64)).contains(RpcRdmaHeader.error((int) XID, 1, 64, RdmaError.errChunk()));
    }

    @Test
    void badVersionIsAnsweredWithErrVersOneToOne() {
        RpcRdmaDecodeException e = rejected(Xdr.words(XID, 2, 128, 0, 0, 0, 0).toBytes(), Rule.BAD_VERSION);

        RpcRdmaHeader answer = e.answer(64).orElseThrow();
        byte[] wire = new byte[HeaderEncoder.encodedLength(answer)];
        HeaderEncoder.encode(answer, ByteBuffer.wrap(wire), 0);
        // xid, the failing message's version (as Linux echoes it), credits, RDMA_ERROR, ERR_VERS, low 1, high 1
        assertThat(wire).isEqualTo(Xdr.words(XID, 2, 64, 4, 1, 1, 1).toBytes());
    }

    @Test
    void badVersionIsCheckedBeforeTheProcedure() {
        rejected(Xdr.words(XID, 0, 128, 3).toBytes(), Rule.BAD_VERSION);
    }

    @Test
    void rdmaMsgpIsAnsweredWithErrChunk() {
        RpcRdmaDecodeException e = rejected(Xdr.words(XID, 1, 128, 2, 0, 0, 0, 4, 1024).toBytes(), Rule.RDMA_MSGP);

        assertThat(e.answer(8)).contains(RpcRdmaHeader.error((int) XID, 1, 8, RdmaError.errChunk()));
    }

    @Test
    void rdmaDoneIsDropped() {
        RpcRdmaDecodeException e = rejected(Xdr.words(XID, 1, 128, 3).toBytes(), Rule.RDMA_DONE);

        assertThat(e.answer(64)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(longs = {5, 6, 0x7fffffffL, 0xffffffffL})
    void unknownProcIsAnsweredWithErrChunk(long proc) {
        RpcRdmaDecodeException e = rejected(Xdr.words(XID, 1, 128, proc, 0, 0, 0).toBytes(), Rule.UNKNOWN_PROC);

        assertThat(e.answer(64).orElseThrow().error()).isEqualTo(RdmaError.errChunk());
    }

    @Test
    void wellFormedRdmaErrorsDecodeForTheRequester() throws RpcRdmaDecodeException {
        byte[] errVers = Xdr.words(XID, 1, 64, 4, 1, 1, 1).toBytes();
        byte[] errChunk = Xdr.words(XID, 1, 64, 4, 2).toBytes();

        DecodedHeader vers = new HeaderDecoder().decode(errVers);
        DecodedHeader chunk = new HeaderDecoder().decode(errChunk);

        assertThat(vers.header()).isEqualTo(RpcRdmaHeader.error((int) XID, 1, 64, RdmaError.errVers(1, 1)));
        assertThat(vers.headerLength()).isEqualTo(28);
        assertThat(chunk.header()).isEqualTo(RpcRdmaHeader.error((int) XID, 1, 64, RdmaError.errChunk()));
        assertThat(chunk.headerLength()).isEqualTo(20);
        RpcRdmaHeaderFlyweight flyweight = view.wrap(ByteBuffer.wrap(errVers), 0, errVers.length);
        assertThat(flyweight.errorCode()).isEqualTo(ErrorCode.ERR_VERS);
        assertThat(flyweight.errorLow()).isEqualTo(1);
        assertThat(flyweight.errorHigh()).isEqualTo(1);
    }

    @Test
    void errVersEchoingAnotherVersionDecodesSoTheRequesterLearnsTheRange() throws RpcRdmaDecodeException {
        // The answer to a version-2 message carries version 2 (RFC 8166 §4.5; Linux echoes it too).
        DecodedHeader answer = new HeaderDecoder().decode(Xdr.words(XID, 2, 64, 4, 1, 1, 1).toBytes());

        assertThat(answer.header()).isEqualTo(RpcRdmaHeader.error((int) XID, 2, 64, RdmaError.errVers(1, 1)));
    }

    @Test
    void malformedRdmaErrorsAreDroppedNeverAnswered() {
        byte[][] malformed = {
            Xdr.words(XID, 1, 64, 4).toBytes(),             // no rdma_err
            Xdr.words(XID, 1, 64, 4, 3).toBytes(),          // unknown rdma_err
            Xdr.words(XID, 1, 64, 4, 0).toBytes(),          // unknown rdma_err
            Xdr.words(XID, 1, 64, 4, 1, 1).toBytes(),       // ERR_VERS without high
        };
        for (byte[] message : malformed) {
            assertThat(rejected(message, Rule.BAD_RDMA_ERROR).answer(64)).isEmpty();
        }
    }

    @Test
    void truncationAnywhereInTheChunkListsIsAnsweredWithErrChunk() throws RpcRdmaDecodeException {
        byte[] full = msg().word(1).word(8).segment(1, 4, 2).word(0)
                .word(1).word(2).segment(3, 4, 5).segment(6, 7, 8).word(0)
                .word(1).word(1).segment(9, 10, 11)
                .zeros(8).toBytes();
        int headerLength = view.wrap(ByteBuffer.wrap(full), 0, full.length).headerLength();
        assertThat(headerLength).isEqualTo(full.length - 8);

        for (int length = RpcRdmaHeader.FIXED_LENGTH; length < headerLength; length++) {
            RpcRdmaDecodeException e = rejected(Arrays.copyOf(full, length), Rule.TRUNCATED_CHUNK_LIST);
            assertThat(e.answer(64).orElseThrow().error()).isEqualTo(RdmaError.errChunk());
        }
    }

    @Test
    void discriminatorOtherThanZeroOrOneIsAnsweredWithErrChunk() {
        rejected(msg().word(2).toBytes(), Rule.BAD_DISCRIMINATOR);
        rejected(msg().word(0).word(0xffffffffL).toBytes(), Rule.BAD_DISCRIMINATOR);
        rejected(msg().word(0).word(0).word(2).toBytes(), Rule.BAD_DISCRIMINATOR);
        rejected(msg().word(1).word(0).segment(1, 4, 0).word(7).toBytes(), Rule.BAD_DISCRIMINATOR);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 113, 0xfffffffeL})
    void readPositionNotMultipleOfFourIsAnsweredWithErrChunk(long position) {
        rejected(msg().word(1).word(position).segment(1, 4, 0).word(0).word(0).word(0).zeros(256).toBytes(),
                Rule.READ_POSITION_UNALIGNED);
    }

    @Test
    void chunkWithoutSegmentsIsAnsweredWithErrChunk() {
        rejected(msg().word(0).word(1).word(0).word(0).word(0).toBytes(), Rule.EMPTY_CHUNK);
        rejected(msg().word(0).word(0).word(1).word(0).toBytes(), Rule.EMPTY_CHUNK);
    }

    @Test
    void segmentCountPastTheLimitIsRefusedBeforeItIsUsed() {
        Xdr seventeen = msg().word(0).word(1).word(17);
        for (int i = 0; i < 17; i++) {
            seventeen.segment(i, 4, i);
        }
        rejected(seventeen.word(0).word(0).toBytes(), Rule.TOO_MANY_SEGMENTS);
        // A huge count with no bytes behind it: refused on the count, nothing sized from it.
        rejected(msg().word(0).word(1).word(0xffffffffL).toBytes(), Rule.TOO_MANY_SEGMENTS);
        rejected(msg().word(0).word(0).word(1).word(0x80000000L).toBytes(), Rule.TOO_MANY_SEGMENTS);
    }

    @Test
    void readChunkWithMoreSegmentsThanTheLimitIsAnsweredWithErrChunk() {
        RpcRdmaHeaderFlyweight strict = new RpcRdmaHeaderFlyweight(new DecodeLimits(2, 8, 8));
        Xdr threeAtOnePosition = msg();
        for (int i = 0; i < 3; i++) {
            threeAtOnePosition.word(1).word(4).segment(i, 4, i);
        }
        rejected(strict, threeAtOnePosition.word(0).word(0).word(0).zeros(4).toBytes(), Rule.TOO_MANY_SEGMENTS);
    }

    @Test
    void readListLongerThanTheLimitsAllowIsRefusedWhileWalking() {
        RpcRdmaHeaderFlyweight strict = new RpcRdmaHeaderFlyweight(new DecodeLimits(1, 2, 8));
        Xdr list = msg();
        for (int i = 0; i < 3; i++) {
            list.word(1).word(4L * i).segment(i, 4, i);
        }
        rejected(strict, list.word(0).word(0).word(0).zeros(16).toBytes(), Rule.TOO_MANY_SEGMENTS);
    }

    @Test
    void moreReadChunksThanTheLimitIsAnsweredWithErrChunk() {
        RpcRdmaHeaderFlyweight strict = new RpcRdmaHeaderFlyweight(new DecodeLimits(16, 2, 8));
        Xdr list = msg();
        for (int i = 0; i < 3; i++) {
            list.word(1).word(8L * (i + 1)).segment(i, 4, i);
        }
        rejected(strict, list.word(0).word(0).word(0).zeros(64).toBytes(), Rule.TOO_MANY_READ_CHUNKS);
    }

    @Test
    void moreWriteChunksThanTheLimitIsAnsweredWithErrChunk() {
        Xdr list = msg().word(0);
        for (int i = 0; i < DecodeLimits.DEFAULT.maxWriteChunks() + 1; i++) {
            list.word(1).word(1).segment(i, 4, i);
        }
        rejected(list.word(0).word(0).toBytes(), Rule.TOO_MANY_WRITE_CHUNKS);
    }

    @Test
    void nomsgWithoutChunksIsAnsweredWithErrChunk() {
        rejected(Xdr.words(XID, 1, 128, 1, 0, 0, 0).toBytes(), Rule.NOMSG_WITHOUT_CHUNKS);
    }

    @Test
    void readChunkPastTheInlineMessageIsAnsweredWithErrChunk() throws RpcRdmaDecodeException {
        // A chunk may sit right at the end of the inline part (an NFSv3 WRITE's data is last) ...
        byte[] atEnd = msg().word(1).word(112).segment(1, 5000, 0).word(0).word(0).word(0).zeros(112).toBytes();
        assertThat(view.wrap(ByteBuffer.wrap(atEnd), 0, atEnd.length).payloadLength()).isEqualTo(112);
        // ... but not beyond it.
        rejected(msg().word(1).word(116).segment(1, 5000, 0).word(0).word(0).word(0).zeros(112).toBytes(),
                Rule.READ_CHUNK_OUTSIDE_MESSAGE);
    }

    @Test
    void laterReadChunkPositionsCountThePaddedChunksBeforeThem() throws RpcRdmaDecodeException {
        // 40 inline bytes; a 5-byte chunk at 8 takes 8 stream bytes, so the next chunk may sit at
        // stream position 40 + 8 = 48 at the latest.
        byte[] fits = msg().word(1).word(8).segment(1, 5, 0).word(1).word(48).segment(2, 4, 0)
                .word(0).word(0).word(0).zeros(40).toBytes();
        assertThat(view.wrap(ByteBuffer.wrap(fits), 0, fits.length).readSegmentCount()).isEqualTo(2);
        rejected(msg().word(1).word(8).segment(1, 5, 0).word(1).word(52).segment(2, 4, 0)
                .word(0).word(0).word(0).zeros(40).toBytes(), Rule.READ_CHUNK_OUTSIDE_MESSAGE);
    }

    @Test
    void readChunkPastThePositionZeroChunkIsAnsweredWithErrChunk() throws RpcRdmaDecodeException {
        // RDMA_NOMSG: the message is the 100-byte Position-zero chunk; nothing is inline.
        byte[] fits = Xdr.words(XID, 1, 128, 1).word(1).word(0).segment(1, 100, 0)
                .word(1).word(100).segment(2, 4000, 0).word(0).word(0).word(0).toBytes();
        assertThat(view.wrap(ByteBuffer.wrap(fits), 0, fits.length).readSegmentCount()).isEqualTo(2);
        rejected(Xdr.words(XID, 1, 128, 1).word(1).word(0).segment(1, 100, 0)
                .word(1).word(104).segment(2, 4000, 0).word(0).word(0).word(0).toBytes(),
                Rule.READ_CHUNK_OUTSIDE_MESSAGE);
    }

    @Test
    void overlappingReadChunksAreAnsweredWithErrChunk() {
        // The chunk at 8 has 6 bytes and so covers stream bytes 8..15 with its pad; one at 12 overlaps.
        rejected(msg().word(1).word(8).segment(1, 6, 0).word(1).word(12).segment(2, 4, 0)
                .word(0).word(0).word(0).zeros(64).toBytes(), Rule.READ_CHUNKS_OVERLAP);
        // Listed in the other order: chunks are compared in position order.
        rejected(msg().word(1).word(12).segment(2, 4, 0).word(1).word(8).segment(1, 6, 0)
                .word(0).word(0).word(0).zeros(64).toBytes(), Rule.READ_CHUNKS_OVERLAP);
    }

    @Test
    void everyRuleHasADistinctIdAndAnAction() {
        assertThat(Arrays.stream(Rule.values()).map(Rule::id).distinct().count()).isEqualTo(Rule.values().length);
        for (Rule rule : Rule.values()) {
            assertThat(rule.id()).matches("[a-z0-9-]+");
            assertThat(rule.source()).isNotBlank();
        }
        assertThat(Rule.NO_XID.action()).isEqualTo(Action.DROP);
        assertThat(Rule.RDMA_DONE.action()).isEqualTo(Action.DROP);
        assertThat(Rule.BAD_RDMA_ERROR.action()).isEqualTo(Action.DROP);
        assertThat(Rule.BAD_VERSION.action()).isEqualTo(Action.ERR_VERS);
    }

    @Test
    void rangeOutsideTheBufferIsAProgrammingError() {
        assertThatThrownBy(() -> view.wrap(ByteBuffer.allocate(8), 4, 8)).isInstanceOf(IndexOutOfBoundsException.class);
        // The limit bounds the message, not the capacity behind it.
        ByteBuffer limited = ByteBuffer.allocate(LINUX_NULL_CALL.length + 16).put(LINUX_NULL_CALL).flip();
        assertThatThrownBy(() -> view.wrap(limited, 0, LINUX_NULL_CALL.length + 16))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertRecovers(view);
    }
}
