package org.rpcrdma4j.testbed.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.NfsDdpPolicy;

/**
 * What real captures hold besides one clean connection, built from the Linux frames of
 * vectors/linux/pcap (README.md there): reconnects and concurrent connections, frames captured twice,
 * RDMA_ERROR answers, and the GARBAGE_ARGS Linux's server answers a Position-zero NFSACL SETACL with.
 */
class ReplayCapturesTest {

    private static final int V3_SMALL_MESSAGES = 148;
    private static final int V41_BACKCHANNEL_MESSAGES = 70;
    /** v3-small frame 28: the NFSv3 NULL call, inline. */
    private static final int NULL_CALL = 28;
    /** v42-posz frame 124: the SETATTR of an NFSv4 ACL, a Position-zero call of 176 + 6080 bytes. */
    private static final int POSITION_ZERO_CALL = 124;
    private static final int SERVER = 10 << 24 | 99 << 16 | 1;

    private final Replay replay = new Replay(new NfsDdpPolicy());

    @Test
    void aReconnectThatUsesTheSameQueuePairNumbersIsANewConnection() throws IOException {
        // The rig's first connection has QPN 0x11 on both sides, so does this one's second.
        PcapFrames capture = PcapFrames.load("v3-small");
        capture.frames.addAll(PcapFrames.load("v41-backchannel").frames);

        Replay.Result result = replay.run("reconnect", capture.capture());

        assertThat(result.connections()).isEqualTo(2);
        assertThat(result.mismatches()).isEmpty();
        assertThat(result.messages()).isEqualTo(V3_SMALL_MESSAGES + V41_BACKCHANNEL_MESSAGES);
        assertThat(result.procedures()).extracting(Replay.ProcedureSummary::procedure)
                .contains("NFSv3 READLINK", "NFSACL v3 GETACL", "NFSv4 OPEN", "NFSv4 CB_COMPOUND");
    }

    /**
     * Linux's server sends a reply with Invalidate when the client offered it and the call's chunks
     * carry one R_key, a plain Send otherwise (v3-small has both); our responder picks the same for
     * every reply, and a reply that invalidates another key is a mismatch.
     */
    @Test
    void aReplyMustInvalidateTheKeyOurResponderWould() throws IOException {
        PcapFrames capture = PcapFrames.load("v3-small");
        List<Integer> invalidating = new ArrayList<>();
        for (int i = 0; i < capture.frames.size(); i++) {
            byte[] frame = capture.frames.get(i);
            if (frame.length > PcapFrames.PAYLOAD && (frame[PcapFrames.BTH] & 0xff) == PcapFrames.SEND_ONLY_WITH_INVALIDATE) {
                invalidating.add(i);
            }
        }
        assertThat(invalidating).as("Linux's Sends with Invalidate in v3-small").isNotEmpty();
        assertThat(replay.run("v3-small", capture.capture()).mismatches()).isEmpty();

        byte[] changed = capture.frames.get(invalidating.get(0));
        ByteBuffer.wrap(changed).putInt(PcapFrames.PAYLOAD, ByteBuffer.wrap(changed).getInt(PcapFrames.PAYLOAD) ^ 0x100);
        List<Replay.Mismatch> mismatches = replay.run("v3-small", capture.capture()).mismatches();
        assertThat(mismatches).hasSize(1);
        assertThat(mismatches.get(0).role()).isEqualTo("responder");
        assertThat(mismatches.get(0).difference()).startsWith("Send with Invalidate: ours R_key 0x");
    }

