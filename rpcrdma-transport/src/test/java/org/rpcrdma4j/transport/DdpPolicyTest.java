package org.rpcrdma4j.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xdr.XdrItem;

class DdpPolicyTest {

    private static final DdpPolicy EVERYTHING_IN_CHUNKS = new DdpPolicy() {
        @Override
        public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
            return List.of(new XdrItem(4, 8));
        }

        @Override
        public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
            return new ReplySize(1 << 20, List.of(1L << 20));
        }

        @Override
        public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
            return List.of(new XdrItem(8, 16));
        }
    };

    @Test
    void aPolicyForOneProgramVersionLeavesEveryOtherAlone() {
        DdpPolicy scoped = DdpPolicy.forProgram(100003, 3, EVERYTHING_IN_CHUNKS);
        DdpPolicy.RpcMessage message = new DdpPolicy.RpcMessage(new byte[64], 0);
        DdpPolicy.RpcProcedure own = new DdpPolicy.RpcProcedure(100003, 3, 6);
        for (DdpPolicy.RpcProcedure other : List.of(new DdpPolicy.RpcProcedure(100003, 4, 6),
                new DdpPolicy.RpcProcedure(100005, 3, 6))) {
            assertThat(scoped.callPayloads(other, message)).isEmpty();
            assertThat(scoped.replySize(other, message)).isEqualTo(DdpPolicy.ReplySize.INLINE);
            assertThat(scoped.replyPayloads(other, message, message)).isEmpty();
        }
        assertThat(scoped.callPayloads(own, message)).containsExactly(new XdrItem(4, 8));
        assertThat(scoped.replySize(own, message).maxLength()).isEqualTo(1 << 20);
        assertThat(scoped.replyPayloads(own, message, message)).containsExactly(new XdrItem(8, 16));
    }
}
