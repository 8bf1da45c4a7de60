package org.rpcrdma4j.testbed.trace;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.marshal.ProvidedChunks;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.ErrorCode;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Replays a Linux capture against our requester and responder, every RDMA connection of it on its own:
 * every call Linux sent goes through {@link RequesterConformance}, every reply through
 * {@link ResponderConformance}, each with the inline thresholds the connection's RFC 8797 private data
 * set (the server's receive size bounds calls, the client's bounds replies; the other way round on the
 * RFC 8167 backchannel) and the credit grant Linux's responder made on that channel. A message matches
 * when ours would carry it the same way. An RDMA_ERROR answers a call our decoder refuses only if ours
 * refuses it with the same error; a reply Linux sends because of its own bug (a GARBAGE_ARGS to a
 * well-formed Position-zero NFSACL SETACL) is reported as such and its conveyance checked as any other.
 * A reply's Send must invalidate the R_key our responder would (svcrdma's rule,
 * {@link ProvidedChunks#of}: the one key of the call's chunks when the client offered remote
 * invalidation), or none.
 */
public final class Replay {

    /**
     * One message our implementation would convey differently, or could not be checked.
     *
     * @param frame      the frame that completed the Linux message
     * @param connection the number of its connection in the capture
     * @param role       "requester" or "responder" (or "capture" when it could not be checked)
     * @param xid        the message's XID
     * @param procedure  "program/version/procedure" of the call, or "?" when unknown
     * @param difference the first difference found
     */
    public record Mismatch(int frame, int connection, String role, long xid, String procedure, String difference) {
    }

    /**
     * A Linux answer that is Linux's own bug, not a difference of ours: reported, not counted as a mismatch.
     *
     * @param frame      the frame that completed Linux's answer
     * @param connection the number of its connection in the capture
     * @param xid        the call's XID
     * @param procedure  the call's procedure
     * @param note       what Linux did and why it is a bug
     */
    public record LinuxBug(int frame, int connection, long xid, String procedure, String note) {
    }

    /**
     * The calls of one procedure and how they went.
     *
     * @param procedure    the procedure's name ({@link ProcedureNames})
     * @param calls        the calls Linux sent
     * @param matched      those whose call, and reply if the capture holds it, ours conveys as Linux did
     * @param inline       the calls Linux sent with no chunk at all
     * @param read         those it sent with Read chunks (data items at their positions)
     * @param write        those it provided Write chunks for
     * @param reply        those it provided a Reply chunk for
     * @param positionZero those it sent whole in a Position-zero Read chunk
     */
    public record ProcedureSummary(String procedure, int calls, int matched, int inline, int read, int write,
                                   int reply, int positionZero) {

        ProcedureSummary add(boolean match, RpcRdmaHeader call) {
            boolean p0 = !call.readChunks().isEmpty() && call.readChunks().get(0).unsignedPosition() == 0;
            boolean reads = !call.readChunks().isEmpty() && !p0;
            boolean writes = !call.writeList().isEmpty();
            boolean replyChunk = call.hasReplyChunk();
            return new ProcedureSummary(procedure, calls + 1, matched + (match ? 1 : 0),
                    inline + (!p0 && !reads && !writes && !replyChunk ? 1 : 0), read + (reads ? 1 : 0),
                    write + (writes ? 1 : 0), reply + (replyChunk ? 1 : 0), positionZero + (p0 ? 1 : 0));
        }
    }

    /**
     * The outcome for one capture.
     *
     * @param trace       the capture's name
     * @param connections the RDMA connections replayed
     * @param duplicates  the packets dropped as captured before
     * @param messages    the RPC-over-RDMA messages (RDMA Sends) in it
     * @param matched     those our implementation conveys as Linux did
     * @param mismatches  every other message
     * @param linuxBugs   Linux answers that are Linux's own bugs (their messages count as matched when ours
     *                    conveys them as Linux did)
     * @param procedures  per procedure, in order of first call
     */
    public record Result(String trace, int connections, int duplicates, int messages, int matched,
                         List<Mismatch> mismatches, List<LinuxBug> linuxBugs, List<ProcedureSummary> procedures) {
    }