    @Test
    void concurrentConnectionsAreReplayedApart() throws IOException {
        List<byte[]> first = PcapFrames.load("v3-small").frames;
        List<byte[]> second = PcapFrames.load("v41-backchannel").frames.stream()
                .map(frame -> PcapFrames.withQpn(frame, 0x12)).toList();
        PcapFrames capture = PcapFrames.load("v3-small");
        capture.frames.clear();
        for (int i = 0; i < Math.max(first.size(), second.size()); i++) {
            if (i < first.size()) {
                capture.frames.add(first.get(i));
            }
            if (i < second.size()) {
                capture.frames.add(second.get(i));
            }
        }

        Capture both = capture.capture();
        Replay.Result result = replay.run("interleaved", both);

        assertThat(both.connections()).extracting(Capture.Connection::endpoints).containsExactlyInAnyOrder(
                "10.99.0.2/QP 0x11 <-> 10.99.0.1/QP 0x11", "10.99.0.2/QP 0x12 <-> 10.99.0.1/QP 0x12");
        assertThat(both.connections()).extracting(c -> c.sends().size())
                .containsExactlyInAnyOrder(V3_SMALL_MESSAGES, V41_BACKCHANNEL_MESSAGES);
        assertThat(result.mismatches()).isEmpty();
        assertThat(result.matched()).isEqualTo(V3_SMALL_MESSAGES + V41_BACKCHANNEL_MESSAGES);
    }

    @Test
    void aCaptureThatBeganAfterTheConnectHasOneConnectionPerAddressPair() throws IOException {
        PcapFrames capture = PcapFrames.load("v3-small");
        capture.frames.removeIf(frame -> PcapFrames.roce(frame) && PcapFrames.cmAttribute(frame) >= 0);

        Capture late = capture.capture();

        assertThat(late.connections()).singleElement().satisfies(c -> {
            assertThat(c.endpoints()).isEqualTo("10.99.0.1 <-> 10.99.0.2 (no RDMA-CM exchange captured)");
            assertThat(c.sends()).hasSize(V3_SMALL_MESSAGES);
        });
    }

    @Test
    void framesCapturedTwiceAreReplayedOnce() throws IOException {
        PcapFrames capture = PcapFrames.load("v3-small");
        List<byte[]> twice = new ArrayList<>();
        int sequenced = 0;
        for (byte[] frame : capture.frames) {
            twice.add(frame);
            twice.add(frame.clone());
            int opcode = PcapFrames.roce(frame) ? PcapFrames.opcode(frame) : -1;
            if (opcode >= 0 && opcode >>> 5 == 0 && opcode != PcapFrames.ACKNOWLEDGE
                    && opcode != PcapFrames.ATOMIC_ACKNOWLEDGE) {
                sequenced++;                     // an RC packet that is not an acknowledgement
            }
        }
        capture.frames.clear();
        capture.frames.addAll(twice);

        Replay.Result result = replay.run("twice", capture.capture());

        assertThat(result.connections()).isEqualTo(1);
        assertThat(result.duplicates()).isEqualTo(sequenced).isPositive();
        assertThat(result.mismatches()).isEmpty();
        assertThat(result.messages()).isEqualTo(V3_SMALL_MESSAGES);
    }

    @Test
    void anRdmaErrorIsCheckedAgainstWhatOurResponderAnswers() throws IOException {
        // The NULL call with version word 2: RFC 8166 §5 has the responder answer ERR_VERS 1..1.
        PcapFrames capture = callAnsweredWith(1, 1);

        Replay.Result result = replay.run("err_vers", capture.capture());

        assertThat(result.mismatches()).isEmpty();
        assertThat(result.matched()).isEqualTo(V3_SMALL_MESSAGES);
    }

    @Test
    void anRdmaErrorOursWouldNotSendIsAMismatch() throws IOException {
        // ERR_CHUNK to a call whose only fault is its version: ours answers ERR_VERS.
        PcapFrames capture = callAnsweredWith(2, 0);

        Replay.Result result = replay.run("err_chunk", capture.capture());

        assertThat(result.mismatches()).singleElement().satisfies(m -> {
            assertThat(m.role()).isEqualTo("responder");
            assertThat(m.difference()).startsWith("RDMA_ERROR: ours ERR_VERS 1..1 (version word 2), Linux ERR_CHUNK");
        });
    }

