package org.rpcrdma4j.nfs.v3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.rpcrdma4j.xdr.ReducedStream;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The NFSv3 binding against what the Linux 6.1 client put on the wire (vectors/linux/README.md): the
 * policy must find the DDP-eligible items exactly where Linux placed its Read chunks, and ask for the
 * chunks Linux asked for.
 */
class Nfs3DdpPolicyTest {

    private static final int LINUX_INLINE_THRESHOLD = 4096;

    private final DdpPolicy policy = new NfsDdpPolicy();

    private static Message linux(String trace, int frame) throws Exception {
        return LinuxMessages.load("nfs3-messages.tsv", trace, frame);
    }

    @Test
    void writeDataIsWhereLinuxPutItsReadChunk() throws Exception {
        for (Message m : List.of(linux("v3-write-default", 82), linux("v3-inline1k", 398))) {
            ReadChunk linuxChunk = m.header().header().readChunks().get(0);

            List<XdrItem> items = policy.callPayloads(m.procedure(), m.call());

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
            assertThat(policy.callPayloads(m.procedure(), m.call()))
                    .containsExactly(new XdrItem(linuxChunk.unsignedPosition(), linuxChunk.length()));
        }
    }

    @Test
    void readAsksForTheWriteChunkLinuxProvided() throws Exception {
        for (Message m : List.of(linux("v3-read", 68), linux("v3-inline1k", 726))) {
            ReplySize size = policy.replySize(m.procedure(), m.call());

            assertThat(size.payloadMaxLengths()).containsExactly(m.header().header().writeList().get(0).length());
            assertThat(size.maxLength()).isGreaterThan(LINUX_INLINE_THRESHOLD);
            assertThat(policy.callPayloads(m.procedure(), m.call())).isEmpty();
        }
    }

    @Test
    void readlinkAndReaddirplusAskForAReplyChunkAsLinuxDid() throws Exception {
        for (Message m : List.of(linux("v3-small", 290), linux("v3-small", 70))) {
            ReplySize size = policy.replySize(m.procedure(), m.call());

            assertThat(m.header().header().hasReplyChunk()).isTrue();
            assertThat(size.payloadMaxLengths()).isEmpty();
            assertThat(size.maxLength()).isGreaterThan(LINUX_INLINE_THRESHOLD);
            // Linux's Reply chunk is its whole receive buffer (head, pages, tail): the same size.
            assertThat(size.maxLength()).isEqualTo(m.header().header().replyChunk().length());
        }
    }

    @Test
    void nullNeedsNoChunk() throws Exception {
        Message m = linux("v3-small", 28);

        assertThat(policy.callPayloads(m.procedure(), m.call())).isEmpty();
        // RPC_REPHDRSIZE, AUTH_NONE's reply slack and the two-word floor: 8 words.
        assertThat(policy.replySize(m.procedure(), m.call())).isEqualTo(new ReplySize(32, List.of()));
    }

    @Test
    void readResultDataIsWhatLinuxWroteIntoTheWriteChunk() throws Exception {
        Message callMessage = linux("v3-read", 68);
        Message reply = linux("v3-read", 338);
        long written = reply.header().header().writeList().get(0).length();
        // The Send holds the reply up to the data's length word; the data went in the Write chunk.
        byte[] rpc = ByteBuffer.allocate(reply.rpc().length + (int) written).put(reply.rpc()).array();

        List<XdrItem> items = policy.replyPayloads(callMessage.procedure(), callMessage.call(),
                LinuxMessages.reply(rpc));

        assertThat(items).containsExactly(new XdrItem(reply.header().payloadLength(), written));
        // The requester asks on the reply as it came inline, without the data, to know where to splice it.
        assertThat(policy.replyPayloads(callMessage.procedure(), callMessage.call(), LinuxMessages.reply(reply.rpc())))
                .isEqualTo(items);
    }

    @Test
    void anErrorResultHasNoPayload() {
        // xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS, then NFS3ERR_IO and an absent post_op_attr.
        byte[] rpc = ByteBuffer.allocate(32).putInt(1).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0)
                .putInt(5).putInt(0).array();

        assertThat(policy.replyPayloads(new RpcProcedure(100003, 3, Nfs3DdpPolicy.READ), new RpcMessage(rpc, 0),
                LinuxMessages.reply(rpc))).isEmpty();
    }

    @Test
    void otherProgramsAndVersionsMoveNothing() throws Exception {
        Message m = linux("v3-write-default", 82);
        RpcProcedure nfsacl = new RpcProcedure(100227, 3, Nfs3DdpPolicy.WRITE);
        RpcProcedure v4 = new RpcProcedure(100003, 4, 1);

        assertThat(policy.callPayloads(nfsacl, m.call())).isEmpty();
        assertThat(policy.callPayloads(v4, m.call())).isEmpty();
    }

    @Test
    void aMessageThatDoesNotParseIsRefused() {
        byte[] truncated = ByteBuffer.allocate(8).putInt(100).putInt(0).array();   // a 100-byte handle, 4 bytes

        assertThatThrownBy(() -> policy.callPayloads(new RpcProcedure(100003, 3, Nfs3DdpPolicy.WRITE),
                new RpcMessage(truncated, 0))).isInstanceOf(IllegalArgumentException.class);
    }
}