    private static final int ACCEPTED = 0;
    private static final int GARBAGE_ARGS = 4;

    private final DdpPolicy policy;

    /** @param policy the upper-layer binding our requester and responder use */
    public Replay(DdpPolicy policy) {
        this.policy = policy;
    }

    /**
     * @param trace   the capture's name
     * @param capture what the capture holds
     * @return how our implementation compares, every connection replayed
     */
    public Result run(String trace, Capture capture) {
        List<Mismatch> mismatches = new ArrayList<>();
        List<LinuxBug> bugs = new ArrayList<>();
        Map<String, ProcedureSummary> procedures = new LinkedHashMap<>();
        int messages = 0;
        for (Capture.Connection connection : capture.connections()) {
            messages += connection.sends().size();
            new ConnectionReplay(connection, mismatches, bugs, procedures).run();
        }
        mismatches.sort(Comparator.comparingInt(Mismatch::frame));
        return new Result(trace, capture.connections().size(), capture.duplicates(), messages,
                messages - mismatches.size(), List.copyOf(mismatches), List.copyOf(bugs),
                List.copyOf(procedures.values()));
    }

    /** The replay of one connection, adding to the capture's findings. */
    private final class ConnectionReplay {

        private final Capture.Connection connection;
        private final List<Mismatch> mismatches;
        private final List<LinuxBug> bugs;
        private final Map<String, ProcedureSummary> procedures;
        private final ResponderConformance responder = new ResponderConformance(policy);
        /** Messages our decoder refuses, by sender ("client" or "server") and XID: Linux may answer RDMA_ERROR. */
        private final Map<String, Refusal> refused = new LinkedHashMap<>();

        ConnectionReplay(Capture.Connection connection, List<Mismatch> mismatches, List<LinuxBug> bugs,
                         Map<String, ProcedureSummary> procedures) {
            this.connection = connection;
            this.mismatches = mismatches;
            this.bugs = bugs;
            this.procedures = procedures;
        }

        private void mismatch(int frame, String role, long xid, String procedure, String difference) {
            mismatches.add(new Mismatch(frame, connection.number(), role, xid, procedure, difference));
        }

