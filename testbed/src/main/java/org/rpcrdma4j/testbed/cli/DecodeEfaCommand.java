package org.rpcrdma4j.testbed.cli;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.FieldVisitor;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.efa.wire.PacketFields;
import picocli.CommandLine.Command;

/**
 * {@code testbed decode efa}: decodes EFA RDM protocol v4 packets, one hex line each, with the strict
 * decoder, and prints their fields under the libfabric provider's wire names.
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
                    + "read (1 with --strict if a line did not decode), 2 if it cannot be read."
        })
public final class DecodeEfaCommand extends HexLinesCommand {

    private final PacketDecoder decoder = new PacketDecoder();

    @Override
    Decoded decodeLine(String line) {
        byte[] bytes;
        try {
            bytes = Hex.parse(line);
        } catch (IllegalArgumentException e) {
            return Decoded.bad(error("hex", e.getMessage()));
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        DecodedPacket packet;
        try {
            packet = decoder.decode(buffer, 0, bytes.length);
        } catch (PacketDecodeException e) {
            return Decoded.bad(error(e.error().id(), e.getMessage()));
        }
        Json json = new Json().beginObject()
                .name("type").value(packet.type().name())
                .name("typeId").value(packet.type().id())
                .name("version").value(new BaseHeaderFlyweight().wrap(buffer, 0).version())
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
