package org.rpcrdma4j.testbed.trace;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rpcrdma4j.xdr.DecodedHeader;
import org.rpcrdma4j.xdr.Proc;

/**
 * Pairs the RPC calls of a capture with their replies by XID. Forward channel: the client calls and
 * the server replies; backchannel (RFC 8167): the server calls and the client replies, in an XID space
 * of its own. An RDMA_MSG tells which it is by the RPC msg_type word (RFC 5531 §9) at offset 4 of its
 * inline RPC message; an RDMA_NOMSG carries a call only in a Position-zero Read chunk, so one with a
 * Read list is a call and any other is a reply. A retransmitted call (same XID) pairs with the next
 * reply.
 */
public final class CallReplyPairs {

    private static final int RPC_CALL = 0;

    private CallReplyPairs() {
    }

    /**
     * One decoded RPC-over-RDMA message.
     *
     * @param send   the Send that carried it
     * @param header its decoded transport header
     */
    public record Message(RdmaSend send, DecodedHeader header) {

        /** @return whether it carries an RPC call */
        public boolean isCall() {
            return switch (header.header().proc()) {
                case RDMA_MSG, RDMA_MSGP -> header.payloadLength() >= 8
                        && ByteBuffer.wrap(send.bytes()).getInt(header.payloadOffset() + 4) == RPC_CALL;
                case RDMA_NOMSG -> !header.header().readList().isEmpty();
                default -> false;
            };
        }
    }

    /**
     * A call and the reply that answered it.
     *
     * @param call  the call
     * @param reply the reply, or {@code null} when the capture holds none
     */
    public record Exchange(Message call, Message reply) {

        /** @return whether the server called (an RFC 8167 backchannel call) */
        public boolean backchannel() {
            return !call.send().fromClient();
        }
    }

    /**
     * What pairing found.
     *
     * @param exchanges       the calls with their replies, in call order
     * @param orphanedReplies replies to no call in the capture
     */
    public record Result(List<Exchange> exchanges, List<Message> orphanedReplies) {
    }

    /**
     * @param messages the decoded messages of one connection, in capture order
     * @return the calls paired with their replies
     */
    public static Result pair(List<Message> messages) {
        Map<String, ArrayDeque<Integer>> waiting = new HashMap<>();
        List<Message> calls = new ArrayList<>();
        Map<Integer, Message> replies = new HashMap<>();
        List<Message> orphans = new ArrayList<>();
        for (Message m : messages) {
            if (m.header().header().proc() == Proc.RDMA_DONE) {
                continue;
            }
            if (m.isCall()) {
                waiting.computeIfAbsent(key(m.send().fromClient(), m), k -> new ArrayDeque<>()).add(calls.size());
                calls.add(m);
            } else {
                ArrayDeque<Integer> queue = waiting.get(key(!m.send().fromClient(), m));
                if (queue == null || queue.isEmpty()) {
                    orphans.add(m);
                } else {
                    replies.put(queue.poll(), m);
                }
            }
        }
        List<Exchange> exchanges = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            exchanges.add(new Exchange(calls.get(i), replies.get(i)));
        }
        return new Result(exchanges, orphans);
    }

    private static String key(boolean callerIsClient, Message m) {
        return callerIsClient + "/" + m.header().header().xid();
    }
}
