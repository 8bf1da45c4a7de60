package org.rpcrdma4j.nfs.v2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.LinuxMessages;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy.ReplySize;
import org.rpcrdma4j.transport.DdpPolicy.RpcMessage;
import org.rpcrdma4j.transport.DdpPolicy.RpcProcedure;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The NFSv2 binding, reached through {@link NfsDdpPolicy}. There are no Linux NFSv2 traces: the Linux
 * NFS/RDMA client supports version 2 in principle, but the shared captures (vectors/linux/README.md)
 * hold none. So the messages here are built by hand from RFC 1094's XDR, with the byte offset of each
 * field in a comment: a call has a 40-byte RPC header (xid, CALL, rpcvers, prog, vers, proc, AUTH_NONE
 * credential and verifier), a reply a 24-byte one (xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier,
 * SUCCESS).
 */
class Nfs2DdpPolicyTest {

    private static final int CALL_HEADER = 40;
    private static final int REPLY_HEADER = 24;
    private static final int GETATTR = 1;

    private final DdpPolicy policy = new NfsDdpPolicy();

    private static RpcProcedure v2(int procedure) {
        return new RpcProcedure(NfsDdpPolicy.PROGRAM, 2, procedure);
    }

    /** A call's RPC header, bytes 0..39, in a buffer with room for the arguments. */
    private static ByteBuffer call(int procedure, int argsLength) {
        return ByteBuffer.allocate(CALL_HEADER + argsLength).putInt(7).putInt(0).putInt(2)
                .putInt(NfsDdpPolicy.PROGRAM).putInt(2).putInt(procedure).putInt(0).putInt(0).putInt(0).putInt(0);
    }

    /** A reply's RPC header, bytes 0..23, in a buffer with room for the results. */
    private static ByteBuffer reply(int resultsLength) {
        return ByteBuffer.allocate(REPLY_HEADER + resultsLength).putInt(7).putInt(1).putInt(0).putInt(0).putInt(0)
                .putInt(0);
    }

    private static RpcMessage message(ByteBuffer call) {
        return new RpcMessage(call.array(), CALL_HEADER);
    }

    /** A string or opaque: length word, bytes, pad to four. */
    private static ByteBuffer putString(ByteBuffer buffer, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        return buffer.putInt(bytes.length).put(bytes).position(buffer.position() + (4 - bytes.length % 4) % 4);
    }

    /** READ arguments: 40..71 file, 72 offset, 76 count, 80 totalcount. */
    private static RpcMessage readCall(int count) {
        return message(call(Nfs2DdpPolicy.READ, 44).put(new byte[32]).putInt(0).putInt(count).putInt(0));
    }

    @Test
    void writeDataIsTheOpaqueAfterTheFourFixedArguments() {
        // 40..71 file, 72 beginoffset, 76 offset, 80 totalcount, 84 data length, 88..92 data, 93..95 pad.
        ByteBuffer call = call(Nfs2DdpPolicy.WRITE, 56).put(new byte[32]).putInt(0).putInt(4096).putInt(0);
        putString(call, "hello");

        assertThat(policy.callPayloads(v2(Nfs2DdpPolicy.WRITE), message(call))).containsExactly(new XdrItem(88, 5));
        assertThat(policy.replySize(v2(Nfs2DdpPolicy.WRITE), message(call))).isEqualTo(ReplySize.INLINE);
    }

    @Test
    void symlinkTargetIsThePathBeforeTheAttributes() {
        // 40..71 from.dir, 72 from.name length, 76..79 "link", 80 to length, 84..92 "/tmp/file", 93..95 pad,
        // 96..127 attributes (sattr).
        ByteBuffer call = call(Nfs2DdpPolicy.SYMLINK, 88).put(new byte[32]);
        putString(call, "link");
        putString(call, "/tmp/file");

        assertThat(policy.callPayloads(v2(Nfs2DdpPolicy.SYMLINK), message(call))).containsExactly(new XdrItem(84, 9));
    }

    @Test
    void readAsksForAWriteChunkOfItsCountAtMostMaxdata() {
        // Reply: 424-byte largest RPC header, status, 68-byte fattr, data length word, data with pad.
        assertThat(policy.replySize(v2(Nfs2DdpPolicy.READ), readCall(8192)))
                .isEqualTo(new ReplySize(424 + 4 + 68 + 4 + 8192, List.of(8192L)));
        assertThat(policy.replySize(v2(Nfs2DdpPolicy.READ), readCall(10)))
                .isEqualTo(new ReplySize(424 + 4 + 68 + 4 + 12, List.of(10L)));
        // The result's data is opaque<MAXDATA>: a larger count cannot get more.
        assertThat(policy.replySize(v2(Nfs2DdpPolicy.READ), readCall(65536)))
                .isEqualTo(new ReplySize(424 + 4 + 68 + 4 + 8192, List.of(8192L)));
        assertThat(policy.callPayloads(v2(Nfs2DdpPolicy.READ), readCall(8192))).isEmpty();
    }

