package org.rpcrdma4j.testbed.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.rpcrdma4j.efa.device.udp.SrdFrameDecodeException;
import org.rpcrdma4j.efa.device.udp.SrdFrameHeader;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.testbed.cli.HexLinesCommand.Decoded;
import org.rpcrdma4j.testbed.trace.PcapReader;
import org.rpcrdma4j.testbed.trace.TruncatedCaptureException;
import org.rpcrdma4j.testbed.trace.UdpDatagram;

/**
 * {@code decode efa --pcap}: every UDP datagram of captures of the UDP device's traffic, as one JSON object
 * with its frame, time and addresses, its {@code SrdFrame} headers ({@link SrdFrameHeader}) and, on a
 * SEND, the EFA RDM packet it carries as {@code decode efa} prints one. Frames are printed as they are
 * read, so a capture of any size goes through in constant memory.
 */
final class UdpDeviceCaptures {

    private final PacketDecoder decoder;
    private final PrintWriter out;
    private final CaptureFiles files;
    private boolean allDecoded = true;

    UdpDeviceCaptures(PacketDecoder decoder, PrintWriter out, CaptureFiles files) {
        this.decoder = decoder;
        this.out = out;
        this.files = files;
    }

    /** Prints the datagrams of one capture, and reports it to {@link CaptureFiles} if it cannot be read whole. */
    void decode(Path capture) {
        String trace = capture.getFileName().toString();
        try (InputStream in = Files.newInputStream(capture)) {
            PcapReader.read(in, frame -> {
                UdpDatagram datagram = UdpDatagram.parse(frame);
                if (datagram != null) {
                    Decoded decoded = describe(trace, datagram);
                    allDecoded &= decoded.ok();
                    out.println(decoded.json());
                }
            });
        } catch (TruncatedCaptureException e) {
            out.flush();
            files.cutShort(capture, e);
        } catch (IOException e) {
            out.flush();
            files.cannotRead(capture, e);
        }
        out.flush();
    }

    /** @return whether every datagram printed so far decoded, EFA packet included */
    boolean allDecoded() {
        return allDecoded;
    }

    private Decoded describe(String trace, UdpDatagram datagram) {
        Json json = new Json().beginObject().name("trace").value(trace).name("frame").value(datagram.frame())
                .name("time").value(datagram.time() == null ? null : datagram.time().toString())
                .name("source").value(datagram.sourceAddress())
                .name("destination").value(datagram.destinationAddress())
                .name("length").value(datagram.length());
        if (datagram.fragmented()) {
            return error(json, "ip-fragment", "the datagram was split into IP fragments, which this does not put "
                    + "together");
        }
        if (!datagram.whole()) {
            return error(json, "captured-short", "the capture holds " + (datagram.to() - datagram.from()) + " of its "
                    + datagram.length() + " bytes (the capture's snapshot length)");
        }
        ByteBuffer buffer = ByteBuffer.wrap(datagram.bytes());
        SrdFrameHeader srd;
        try {
            srd = SrdFrameHeader.decode(buffer, datagram.from(), datagram.length());
        } catch (SrdFrameDecodeException e) {
            return error(json, e.rule().id(), e.getMessage());
        }
        srdFields(json.name("srd").beginObject(), srd).endObject();
        if (!srd.carriesPacket()) {
            return Decoded.good(json.endObject().toString());
        }
        Decoded packet = DecodeEfaCommand.describe(decoder, buffer, datagram.from() + SrdFrameHeader.PAYLOAD_OFFSET,
                srd.payloadLength());
        json.name("packet").raw(packet.json()).endObject();
        return new Decoded(json.toString(), packet.ok());
    }

    private static Decoded error(Json json, String id, String message) {
        return Decoded.bad(json.name("error").value(id).name("message").value(message).endObject().toString());
    }

    /** The fields each type and operation carries (SrdFrame's Javadoc); the others are zero on the wire. */
    private static Json srdFields(Json json, SrdFrameHeader srd) {
        json.name("type").value(srd.type().name()).name("flags").value(srd.flags())
                .name("destQkey").value(srd.destQkey()).name("srcQkey").value(srd.srcQkey());
        if (srd.type() == SrdFrameHeader.Type.DATA) {
            json.name("stream").value(srd.stream()).name("psn").value(srd.psn())
                    .name("op").value(srd.op().name()).name("token").unsignedValue(srd.token());
            switch (srd.op()) {
                case READ_REQUEST -> json.name("rkey").value(srd.rkey()).name("address").unsignedValue(srd.address())
                        .name("total").unsignedValue(srd.total());
                case WRITE -> json.name("rkey").value(srd.rkey()).name("address").unsignedValue(srd.address())
                        .name("total").unsignedValue(srd.total()).name("offset").unsignedValue(srd.offset());
                case READ_RESPONSE -> json.name("total").unsignedValue(srd.total())
                        .name("offset").unsignedValue(srd.offset());
                case RESULT -> json.name("status").value(srd.status().name());
                default -> {
                    // SEND and NOP: the token and the payload only
                }
            }
            json.name("payloadLength").value(srd.payloadLength());
        }
        if (srd.hasAck()) {
            json.name("ackStream").value(srd.ackStream()).name("ackPsn").value(srd.ackPsn())
                    .name("sack").value(String.format("%016x", srd.sack()));
        }
        return json;
    }
}
