package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.LinuxMessages;
import org.rpcrdma4j.nfs.LinuxMessages.Message;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy.ReplySize;
import org.rpcrdma4j.transport.DdpPolicy.RpcMessage;
import org.rpcrdma4j.transport.DdpPolicy.RpcProcedure;
import org.rpcrdma4j.xdr.ReadChunk;
import org.rpcrdma4j.xdr.XdrItem;

/** The NFSv4 COMPOUND walk against the Linux 6.1 client's and server's messages (vectors/linux/README.md). */
class Nfs4DdpPolicyTest {

    private static final int LINUX_INLINE_THRESHOLD = 4096;

    private final DdpPolicy policy = new NfsDdpPolicy();

    private static Message linux(String trace, int frame) throws Exception {
        return LinuxMessages.load("nfs4-messages.tsv", trace, frame);
    }

    @Test
    void writeDataAndSymlinkTargetsAreWhereLinuxPutItsReadChunks() throws Exception {
        for (Message m : List.of(linux("v42-credits8", 1862), linux("v41-small", 249))) {
            ReadChunk linuxChunk = m.header().header().readChunks().get(0);

            assertThat(policy.callPayloads(m.procedure(), m.call()))
                    .containsExactly(new XdrItem(linuxChunk.unsignedPosition(), linuxChunk.length()));
        }
    }

    @Test
    void aSymlinkTargetThatFitsInlineIsStillFound() throws Exception {
        Message m = linux("v41-small", 245);

        List<XdrItem> items = policy.callPayloads(m.procedure(), m.call());

        assertThat(m.header().header().readList()).isEmpty();
        assertThat(items).hasSize(1);
        assertThat(items.get(0).length()).isEqualTo(3000);
    }

    @Test
    void readAsksForTheWriteChunkLinuxProvided() throws Exception {
        Message m = linux("v41-backchannel", 108);

        ReplySize size = policy.replySize(m.procedure(), m.call());

        assertThat(size.payloadMaxLengths()).containsExactly(m.header().header().writeList().get(0).length());
        assertThat(size.maxLength()).isGreaterThan(LINUX_INLINE_THRESHOLD);
    }

    @Test
    void readResultDataIsWhatLinuxWroteIntoTheWriteChunk() throws Exception {
        Message call = linux("v41-backchannel", 108);
        Message reply = linux("v41-backchannel", 112);
        long written = reply.header().header().writeList().get(0).length();
        // SEQUENCE, PUTFH, READ: the Send ends with the data's length word; the data went in the Write chunk.
        byte[] rpc = ByteBuffer.allocate(reply.rpc().length + 24).put(reply.rpc()).array();

        List<XdrItem> items = policy.replyPayloads(call.procedure(), call.call(), LinuxMessages.reply(rpc));

        assertThat(written).isEqualTo(21);
        assertThat(items).containsExactly(new XdrItem(reply.header().payloadLength(), written));
        // The requester asks on the reply as it came inline, without the data, to know where to splice it.
        assertThat(policy.replyPayloads(call.procedure(), call.call(), LinuxMessages.reply(reply.rpc())))
                .isEqualTo(items);
    }

    @Test
    void exchangeIdReaddirAndReadlinkAskForAReplyChunkAsLinuxDid() throws Exception {
        for (Message m : List.of(linux("v41-small", 10), linux("v41-small", 106), linux("v41-small", 298))) {
            ReplySize size = policy.replySize(m.procedure(), m.call());

            assertThat(m.header().header().hasReplyChunk()).isTrue();
            assertThat(size.payloadMaxLengths()).isEmpty();
            assertThat(size.maxLength()).as("%s", m.header().header()).isGreaterThan(LINUX_INLINE_THRESHOLD);
            // Linux's Reply chunk is its whole receive buffer: NFS4_dec_*_sz, the RPC header, the pages.
            assertThat(size.maxLength()).isEqualTo(m.header().header().replyChunk().length());
        }
    }