        void run() {
            HeaderDecoder decoder = new HeaderDecoder();
            List<CallReplyPairs.Message> messages = new ArrayList<>();
            int elided = 0;
            for (RdmaSend send : connection.sends()) {
                if (send.elided()) {
                    elided++;
                    mismatch(send.frame(), "capture", -1, "?",
                            "not checkable: the export elides part of this message's payload");
                    continue;
                }
                try {
                    messages.add(new CallReplyPairs.Message(send, decoder.decode(send.bytes())));
                } catch (RpcRdmaDecodeException e) {
                    if (e.xid().isPresent()) {
                        refused.put(side(send.fromClient()) + Integer.toUnsignedString(e.xid().getAsInt()),
                                new Refusal(send, e));
                    } else {
                        mismatch(send.frame(), "capture", -1, "?", "undecodable: " + e.getMessage());
                    }
                }
            }
            CallReplyPairs.Result paired = CallReplyPairs.pair(messages);
            String orphaned = elided == 0 ? "a reply to no call in the capture"
                    : "a reply to no call in the capture, or to one whose payload the export elides: not checkable";
            for (CallReplyPairs.Message orphan : paired.orphanedReplies()) {
                if (!answersRefusal(orphan)) {
                    mismatch(orphan.send().frame(), "capture", orphan.header().header().unsignedXid(), "?", orphaned);
                }
            }
            for (Refusal refusal : refused.values()) {
                if (!refusal.answered) {
                    mismatch(refusal.send.frame(), "capture", Integer.toUnsignedLong(refusal.error.xid().getAsInt()),
                            "?", "undecodable: " + refusal.error.getMessage());
                }
            }
            // RFC 8797 §4: a side's sends stay within its own max send size and the peer's max receive size
            // (Linux xprtrdma and svcrdma take the smaller of the two).
            ConnectPrivateData c = connection.connect().client();
            ConnectPrivateData s = connection.connect().server();
            int toServer = Math.min(c.maxSendSize(), s.maxRecvSize());
            int toClient = Math.min(s.maxSendSize(), c.maxRecvSize());
            RequesterConformance requester = new RequesterConformance(policy);
            Integer forwardGrant = null;
            Integer backchannelGrant = null;
            for (CallReplyPairs.Exchange exchange : paired.exchanges()) {
                boolean back = exchange.backchannel();
                RpcRdmaHeader call = exchange.call().header().header();
                RpcRdmaHeader reply = exchange.reply() == null ? null : exchange.reply().header().header();
                int before = exchange.reply() == null ? Integer.MAX_VALUE : exchange.reply().send().frame();
                byte[] rpcCall;
                String procedure;
                try {
                    rpcCall = RpcStreams.call(exchange.call(), before, connection.transfers());
                    procedure = ProcedureNames.of(rpcCall);
                } catch (IllegalArgumentException e) {
                    mismatch(exchange.call().send().frame(), "capture", call.unsignedXid(), "?",
                            "cannot rebuild the call: " + e.getMessage());
                    continue;
                }
                int found = mismatches.size();
                requester.check(rpcCall, call, back ? toClient : toServer, back ? toServer : toClient, reply)
                        .ifPresent(d -> mismatch(exchange.call().send().frame(), "requester", call.unsignedXid(),
                                procedure, d));
                if (reply != null) {
                    if (back && backchannelGrant == null) {
                        backchannelGrant = reply.credits();
                    } else if (!back && forwardGrant == null) {
                        forwardGrant = reply.credits();
                    }
                    responderDifference(exchange, rpcCall, back ? backchannelGrant : forwardGrant,
                            back ? toServer : toClient, procedure)
                            .ifPresent(d -> mismatch(exchange.reply().send().frame(), "responder",
                                    call.unsignedXid(), procedure, d));
                }
                boolean matched = mismatches.size() == found;
                procedures.compute(procedure, (name, summary) -> (summary == null
                        ? new ProcedureSummary(name, 0, 0, 0, 0, 0, 0, 0) : summary).add(matched, call));
            }
        }

        /**
         * The responder's check of one reply: an RDMA_ERROR by what our responder answers the call's
         * header with; any other reply, GARBAGE_ARGS included, by how ours would convey Linux's reply.
         */
        private Optional<String> responderDifference(CallReplyPairs.Exchange exchange, byte[] rpcCall, int credits,
                                                     int threshold, String procedure) {
            RpcRdmaHeader call = exchange.call().header().header();
            RpcRdmaHeader reply = exchange.reply().header().header();
            if (reply.proc() == Proc.RDMA_ERROR) {
                return Optional.of("Linux answered RDMA_ERROR " + reply.error().code()
                        + " to a call whose header our responder accepts; the reply it could not send is not in the"
                        + " capture");
            }
            byte[] rpcReply;
            try {
                rpcReply = RpcStreams.reply(exchange, rpcCall, policy, connection.transfers());
            } catch (IllegalArgumentException e) {
                return Optional.of("cannot rebuild the reply: " + e.getMessage());
            }
            boolean positionZero = !call.readChunks().isEmpty() && call.readChunks().get(0).unsignedPosition() == 0;
            if (positionZero && acceptStat(rpcReply) == GARBAGE_ARGS
                    && procedure.equals("NFSACL v3 SETACL")) {
                bugs.add(new LinuxBug(exchange.reply().send().frame(), connection.number(), call.unsignedXid(),
                        procedure, "Linux's server answers GARBAGE_ARGS to a well-formed SETACL that came in a"
                        + " Position-zero Read chunk (its own bug, docs/CONFORMANCE.md); how the answer travels is"
                        + " checked as for any reply"));
            }
            Optional<String> conveyed = responder.check(rpcCall, call, rpcReply, reply, credits, threshold);
            return conveyed.isPresent() ? conveyed : invalidation(exchange, call);
        }

