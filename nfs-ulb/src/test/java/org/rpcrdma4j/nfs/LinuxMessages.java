package org.rpcrdma4j.nfs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.rpcrdma4j.transport.DdpPolicy.RpcMessage;
import org.rpcrdma4j.transport.DdpPolicy.RpcProcedure;
import org.rpcrdma4j.xdr.DecodedHeader;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.ReadChunk;
import org.rpcrdma4j.xdr.ReducedStream;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.XdrItem;

/** Test helper: Linux messages from vectors/linux (see its README), with their RPC messages rebuilt. */
public final class LinuxMessages {

    private LinuxMessages() {
    }

    /**
     * A Linux message: its transport header and the RPC message rebuilt with zeros for Read-chunk data.
     *
     * @param header the decoded transport header
     * @param rpc    the RPC message as the sender encoded it
     */
    public record Message(DecodedHeader header, byte[] rpc) {

        /** @return program, version and procedure of a call */
        public RpcProcedure procedure() {
            XdrCursor cursor = new XdrCursor(rpc, 12, rpc.length);
            return new RpcProcedure(cursor.int32(), cursor.int32(), cursor.int32());
        }

        /** @return the call with its body: after xid, type, rpcvers, prog, vers, proc, cred and verf */
        public RpcMessage call() {
            XdrCursor cursor = new XdrCursor(rpc, 24, rpc.length);
            cursor.int32();
            cursor.opaque(400);
            cursor.int32();
            cursor.opaque(400);
            return new RpcMessage(rpc, cursor.position());
        }
    }

    /**
     * @param rpc an accepted reply
     * @return it with its body: after xid, type, reply_stat, verf and accept_stat
     */
    public static RpcMessage reply(byte[] rpc) {
        XdrCursor cursor = new XdrCursor(rpc, 12, rpc.length);
        cursor.int32();
        cursor.opaque(400);
        cursor.int32();
        return new RpcMessage(rpc, cursor.position());
    }

    /**
     * @param resource the TSV under /vectors/linux/
     * @param trace    the trace name
     * @param frame    the frame that completed the Send
     * @return the message
     */
    public static Message load(String resource, String trace, int frame) throws IOException, RpcRdmaDecodeException {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                LinuxMessages.class.getResourceAsStream("/vectors/linux/" + resource), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] f = line.split("\t");
                if (f[0].equals(trace) && f[1].equals(Integer.toString(frame))) {
                    byte[] send = HexFormat.of().parseHex(f[12]);
                    DecodedHeader header = new HeaderDecoder().decode(send);
                    return new Message(header, rebuild(header, send));
                }
            }
        }
        throw new AssertionError(trace + " frame " + frame + " is not in " + resource);
    }

    /** The RPC message the sender encoded: the inline part with each Read chunk's bytes (zeros) put back. */
    private static byte[] rebuild(DecodedHeader header, byte[] send) {
        List<XdrItem> chunks = new ArrayList<>();
        for (ReadChunk chunk : header.header().readChunks()) {
            chunks.add(new XdrItem(chunk.unsignedPosition(), chunk.length()));
        }
        ReducedStream stream = ReducedStream.expand(header.payloadLength(), chunks);
        byte[] rpc = new byte[(int) stream.streamLength()];
        for (ReducedStream.Region region : stream.regions()) {
            if (region.kind() == ReducedStream.Kind.INLINE) {
                System.arraycopy(send, header.payloadOffset() + (int) region.inlineOffset(), rpc,
                        (int) region.streamOffset(), (int) region.length());
            }
        }
        return rpc;
    }
}
