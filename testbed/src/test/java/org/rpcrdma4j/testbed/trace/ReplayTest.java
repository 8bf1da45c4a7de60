package org.rpcrdma4j.testbed.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.marshal.RpcHeaders;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;

/**
 * Replays the Linux captures of vectors/linux/pcap (README.md there) against our requester and
 * responder: every message must travel as it did under Linux.
 */
class ReplayTest {

    private final NfsDdpPolicy policy = new NfsDdpPolicy();

    @ParameterizedTest
    @CsvSource({"v3-small, 148", "v41-backchannel, 70", "v42-posz, 76"})
    void everyLinuxMessageMatchesWhatWeWouldSend(String trace, int messages) throws IOException {
        Replay.Result result = new Replay(policy).run(trace, capture(trace));

        assertThat(result.mismatches()).isEmpty();
        assertThat(result.messages()).isEqualTo(messages);
        assertThat(result.matched()).isEqualTo(messages);
    }

    @Test
    void aBindingThatDiffersFromLinuxIsReported() throws IOException {
        // Without the NFS binding no GETACL gets a Reply chunk: the first is v3-small frame 60.
        Replay.Result result = new Replay(DdpPolicy.NONE).run("v3-small", capture("v3-small"));

        assertThat(result.mismatches()).isNotEmpty();
        assertThat(result.mismatches().get(0)).isEqualTo(new Replay.Mismatch(60, 1, "requester", 0x0341e883L,
                "NFSACL v3 GETACL", "Reply chunk: ours none, Linux provided"));
        assertThat(result.matched()).isEqualTo(result.messages() - result.mismatches().size());
    }

    @Test
    void theConnectionsPrivateDataGivesTheThresholds() throws IOException {
        ConnectExchange connect = only(capture("v3-small")).connect();

        assertThat(connect.client()).isEqualTo(new ConnectPrivateData(true, 4096, 4096));
        assertThat(connect.server()).isEqualTo(new ConnectPrivateData(false, 4096, 4096));
    }

    @Test
    void aPositionZeroCallIsRebuiltFromItsRdmaReads() throws IOException {
        Capture capture = capture("v42-posz");
        CallReplyPairs.Exchange setattr = exchange(capture, 124);

        byte[] call = RpcStreams.call(setattr.call(), setattr.reply().send().frame(), only(capture).transfers());

        // Two Position-zero segments of 176 and 6080 bytes (the traces' README, behaviour 8).
        assertThat(call).hasSize(176 + 6080);
        assertThat(RpcHeaders.procedure(call)).isEqualTo(new DdpPolicy.RpcProcedure(100003, 4, 1));
    }

    @Test
    void writeChunkDataGoesBackIntoTheReply() throws IOException {
        Capture capture = capture("v41-backchannel");
        // Frames 108 and 112: a READ of a 21-byte file whose data the server wrote into the Write chunk.
        CallReplyPairs.Exchange read = exchange(capture, 108);
        byte[] call = RpcStreams.call(read.call(), read.reply().send().frame(), only(capture).transfers());

        byte[] reply = RpcStreams.reply(read, call, policy, only(capture).transfers());

        assertThat(reply).hasSize(read.reply().header().payloadLength() + 24);
        assertThat(policy.replyPayloads(RpcHeaders.procedure(call), RpcHeaders.call(call), RpcHeaders.reply(reply)))
                .singleElement().satisfies(item -> assertThat(item.length()).isEqualTo(21));
    }

    @Test
    void theBackchannelCallIsPairedWithTheClientsReply() throws IOException {
        CallReplyPairs.Result pairs = CallReplyPairs.pair(messages(capture("v41-backchannel")));

        assertThat(pairs.orphanedReplies()).isEmpty();
        assertThat(pairs.exchanges().stream().filter(CallReplyPairs.Exchange::backchannel))
                .singleElement().satisfies(e -> {
                    assertThat(e.reply()).isNotNull();
                    assertThat(e.reply().send().fromClient()).isTrue();
                    assertThat(e.call().header().header().credits()).isEqualTo(2);
                    assertThat(e.reply().header().header().credits()).isEqualTo(16);
                });
    }

    private static CallReplyPairs.Exchange exchange(Capture capture, int callFrame) {
        return CallReplyPairs.pair(messages(capture)).exchanges().stream()
                .filter(e -> e.call().send().frame() == callFrame).findFirst().orElseThrow();
    }

    private static List<CallReplyPairs.Message> messages(Capture capture) {
        HeaderDecoder decoder = new HeaderDecoder();
        return only(capture).sends().stream().map(send -> {
            try {
                return new CallReplyPairs.Message(send, decoder.decode(send.bytes()));
            } catch (RpcRdmaDecodeException e) {
                throw new AssertionError(e);
            }
        }).toList();
    }

    /** The shared traces each hold one connection. */
    static Capture.Connection only(Capture capture) {
        assertThat(capture.connections()).hasSize(1);
        return capture.connections().get(0);
    }

    private static Capture capture(String trace) throws IOException {
        try (InputStream in = ReplayTest.class.getResourceAsStream("/vectors/linux/pcap/" + trace + ".pcap")) {
            return Capture.read(in);
        }
    }
}