    @Test
    void garbageArgsToAPositionZeroSetaclIsLinuxsBugAndItsConveyanceIsChecked() throws IOException {
        // v42-posz's Position-zero call made an NFSACL v3 SETACL, and the server's answer GARBAGE_ARGS, as
        // Linux 6.1 answers such a SETACL (docs/CONFORMANCE.md).
        PcapFrames capture = PcapFrames.load("v42-posz");
        byte[] call = capture.frames.get(POSITION_ZERO_CALL - 1);
        int xid = PcapFrames.xid(call);
        int response = next(capture, POSITION_ZERO_CALL, f -> PcapFrames.opcode(f) == PcapFrames.RDMA_READ_RESPONSE_FIRST
                || PcapFrames.opcode(f) == PcapFrames.RDMA_READ_RESPONSE_ONLY);
        // After the AETH: XID, CALL, RPC version, then program, version and procedure.
        int program = PcapFrames.PAYLOAD + 4 + 12;
        ByteBuffer.wrap(capture.frames.get(response)).putInt(program, 100227).putInt(program + 4, 3)
                .putInt(program + 8, 2);
        int reply = next(capture, POSITION_ZERO_CALL, f -> PcapFrames.sendOnly(f)
                && ByteBuffer.wrap(f).getInt(PcapFrames.IP + 12) == SERVER && PcapFrames.xid(f) == xid);
        // An RDMA_MSG of 28 bytes, then XID, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, accept_stat.
        byte[] answer = capture.frames.get(reply);
        ByteBuffer.wrap(answer).putInt(PcapFrames.payload(answer) + 28 + 20, 4);

        Replay.Result result = replay.run("garbage_args", capture.capture());

        assertThat(result.mismatches()).isEmpty();
        assertThat(result.linuxBugs()).singleElement().satisfies(bug -> {
            assertThat(bug.frame()).isEqualTo(reply + 1);
            assertThat(bug.procedure()).isEqualTo("NFSACL v3 SETACL");
            assertThat(bug.note()).contains("GARBAGE_ARGS");
        });
        assertThat(result.procedures()).filteredOn(p -> p.procedure().equals("NFSACL v3 SETACL")).singleElement()
                .isEqualTo(new Replay.ProcedureSummary("NFSACL v3 SETACL", 1, 1, 0, 0, 0, 0, 1));
    }

    /**
     * v3-small with its NULL call's version word made 2 and its reply an RDMA_ERROR of the given code
     * (1 ERR_VERS, 2 ERR_CHUNK), with the given version range for ERR_VERS.
     */
    private static PcapFrames callAnsweredWith(int code, int versions) throws IOException {
        PcapFrames capture = PcapFrames.load("v3-small");
        byte[] call = capture.frames.get(NULL_CALL - 1);
        int xid = PcapFrames.xid(call);
        ByteBuffer.wrap(call).putInt(PcapFrames.PAYLOAD + 4, 2);
        int reply = next(capture, NULL_CALL, f -> PcapFrames.sendOnly(f)
                && ByteBuffer.wrap(f).getInt(PcapFrames.IP + 12) == SERVER && PcapFrames.xid(f) == xid);
        // svcrdma echoes the failing message's XID and version word (svc_rdma_send_error_msg).
        ByteBuffer error = ByteBuffer.allocate(versions > 0 ? 28 : 20).putInt(xid).putInt(2).putInt(64).putInt(4)
                .putInt(code);
        if (versions > 0) {
            error.putInt(versions).putInt(versions);
        }
        capture.frames.set(reply, PcapFrames.withSendPayload(capture.frames.get(reply), error.array()));
        return capture;
    }

    /** @return the index of the first RoCE frame after the given frame number that passes the test */
    private static int next(PcapFrames capture, int after, java.util.function.Predicate<byte[]> test) {
        for (int i = after; i < capture.frames.size(); i++) {
            byte[] f = capture.frames.get(i);
            if (PcapFrames.roce(f) && test.test(f)) {
                return i;
            }
        }
        throw new AssertionError("no such frame after " + after);
    }
}
