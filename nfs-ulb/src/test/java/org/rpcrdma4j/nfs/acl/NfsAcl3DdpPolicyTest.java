package org.rpcrdma4j.nfs.acl;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.LinuxMessages;
import org.rpcrdma4j.nfs.LinuxMessages.Message;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy.ReplySize;
import org.rpcrdma4j.transport.DdpPolicy.RpcMessage;
import org.rpcrdma4j.transport.DdpPolicy.RpcProcedure;

/**
 * The NFSACL v3 binding, reached through {@link NfsDdpPolicy}, against the Linux 6.1 client
 * (vectors/linux/README.md): a GETACL gets a Reply chunk as Linux's did; nothing is DDP-eligible.
 */
class NfsAcl3DdpPolicyTest {

    private static final int LINUX_INLINE_THRESHOLD = 4096;

    private final DdpPolicy policy = new NfsDdpPolicy();

    @Test
    void getaclAsksForAReplyChunkAsLinuxDid() throws Exception {
        Message m = LinuxMessages.load("nfsacl-messages.tsv", "v3-small", 60);

        ReplySize size = policy.replySize(m.procedure(), m.call());

        assertThat(m.procedure()).isEqualTo(new RpcProcedure(NfsAcl3DdpPolicy.PROGRAM, 3, NfsAcl3DdpPolicy.GETACL));
        assertThat(m.header().header().hasReplyChunk()).isTrue();
        assertThat(size.payloadMaxLengths()).isEmpty();
        assertThat(size.maxLength()).isGreaterThan(LINUX_INLINE_THRESHOLD);
        // Linux's Reply chunk is its whole receive buffer: 256 + 28672 + 4 bytes (head, seven pages, tail).
        assertThat(size.maxLength()).isEqualTo(m.header().header().replyChunk().length()).isEqualTo(28932);
        assertThat(policy.callPayloads(m.procedure(), m.call())).isEmpty();
    }

    @Test
    void setaclHasNoDdpEligibleItemAndAShortReply() {
        RpcProcedure setacl = new RpcProcedure(NfsAcl3DdpPolicy.PROGRAM, 3, NfsAcl3DdpPolicy.SETACL);
        RpcMessage call = new RpcMessage(new byte[6000], 0);

        assertThat(policy.callPayloads(setacl, call)).isEmpty();
        // SETACL3res: status and post_op_attr (23 words), with the largest RPC header for an unknown flavor.
        assertThat(policy.replySize(setacl, call))
                .isEqualTo(new ReplySize(ReplySize.RPC_HEADER_MAX + 23 * 4, java.util.List.of()));
        assertThat(policy.replySize(setacl, call).maxLength()).isLessThan(ReplySize.INLINE.maxLength());
    }

    @Test
    void anotherVersionIsNotBound() {
        RpcProcedure v2 = new RpcProcedure(NfsAcl3DdpPolicy.PROGRAM, 2, NfsAcl3DdpPolicy.GETACL);

        assertThat(policy.replySize(v2, new RpcMessage(new byte[64], 0))).isEqualTo(ReplySize.INLINE);
    }
}
