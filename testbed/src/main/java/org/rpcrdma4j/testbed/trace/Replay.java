package org.rpcrdma4j.testbed.trace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.marshal.RpcHeaders;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Replays a Linux capture against our requester and responder: every call Linux sent goes through
 * {@link RequesterConformance}, every reply through {@link ResponderConformance}, each with the inline
 * thresholds the capture's RFC 8797 private data set (the server's receive size bounds calls, the
 * client's bounds replies; the other way round on the RFC 8167 backchannel) and the credit grant Linux's
 * responder made on that channel. A message matches when ours would carry it the same way.
 */
public final class Replay {

    /**
     * One message our implementation would convey differently, or could not be checked.
     *
     * @param frame      the frame that completed the Linux message
     * @param role       "requester" or "responder" (or "capture" when it could not be checked)
     * @param xid        the message's XID
     * @param procedure  "program/version/procedure" of the call, or "?" when unknown
     * @param difference the first difference found
     */
    public record Mismatch(int frame, String role, long xid, String procedure, String difference) {
    }

    /**
     * The outcome for one capture.
     *
     * @param trace      the capture's name
     * @param messages   the RPC-over-RDMA messages (RDMA Sends) in it
     * @param matched    those our implementation conveys as Linux did
     * @param mismatches every other message
     */
    public record Result(String trace, int messages, int matched, List<Mismatch> mismatches) {
    }

    private final DdpPolicy policy;

    /** @param policy the upper-layer binding our requester and responder use */
    public Replay(DdpPolicy policy) {
        this.policy = policy;
    }

    /**
     * @param trace   the capture's name
     * @param capture what the capture holds
     * @return how our implementation compares
     */
    public Result run(String trace, Capture capture) {
        HeaderDecoder decoder = new HeaderDecoder();
        List<Mismatch> mismatches = new ArrayList<>();
        List<CallReplyPairs.Message> messages = new ArrayList<>();
        int elided = 0;
        for (RdmaSend send : capture.sends()) {
            if (send.elided()) {
                elided++;
                mismatches.add(new Mismatch(send.frame(), "capture", -1, "?",
                        "not checkable: the export elides part of this message's payload"));
                continue;
            }
            try {
                messages.add(new CallReplyPairs.Message(send, decoder.decode(send.bytes())));
            } catch (RpcRdmaDecodeException e) {
                mismatches.add(new Mismatch(send.frame(), "capture", -1, "?", "undecodable: " + e.getMessage()));
            }
        }
        CallReplyPairs.Result paired = CallReplyPairs.pair(messages);
        String orphaned = elided == 0 ? "a reply to no call in the capture"
                : "a reply to no call in the capture, or to one whose payload the export elides: not checkable";
        for (CallReplyPairs.Message orphan : paired.orphanedReplies()) {
            mismatches.add(new Mismatch(orphan.send().frame(), "capture", orphan.header().header().unsignedXid(), "?",
                    orphaned));
        }
        // RFC 8797 §4: a side's sends stay within its own max send size and the peer's max receive size
        // (Linux xprtrdma and svcrdma take the smaller of the two).
        ConnectPrivateData c = capture.connect().client();
        ConnectPrivateData s = capture.connect().server();
        int toServer = Math.min(c.maxSendSize(), s.maxRecvSize());
        int toClient = Math.min(s.maxSendSize(), c.maxRecvSize());
        RequesterConformance requester = new RequesterConformance(policy);
        ResponderConformance responder = new ResponderConformance(policy);
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
                rpcCall = RpcStreams.call(exchange.call(), before, capture.transfers());
                DdpPolicy.RpcProcedure p = RpcHeaders.procedure(rpcCall);
                procedure = p.program() + "/" + p.version() + "/" + p.procedure();
            } catch (IllegalArgumentException e) {
                mismatches.add(new Mismatch(exchange.call().send().frame(), "capture", call.unsignedXid(), "?",
                        "cannot rebuild the call: " + e.getMessage()));
                continue;
            }
            Optional<String> requesterDifference = requester.check(rpcCall, call, back ? toClient : toServer,
                    back ? toServer : toClient, reply);
            requesterDifference.ifPresent(d -> mismatches.add(new Mismatch(exchange.call().send().frame(),
                    "requester", call.unsignedXid(), procedure, d)));
            if (reply == null) {
                continue;
            }
            if (back && backchannelGrant == null) {
                backchannelGrant = reply.credits();
            } else if (!back && forwardGrant == null) {
                forwardGrant = reply.credits();
            }
            Optional<String> responderDifference;
            try {
                byte[] rpcReply = RpcStreams.reply(exchange, rpcCall, policy, capture.transfers());
                responderDifference = responder.check(rpcCall, call, rpcReply, reply,
                        back ? backchannelGrant : forwardGrant, back ? toServer : toClient);
            } catch (IllegalArgumentException e) {
                responderDifference = Optional.of("cannot rebuild the reply: " + e.getMessage());
            }
            responderDifference.ifPresent(d -> mismatches.add(new Mismatch(exchange.reply().send().frame(),
                    "responder", call.unsignedXid(), procedure, d)));
        }
        mismatches.sort(Comparator.comparingInt(Mismatch::frame));
        return new Result(trace, capture.sends().size(), capture.sends().size() - mismatches.size(),
                List.copyOf(mismatches));
    }
}
