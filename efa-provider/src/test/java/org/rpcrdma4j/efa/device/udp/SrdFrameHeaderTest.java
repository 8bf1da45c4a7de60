package org.rpcrdma4j.efa.device.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.udp.SrdFrameDecodeException.Rule;

/**
 * {@link SrdFrameHeader} reads what {@link SrdFrame}'s writers, the ones the device sends with, wrote; and at an
 * offset into a larger buffer, as a capture holds a datagram. The rules a datagram can break are checked one by
 * one in the testbed's {@code DecodeEfaCaptureTest}, through {@code decode efa --pcap}.
 */
class SrdFrameHeaderTest {

    private static final int AT = 14;

    @Test
    void aWriteWithAnAcknowledgementReadsAsWritten() throws Exception {
        ByteBuffer frame = SrdFrame.le(ByteBuffer.allocate(SrdFrame.DATA_HEADER_LENGTH + 100));
        SrdFrame.writeHeader(frame, SrdFrame.TYPE_DATA, -2, 7, 0x80000001, 12);
        SrdFrame.writeOperation(frame, SrdFrame.OP_WRITE, 0, 0xCAFE, -1L, 1L << 63, 4096, 3996, 100);
        SrdFrame.writeAck(frame, 9, 33, 0b101);

        SrdFrameHeader header = SrdFrameHeader.decode(atOffset(frame), AT, frame.capacity());

        assertThat(header).isEqualTo(new SrdFrameHeader(SrdFrameHeader.Type.DATA, SrdFrame.HAS_ACK_FLAG, 0xFFFFFFFEL,
                7, 0x80000001L, 12, 9, 33, 0b101, SrdFrameHeader.Operation.WRITE, null, 0xCAFE, -1L, 1L << 63, 4096,
                3996, 100));
        assertThat(header.hasAck()).isTrue();
        assertThat(header.carriesPacket()).isFalse();
    }

    @Test
    void anRnrResultNamesItsStatus() throws Exception {
        ByteBuffer frame = SrdFrame.le(ByteBuffer.allocate(SrdFrame.DATA_HEADER_LENGTH));
        SrdFrame.writeHeader(frame, SrdFrame.TYPE_DATA, 1, 2, 3, 4);
        SrdFrame.writeOperation(frame, SrdFrame.OP_RESULT, CompletionStatus.REMOTE_ERROR_RNR.value(), 0, 5, 0, 0, 0,
                0);

        SrdFrameHeader header = SrdFrameHeader.decode(atOffset(frame), AT, frame.capacity());

        assertThat(header.op()).isEqualTo(SrdFrameHeader.Operation.RESULT);
        assertThat(header.status()).isEqualTo(CompletionStatus.REMOTE_ERROR_RNR);
        assertThat(header.hasAck()).isFalse();
    }

    @Test
    void aSendCarriesThePacketAfterItsHeaders() throws Exception {
        ByteBuffer frame = SrdFrame.le(ByteBuffer.allocate(SrdFrame.DATA_HEADER_LENGTH + 8));
        SrdFrame.writeHeader(frame, SrdFrame.TYPE_DATA, 1, 2, 3, 4);
        SrdFrame.writeOperation(frame, SrdFrame.OP_SEND, 0, 0, 5, 0, 0, 0, 8);

        SrdFrameHeader header = SrdFrameHeader.decode(atOffset(frame), AT, frame.capacity());

        assertThat(header.carriesPacket()).isTrue();
        assertThat(header.payloadLength()).isEqualTo(8);
        assertThat(SrdFrameHeader.PAYLOAD_OFFSET).isEqualTo(SrdFrame.DATA_HEADER_LENGTH);
    }

    @Test
    void aProbeIsAHeaderAlone() throws Exception {
        ByteBuffer frame = SrdFrame.le(ByteBuffer.allocate(SrdFrame.HEADER_LENGTH));
        SrdFrame.writeHeader(frame, SrdFrame.TYPE_PROBE, 1, 2, 0, 0);

        assertThat(SrdFrameHeader.decode(atOffset(frame), AT, frame.capacity()).type())
                .isEqualTo(SrdFrameHeader.Type.PROBE);
    }

    @Test
    void aDataFrameCutAfterItsTransportHeaderIsTruncated() {
        ByteBuffer frame = SrdFrame.le(ByteBuffer.allocate(SrdFrame.HEADER_LENGTH));
        SrdFrame.writeHeader(frame, SrdFrame.TYPE_DATA, 1, 2, 3, 4);

        assertThatThrownBy(() -> SrdFrameHeader.decode(atOffset(frame), AT, frame.capacity()))
                .isInstanceOfSatisfying(SrdFrameDecodeException.class, e -> assertThat(e.rule())
                        .isEqualTo(Rule.TRUNCATED))
                .hasMessage("DATA frame of 40 bytes is shorter than its 88-byte headers");
    }

    /** @return the frame at {@link #AT} in a buffer with bytes before and after it */
    private static ByteBuffer atOffset(ByteBuffer frame) {
        return ByteBuffer.allocate(AT + frame.capacity() + 10).put(AT, frame, 0, frame.capacity());
    }
}
