package org.rpcrdma4j.nfs.v3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.nfs.XdrCursor;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy.ReplySize;
import org.rpcrdma4j.transport.DdpPolicy.RpcMessage;
import org.rpcrdma4j.transport.DdpPolicy.RpcProcedure;
import org.rpcrdma4j.xdr.DecodedHeader;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.ReadChunk;
import org.rpcrdma4j.xdr.ReducedStream;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The NFSv3 binding against what the Linux 6.1 client put on the wire (vectors/linux/README.md): the
 * policy must find the DDP-eligible items exactly where Linux placed its Read chunks, and ask for the
 * chunks Linux asked for.
 */
class Nfs3DdpPolicyTest {

    private static final int LINUX_INLINE_THRESHOLD = 4096;

    private final DdpPolicy policy = new NfsDdpPolicy();

    /** A Linux message: its transport header and the RPC message rebuilt with zeros for chunk data. */
    private record Message(DecodedHeader header, byte[] rpc) {
        RpcProcedure procedure() {
            XdrCursor cursor = new XdrCursor(rpc, 12, rpc.length);
            return new RpcProcedure(cursor.int32(), cursor.int32(), cursor.int32());
        }
    }

    private static Message linux(String trace, int frame) throws IOException, RpcRdmaDecodeException {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                Nfs3DdpPolicyTest.class.getResourceAsStream("/vectors/linux/nfs3-messages.tsv"), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] f = line.split("\t");
                if (f[0].equals(trace) && f[1].equals(Integer.toString(frame))) {
                    byte[] send = HexFormat.of().parseHex(f[12]);
                    DecodedHeader header = new HeaderDecoder().decode(send);
                    return new Message(header, rebuild(header, send));
                }
            }
        }
        throw new AssertionError(trace + " frame " + frame + " is not in the vectors");
    }

    /** The RPC message Linux encoded: the inline part with each Read chunk's bytes (zeros) put back. */
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

    /** Where the arguments of a call begin: after xid, type, rpcvers, prog, vers, proc, cred and verf. */
    private static int callBody(byte[] rpc) {
        XdrCursor cursor = new XdrCursor(rpc, 24, rpc.length);
        cursor.int32();
        cursor.opaque(400);
        cursor.int32();
        cursor.opaque(400);
        return cursor.position();
    }

    /** Where the results of an accepted reply begin: after xid, type, reply_stat, verf and accept_stat. */
    private static int replyBody(byte[] rpc) {
        XdrCursor cursor = new XdrCursor(rpc, 12, rpc.length);
        cursor.int32();
        cursor.opaque(400);
        cursor.int32();
        return cursor.position();
    }

    private static RpcMessage call(Message message) {
        return new RpcMessage(message.rpc(), callBody(message.rpc()));
    }

    @Test
    void writeDataIsWhereLinuxPutItsReadChunk() throws Exception {
        for (Message m : List.of(linux("v3-write-default", 82), linux("v3-inline1k", 398))) {
            ReadChunk linuxChunk = m.header().header().readChunks().get(0);

            List<XdrItem> items = policy.callPayloads(m.procedure(), call(m));

            assertThat(m.procedure().procedure()).isEqualTo(Nfs3DdpPolicy.WRITE);
            assertThat(items).containsExactly(new XdrItem(linuxChunk.unsignedPosition(), linuxChunk.length()));
            assertThat(ReducedStream.reduce(m.rpc().length, items).inlineLength()).isEqualTo(m.header().payloadLength());
        }
    }

    @Test
    void symlinkTargetIsWhereLinuxPutItsReadChunk() throws Exception {
        for (Message m : List.of(linux("v3-small", 243), linux("v3-inline1k", 236))) {
            ReadChunk linuxChunk = m.header().header().readChunks().get(0);

            assertThat(m.procedure().procedure()).isEqualTo(Nfs3DdpPolicy.SYMLINK);
            assertThat(policy.callPayloads(m.procedure(), call(m)))
                    .containsExactly(new XdrItem(linuxChunk.unsignedPosition(), linuxChunk.length()));
        }
    }

    @Test
    void readAsksForTheWriteChunkLinuxProvided() throws Exception {
        for (Message m : List.of(linux("v3-read", 68), linux("v3-inline1k", 726))) {
            ReplySize size = policy.replySize(m.procedure(), call(m));

            assertThat(size.payloadMaxLengths()).containsExactly(m.header().header().writeList().get(0).length());
            assertThat(size.maxLength()).isGreaterThan(LINUX_INLINE_THRESHOLD);
            assertThat(policy.callPayloads(m.procedure(), call(m))).isEmpty();
        }
    }

    @Test
    void readlinkAndReaddirplusAskForAReplyChunkAsLinuxDid() throws Exception {
        for (Message m : List.of(linux("v3-small", 290), linux("v3-small", 70))) {
            ReplySize size = policy.replySize(m.procedure(), call(m));

            assertThat(m.header().header().hasReplyChunk()).isTrue();
            assertThat(size.payloadMaxLengths()).isEmpty();
            assertThat(size.maxLength()).isGreaterThan(LINUX_INLINE_THRESHOLD);
        }
    }

    @Test
    void nullNeedsNoChunk() throws Exception {
        Message m = linux("v3-small", 28);

        assertThat(policy.callPayloads(m.procedure(), call(m))).isEmpty();
        assertThat(policy.replySize(m.procedure(), call(m))).isEqualTo(ReplySize.INLINE);
    }

    @Test
    void readResultDataIsWhatLinuxWroteIntoTheWriteChunk() throws Exception {
        Message callMessage = linux("v3-read", 68);
        Message reply = linux("v3-read", 338);
        long written = reply.header().header().writeList().get(0).length();
        // The Send holds the reply up to the data's length word; the data went in the Write chunk.
        byte[] rpc = ByteBuffer.allocate(reply.rpc().length + (int) written).put(reply.rpc()).array();

        List<XdrItem> items = policy.replyPayloads(callMessage.procedure(), call(callMessage),
                new RpcMessage(rpc, replyBody(rpc)));

        assertThat(items).containsExactly(new XdrItem(reply.header().payloadLength(), written));
    }

    @Test
    void anErrorResultHasNoPayload() {
        // xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS, then NFS3ERR_IO and an absent post_op_attr.
        byte[] rpc = ByteBuffer.allocate(32).putInt(1).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0)
                .putInt(5).putInt(0).array();

        assertThat(policy.replyPayloads(new RpcProcedure(100003, 3, Nfs3DdpPolicy.READ), new RpcMessage(rpc, 0),
                new RpcMessage(rpc, replyBody(rpc)))).isEmpty();
    }

    @Test
    void otherProgramsAndVersionsMoveNothing() throws Exception {
        Message m = linux("v3-write-default", 82);
        RpcProcedure nfsacl = new RpcProcedure(100227, 3, Nfs3DdpPolicy.WRITE);
        RpcProcedure v4 = new RpcProcedure(100003, 4, 1);

        assertThat(policy.callPayloads(nfsacl, call(m))).isEmpty();
        assertThat(policy.callPayloads(v4, call(m))).isEmpty();
    }

    @Test
    void aMessageThatDoesNotParseIsRefused() {
        byte[] truncated = ByteBuffer.allocate(8).putInt(100).putInt(0).array();   // a 100-byte handle, 4 bytes

        assertThatThrownBy(() -> policy.callPayloads(new RpcProcedure(100003, 3, Nfs3DdpPolicy.WRITE),
                new RpcMessage(truncated, 0))).isInstanceOf(IllegalArgumentException.class);
    }
}
