package org.rpcrdma4j.testbed.cli;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.FieldVisitor;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.efa.wire.PacketFields;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code testbed decode efa}: decodes EFA RDM protocol v4 packets, one hex line each, with the strict
 * decoder, and prints their fields under the libfabric provider's wire names; with {@code --pcap}, the
 * datagrams of captures of the UDP device's traffic ({@link UdpDeviceCaptures}), and the packets they carry.
 */
@Command(
        name = "efa",
        mixinStandardHelpOptions = true,
        description = {
            "Decode EFA RDM protocol v4 packets (the libfabric EFA provider's wire format) read from stdin as hex, "
                    + "one packet per line; blank lines and lines starting with '#' are skipped. Prints one JSON "
                    + "object per line:",
            "  {\"type\":\"EAGER_RTW\",\"typeId\":70,\"version\":4,\"flags\":N,\"fields\":{...},\"headerLength\":N,"
                    + "\"payloadLength\":N}, where fields uses the provider's wire names (msg_id, rma_iov, "
                    + "opt_raw_addr, opt_cq_data, opt_connid, extra_info, ...) and headerLength includes the "
                    + "optional headers but not read_iov;",
            "  or {\"error\":ID,\"message\":TEXT} for a packet that breaks a rule (ID is truncated, bad-version, "
                    + "unknown-type, nextra-p3, iov-count, ...) or a line that is not hex (ID hex).",
            "Integers are unsigned decimal, gid and other raw bytes lowercase hex. Exits 0 once stdin has been "
                    + "read (1 with --strict if a line did not decode), 2 if it cannot be read.",
            "With --pcap, reads no stdin but captures of the udp device's traffic (pcap or pcapng; Ethernet, or "
                    + "Linux cooked from 'tcpdump -i any'), e.g. 'dumpcap -i lo -f \"udp port 20049\" -w f.pcapng', "
                    + "and prints one JSON object per UDP datagram:",
            "  {\"trace\":FILE,\"frame\":N,\"time\":ISO-8601,\"source\":\"IP:PORT\",\"destination\":\"IP:PORT\","
                    + "\"length\":N,\"srd\":{...},\"packet\":{...}}, where srd is the device's framing: type (DATA, "
                    + "ACK, PROBE), flags, destQkey, srcQkey; DATA: stream, psn, op (SEND, READ_REQUEST, "
                    + "READ_RESPONSE, WRITE, RESULT, NOP), token and the op's fields (rkey, address, total, offset; "
                    + "RESULT: status, e.g. REMOTE_ERROR_RNR), payloadLength; with an acknowledgement: ackStream, "
                    + "ackPsn and sack (hex; bit i: PSN ackPsn+1+i arrived). packet, on a SEND only, is its EFA "
                    + "packet as printed from hex.",
            "  A datagram that is not a frame of the device breaks a rule: {...\"length\":N,\"error\":ID,"
                    + "\"message\":TEXT} (ID truncated, bad-magic, bad-version, unknown-type, no-ack, payload-length, "
                    + "unknown-op, unknown-status, segment-range; captured-short or ip-fragment when the capture does "
                    + "not hold it whole). Frames that are not UDP over IPv4 are skipped. A capture that cannot be "
                    + "read, or is cut short, is reported as by 'decode pcap', and makes the exit code 2; with --strict, a "
                    + "datagram or packet that did not decode makes it 1."
        })
public final class DecodeEfaCommand extends HexLinesCommand {

    private final PacketDecoder decoder = new PacketDecoder();

    @Option(names = "--pcap", paramLabel = "CAPTURE", arity = "1..*",
            description = "Decode the datagrams of these captures of the udp device's traffic instead of hex from "
                    + "stdin.")
    private List<Path> captures;

    @Override
    public Integer call() {
        if (captures == null) {
            return super.call();
        }
        CaptureFiles files = new CaptureFiles(spec().commandLine().getErr());
        UdpDeviceCaptures datagrams = new UdpDeviceCaptures(decoder, spec().commandLine().getOut(), files);
        captures.forEach(datagrams::decode);
        return files.troubled() ? 2 : strict() && !datagrams.allDecoded() ? 1 : 0;
    }

    @Override
    Decoded decodeLine(String line) {
        byte[] bytes;
        try {
            bytes = Hex.parse(line);
        } catch (IllegalArgumentException e) {
            return Decoded.bad(error("hex", e.getMessage()));
        }
        return describe(decoder, ByteBuffer.wrap(bytes), 0, bytes.length);
    }

    /**
     * Decodes one EFA RDM packet.
     *
     * @param decoder the decoder
     * @param buffer  holds the packet
     * @param offset  index of its first byte
     * @param length  its length
     * @return its fields, or the rule it broke, as one JSON object
     */
    static Decoded describe(PacketDecoder decoder, ByteBuffer buffer, int offset, int length) {
        DecodedPacket packet;
        try {
            packet = decoder.decode(buffer, offset, length);
        } catch (PacketDecodeException e) {
            return Decoded.bad(error(e.error().id(), e.getMessage()));
        }
        Json json = new Json().beginObject()
                .name("type").value(packet.type().name())
                .name("typeId").value(packet.type().id())
                .name("version").value(new BaseHeaderFlyweight().wrap(buffer, offset).version())
                .name("flags").value(packet.flags())
                .name("fields").beginObject();
        PacketFields.visit(buffer, packet, new JsonFields(json));
        return Decoded.good(json.endObject()
                .name("headerLength").value(packet.headerLength())
                .name("payloadLength").value(packet.payloadLength())
                .endObject().toString());
    }

    private static String error(String id, String message) {
        return new Json().beginObject().name("error").value(id).name("message").value(message).endObject().toString();
    }

    /** Writes the fields {@link PacketFields} reports as JSON members. */
    private record JsonFields(Json json) implements FieldVisitor {

        @Override
        public void onInteger(String name, long value) {
            named(name).unsignedValue(value);
        }

        @Override
        public void onBytes(String name, ByteBuffer buffer, int offset, int length) {
            byte[] bytes = new byte[length];
            buffer.get(offset, bytes);
            named(name).value(HexFormat.of().formatHex(bytes));
        }

        @Override
        public void onObjectStart(String name) {
            named(name).beginObject();
        }

        @Override
        public void onObjectEnd() {
            json.endObject();
        }

        @Override
        public void onArrayStart(String name) {
            named(name).beginArray();
        }

        @Override
        public void onArrayEnd() {
            json.endArray();
        }

        private Json named(String name) {
            return name == null ? json : json.name(name);
        }
    }
}