        /** The R_key the reply's Send invalidated against the one our responder would invalidate. */
        private Optional<String> invalidation(CallReplyPairs.Exchange exchange, RpcRdmaHeader call) {
            boolean offered = !exchange.backchannel() && connection.connect().client().remoteInvalidate();
            int handle = ProvidedChunks.of(call.readList(), call.writeList(), call.replyChunk(), offered)
                    .invalidateHandle();
            OptionalInt ours = handle == 0 ? OptionalInt.empty() : OptionalInt.of(handle);
            OptionalInt linux = exchange.reply().send().invalidate();
            return linux.equals(ours) ? Optional.empty()
                    : Optional.of("Send with Invalidate: ours " + key(ours) + ", Linux " + key(linux));
        }

        /**
         * Checks an RDMA_ERROR to a message our decoder refused: our responder must answer the same error.
         * The refused message and the answer then match, or the answer is a responder mismatch.
         *
         * @return whether the orphan is such an answer (and was checked)
         */
        private boolean answersRefusal(CallReplyPairs.Message orphan) {
            RpcRdmaHeader linux = orphan.header().header();
            Refusal refusal = refused.get(side(!orphan.send().fromClient()) + Integer.toUnsignedString(linux.xid()));
            if (linux.proc() != Proc.RDMA_ERROR || refusal == null || refusal.answered) {
                return false;
            }
            refusal.answered = true;
            Optional<RpcRdmaHeader> ours = refusal.error.answer(linux.credits());
            if (ours.isEmpty()) {
                mismatch(orphan.send().frame(), "responder", linux.unsignedXid(), "?", "Linux answered RDMA_ERROR "
                        + linux.error().code() + "; our responder drops the message (" + refusal.error.getMessage()
                        + ")");
            } else if (!ours.get().error().equals(linux.error()) || ours.get().vers() != linux.vers()) {
                mismatch(orphan.send().frame(), "responder", linux.unsignedXid(), "?", "RDMA_ERROR: ours "
                        + describe(ours.get()) + ", Linux " + describe(linux) + " (" + refusal.error.getMessage()
                        + ")");
            }
            return true;
        }
    }

    /** A message our decoder refused, and whether an RDMA_ERROR in the capture answered it. */
    private static final class Refusal {
        private final RdmaSend send;
        private final RpcRdmaDecodeException error;
        private boolean answered;

        Refusal(RdmaSend send, RpcRdmaDecodeException error) {
            this.send = send;
            this.error = error;
        }
    }

    private static String describe(RpcRdmaHeader error) {
        RdmaError e = error.error();
        return e.code() + (e.code() == ErrorCode.ERR_VERS ? " " + e.low() + ".." + e.high() : "") + " (version word "
                + error.vers() + ")";
    }

    private static String key(OptionalInt rkey) {
        return rkey.isPresent() ? "R_key 0x" + Integer.toHexString(rkey.getAsInt()) : "a plain Send";
    }

    private static String side(boolean client) {
        return client ? "client/" : "server/";
    }

    /** @return the accept_stat of an accepted RPC reply, or -1 for any other */
    private static int acceptStat(byte[] reply) {
        ByteBuffer b = ByteBuffer.wrap(reply);
        if (reply.length < 24 || b.getInt(8) != ACCEPTED) {
            return -1;
        }
        long verifier = Integer.toUnsignedLong(b.getInt(16));
        long at = 20 + (verifier + 3) / 4 * 4;
        return at + 4 <= reply.length ? b.getInt((int) at) : -1;
    }
}