    @Test
    void readResultDataFollowsStatusAndAttributes() {
        // 24 status NFS_OK, 28..95 attributes, 96 data length, 100..104 data, 105..107 pad.
        ByteBuffer whole = reply(84).putInt(0).put(new byte[68]);
        putString(whole, "hello");
        // As a requester has it before splicing: the Send ended at the data's length word.
        byte[] inline = ByteBuffer.allocate(100).put(whole.array(), 0, 100).array();

        List<XdrItem> items = policy.replyPayloads(v2(Nfs2DdpPolicy.READ), readCall(8192),
                LinuxMessages.reply(whole.array()));

        assertThat(items).containsExactly(new XdrItem(100, 5));
        assertThat(policy.replyPayloads(v2(Nfs2DdpPolicy.READ), readCall(8192), LinuxMessages.reply(inline)))
                .isEqualTo(items);
    }

    @Test
    void readlinkAsksForAReplyChunkAsV3DoesYetReportsItsTarget() {
        // Arguments: 40..71 the link's file handle.
        RpcMessage call = message(call(Nfs2DdpPolicy.READLINK, 32).put(new byte[32]));
        // 24 status NFS_OK, 28 path length, 32..40 "/tmp/file", 41..43 pad.
        ByteBuffer reply = reply(20).putInt(0);
        putString(reply, "/tmp/file");

        // Largest RPC header, status, then a path<MAXPATHLEN> with its length word.
        assertThat(policy.replySize(v2(Nfs2DdpPolicy.READLINK), call))
                .isEqualTo(new ReplySize(424 + 4 + 4 + 1024, List.of()));
        assertThat(policy.replyPayloads(v2(Nfs2DdpPolicy.READLINK), call, LinuxMessages.reply(reply.array())))
                .containsExactly(new XdrItem(32, 9));
    }

    @Test
    void readdirAsksForRoomForItsCount() {
        // 40..71 dir, 72..75 cookie, 76 count.
        RpcMessage call = message(call(Nfs2DdpPolicy.READDIR, 40).put(new byte[32]).putInt(0).putInt(4096));

        // Largest RPC header, status, count bytes of entries, the list's closing FALSE and eof.
        assertThat(policy.replySize(v2(Nfs2DdpPolicy.READDIR), call))
                .isEqualTo(new ReplySize(424 + 4 + 4096 + 4 + 4, List.of()));
        assertThat(policy.callPayloads(v2(Nfs2DdpPolicy.READDIR), call)).isEmpty();
    }

    @Test
    void getattrMovesNothing() {
        // 40..71 the file handle.
        RpcMessage call = message(call(GETATTR, 32).put(new byte[32]));
        // 24 status NFS_OK, 28..95 attributes.
        byte[] reply = reply(72).array();

        assertThat(policy.callPayloads(v2(GETATTR), call)).isEmpty();
        assertThat(policy.replySize(v2(GETATTR), call)).isEqualTo(ReplySize.INLINE);
        assertThat(policy.replyPayloads(v2(GETATTR), call, LinuxMessages.reply(reply))).isEmpty();
    }

    @Test
    void anErrorResultHasNoPayload() {
        // 24 status NFSERR_IO; no attributes or data follow.
        byte[] rpc = reply(4).putInt(5).array();

        assertThat(policy.replyPayloads(v2(Nfs2DdpPolicy.READ), readCall(8192), LinuxMessages.reply(rpc))).isEmpty();
        assertThat(policy.replyPayloads(v2(Nfs2DdpPolicy.READLINK), readCall(8192), LinuxMessages.reply(rpc)))
                .isEmpty();
    }

    @Test
    void anUnknownVersionMovesNothing() {
        ByteBuffer write = call(Nfs2DdpPolicy.WRITE, 56).put(new byte[32]).putInt(0).putInt(0).putInt(0);
        putString(write, "hello");
        RpcProcedure v5 = new RpcProcedure(NfsDdpPolicy.PROGRAM, 5, Nfs2DdpPolicy.WRITE);

        assertThat(policy.callPayloads(v5, message(write))).isEmpty();
        assertThat(policy.replySize(v5, readCall(8192))).isEqualTo(ReplySize.INLINE);
    }

    @Test
    void aMessageThatDoesNotParseIsRefused() {
        byte[] truncated = ByteBuffer.allocate(8).putInt(100).putInt(0).array();   // 8 bytes of a 32-byte handle
        // WRITE data of MAXDATA + 1 bytes: 84 data length, then the bytes.
        ByteBuffer overlong = call(Nfs2DdpPolicy.WRITE, 48 + 8196).put(new byte[32]).putInt(0).putInt(0).putInt(0)
                .putInt(8193);
        // SYMLINK without its attributes: 40..71 from.dir, 72 empty name, 76 empty path, then nothing.
        ByteBuffer noAttributes = call(Nfs2DdpPolicy.SYMLINK, 40).put(new byte[32]).putInt(0).putInt(0);

        assertThatThrownBy(() -> policy.callPayloads(v2(Nfs2DdpPolicy.WRITE), new RpcMessage(truncated, 0)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.replySize(v2(Nfs2DdpPolicy.READ), new RpcMessage(truncated, 0)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.callPayloads(v2(Nfs2DdpPolicy.WRITE), message(overlong)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.callPayloads(v2(Nfs2DdpPolicy.SYMLINK), message(noAttributes)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
