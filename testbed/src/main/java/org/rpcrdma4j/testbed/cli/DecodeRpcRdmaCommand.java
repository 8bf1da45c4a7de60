package org.rpcrdma4j.testbed.cli;

import java.util.List;
import org.rpcrdma4j.xdr.DecodedHeader;
import org.rpcrdma4j.xdr.ErrorCode;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;
import picocli.CommandLine.Command;

/**
 * {@code testbed decode rpcrdma}: decodes RPC-over-RDMA Version One messages, one hex line each, with the
 * strict decoder, and prints the header or the answer a responder would give.
 */
@Command(
        name = "rpcrdma",
        mixinStandardHelpOptions = true,
        description = {
            "Decode RPC-over-RDMA Version One messages (RFC 8166) read from stdin as hex, one RDMA Send payload "
                    + "per line (header, optionally followed by the RPC message); blank lines and lines starting "
                    + "with '#' are skipped. Prints one JSON object per line:",
            "  the header: {\"xid\":N,\"vers\":N,\"credits\":N,\"proc\":\"RDMA_MSG\",\"reads\":[...],\"writes\":[[...]],"
                    + "\"reply\":[...]|null,\"headerLength\":N,\"payloadLength\":N} (RDMA_ERROR adds \"error\", \"low\", \"high\");",
            "  or the answer a responder gives to a bad one: {\"reject\":\"ERR_VERS|ERR_CHUNK|DROP\",\"rule\":ID,\"message\":TEXT};",
            "  or {\"error\":\"hex\",\"message\":TEXT} for a line that is not hex.",
            "All integers are unsigned decimal. Exits 0 once stdin has been read (1 with --strict if a line was "
                    + "rejected or not hex), 2 if it cannot be read."
        })
public final class DecodeRpcRdmaCommand extends HexLinesCommand {

    private final HeaderDecoder decoder = new HeaderDecoder();

    @Override
    Decoded decodeLine(String line) {
        byte[] message;
        try {
            message = Hex.parse(line);
        } catch (IllegalArgumentException e) {
            return Decoded.bad(new Json().beginObject().name("error").value("hex").name("message").value(e.getMessage())
                    .endObject().toString());
        }
        try {
            return Decoded.good(toJson(decoder.decode(message)));
        } catch (RpcRdmaDecodeException e) {
            return Decoded.bad(reject(e));
        }
    }

    /**
     * Decodes one RPC-over-RDMA message into its JSON object: the header, or the answer a responder
     * gives to a bad one.
     *
     * @param decoder the strict decoder
     * @param message the RDMA Send payload
     * @return one JSON object
     */
    static String describe(HeaderDecoder decoder, byte[] message) {
        try {
            return toJson(decoder.decode(message));
        } catch (RpcRdmaDecodeException e) {
            return reject(e);
        }
    }

    private static String reject(RpcRdmaDecodeException e) {
        return new Json().beginObject().name("reject").value(e.action().name()).name("rule").value(e.rule().id())
                .name("message").value(e.getMessage()).endObject().toString();
    }

    private static String toJson(DecodedHeader decoded) {
        RpcRdmaHeader h = decoded.header();
        Json json = new Json().beginObject()
                .name("xid").value(h.unsignedXid())
                .name("vers").value(Integer.toUnsignedLong(h.vers()))
                .name("credits").value(h.unsignedCredits())
                .name("proc").value(h.proc().name());
        json.name("reads").beginArray();
        for (ReadSegment read : h.readList()) {
            json.beginObject().name("position").value(read.unsignedPosition());
            segmentFields(json, read.segment()).endObject();
        }
        json.endArray().name("writes").beginArray();
        for (WriteChunk chunk : h.writeList()) {
            segments(json, chunk.segments());
        }
        json.endArray().name("reply");
        if (h.replyChunk() == null) {
            json.nullValue();
        } else {
            segments(json, h.replyChunk().segments());
        }
        json.name("headerLength").value(decoded.headerLength()).name("payloadLength").value(decoded.payloadLength());
        RdmaError error = h.error();
        if (error != null) {
            json.name("error").value(error.code().name());
            if (error.code() == ErrorCode.ERR_VERS) {
                json.name("low").value(Integer.toUnsignedLong(error.low()))
                        .name("high").value(Integer.toUnsignedLong(error.high()));
            }
        }
        return json.endObject().toString();
    }

    private static void segments(Json json, List<Segment> segments) {
        json.beginArray();
        for (Segment segment : segments) {
            segmentFields(json.beginObject(), segment).endObject();
        }
        json.endArray();
    }

    private static Json segmentFields(Json json, Segment segment) {
        return json.name("handle").value(segment.unsignedHandle())
                .name("length").value(segment.unsignedLength())
                .name("offset").unsignedValue(segment.offset());
    }
}