    @Test
    void aGetattrCompoundFitsLinuxsThresholdButNotOneKilobyte() {
        // COMPOUND { SEQUENCE, PUTFH, GETATTR (two-word bitmap, no ACL), GETFH }, empty tag, minor version 1.
        ByteBuffer args = ByteBuffer.allocate(256).putInt(0).putInt(1).putInt(4)
                .putInt(Nfs4DdpPolicy.OP_SEQUENCE).put(new byte[16]).putInt(1).putInt(0).putInt(0).putInt(0)
                .putInt(Nfs4DdpPolicy.OP_PUTFH).putInt(8).put(new byte[8])
                .putInt(Nfs4DdpPolicy.OP_GETATTR).putInt(2).putInt(0x0010011a).putInt(0x00b0a23a)
                .putInt(Nfs4DdpPolicy.OP_GETFH);
        byte[] call = java.util.Arrays.copyOf(args.array(), args.position());

        ReplySize size = policy.replySize(new RpcProcedure(100003, 4, Nfs4DdpPolicy.COMPOUND), new RpcMessage(call, 0));

        assertThat(size.maxLength()).isBetween(1025L, (long) LINUX_INLINE_THRESHOLD);
        assertThat(size.payloadMaxLengths()).isEmpty();
        assertThat(policy.callPayloads(new RpcProcedure(100003, 4, Nfs4DdpPolicy.COMPOUND), new RpcMessage(call, 0)))
                .isEmpty();
    }

    @Test
    void anOperationTheWalkDoesNotKnowEndsTheWalk() {
        // COMPOUND { SEQUENCE, OPEN_DOWNGRADE (21, not known here), WRITE }: the WRITE is never reached.
        ByteBuffer args = ByteBuffer.allocate(128).putInt(0).putInt(1).putInt(3)
                .putInt(Nfs4DdpPolicy.OP_SEQUENCE).put(new byte[16]).putInt(1).putInt(0).putInt(0).putInt(0)
                .putInt(21).put(new byte[24])
                .putInt(Nfs4DdpPolicy.OP_WRITE).put(new byte[16]).putLong(0).putInt(2).putInt(4).putInt(7);
        RpcProcedure compound = new RpcProcedure(100003, 4, Nfs4DdpPolicy.COMPOUND);
        RpcMessage call = new RpcMessage(java.util.Arrays.copyOf(args.array(), args.position()), 0);

        assertThat(policy.callPayloads(compound, call)).isEmpty();
        assertThat(policy.replySize(compound, call).maxLength()).isGreaterThan(LINUX_INLINE_THRESHOLD);
    }

    @Test
    void compoundsOfSmallResultsFitInlineAsLinuxSentThem() {
        // COMPOUND { SEQUENCE, PUTFH, REMOVE "a", GETATTR }, and { CREATE_SESSION } whose arguments the
        // walk does not step over: Linux provides no Reply chunk for either (v41-small).
        ByteBuffer remove = ByteBuffer.allocate(256).putInt(0).putInt(1).putInt(4)
                .putInt(Nfs4DdpPolicy.OP_SEQUENCE).put(new byte[16]).putInt(1).putInt(0).putInt(0).putInt(0)
                .putInt(Nfs4DdpPolicy.OP_PUTFH).putInt(8).put(new byte[8])
                .putInt(Nfs4DdpPolicy.OP_REMOVE).putInt(1).putInt(0x61000000)
                .putInt(Nfs4DdpPolicy.OP_GETATTR).putInt(1).putInt(0x0010011a);
        ByteBuffer createSession = ByteBuffer.allocate(64).putInt(0).putInt(1).putInt(1)
                .putInt(Nfs4DdpPolicy.OP_CREATE_SESSION).put(new byte[40]);
        RpcProcedure compound = new RpcProcedure(100003, 4, Nfs4DdpPolicy.COMPOUND);

        for (ByteBuffer args : java.util.List.of(remove, createSession)) {
            RpcMessage call = new RpcMessage(java.util.Arrays.copyOf(args.array(), args.position()), 0);
            assertThat(policy.replySize(compound, call).maxLength()).isLessThan(LINUX_INLINE_THRESHOLD - 28);
        }
    }
}
