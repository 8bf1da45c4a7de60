package org.rpcrdma4j.transport;

import java.util.List;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The upper-layer binding of an RPC program as the transport needs it (RFC 8166 §6; for NFS, RFC
 * 8267): which XDR data items of its calls and replies are DDP-eligible, so may travel in chunks, and
 * how large a reply can grow, so that the requester provides chunks before the responder needs them.
 *
 * <p>The transport decides how a message travels (RFC 8166 §3.5, as Linux {@code rpcrdma_marshal_req}
 * does): a call that fits the inline threshold goes inline; otherwise its DDP-eligible items go in
 * Read chunks at their XDR positions, and a call without any goes whole in a Position-zero Read chunk.
 * A reply whose {@link ReplySize#maxLength} fits the requester's inline threshold needs no chunk;
 * otherwise each DDP-eligible result gets a Write chunk of its {@link ReplySize#payloadMaxLengths}
 * entry and a reply without any gets a Reply chunk. The responder then asks {@link #replyPayloads}
 * where the results it Writes sit, the way nfsd tells svcrdma with {@code svc_rdma_result_payload}.
 *
 * <p>Implementations are stateless and thread-safe: the transport asks from its worker and progress
 * threads. Items are data without their XDR pad, in stream order, inside the message.
 */
public interface DdpPolicy {

    /** The policy of a program without an upper-layer binding: nothing is DDP-eligible, replies go inline. */
    DdpPolicy NONE = new DdpPolicy() {
        @Override
        public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
            return List.of();
        }

        @Override
        public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
            return ReplySize.INLINE;
        }

        @Override
        public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
            return List.of();
        }
    };

    /**
     * A policy for one program version, and {@link #NONE} for every other, so that a policy written
     * for one program can stand for all that a server or client serves or calls.
     *
     * @param program the program number
     * @param version the version
     * @param policy  its policy
     * @return the policy that tells that program version apart by each procedure it is given
     */
    static DdpPolicy forProgram(int program, int version, DdpPolicy policy) {
        return new DdpPolicy() {
            private DdpPolicy of(RpcProcedure procedure) {
                return procedure.program() == program && procedure.version() == version ? policy : NONE;
            }

            @Override
            public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
                return of(procedure).callPayloads(procedure, call);
            }

            @Override
            public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
                return of(procedure).replySize(procedure, call);
            }

            @Override
            public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
                return of(procedure).replyPayloads(procedure, call, reply);
            }
        };
    }

    /**
     * Requester: the DDP-eligible data items of a call, such as the data of an NFS WRITE.
     *
     * @param procedure what the call asks for
     * @param call      the encoded call, whose body is the procedure's arguments
     * @return the items, in stream order; empty when none
     */
    List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call);

    /**
     * Requester: how large the reply to a call can be, and its DDP-eligible results.
     *
     * @param procedure what the call asks for
     * @param call      the encoded call
     * @return the bound on the reply
     */
    ReplySize replySize(RpcProcedure procedure, RpcMessage call);

    /**
     * Responder: the DDP-eligible data items of a reply, such as the data of an NFS READ result.
     *
     * <p>The requester asks too, to splice the data of Write chunk {@code i} back into a reply: with
     * the reply rebuilt so far, in which results from {@code i} on are still missing, it uses only
     * the offset of result {@code i}. So an implementation must find each result's offset from the
     * bytes before it, and must not reject a reply whose later results run past its end.
     *
     * @param procedure what the call asked for
     * @param call      the call the reply answers
     * @param reply     the encoded reply, whose body is the procedure's results
     * @return the items, in stream order; empty when none (for example an error result)
     */
    List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply);

    /**
     * A procedure of a program version.
     *
     * @param program   the RPC program number
     * @param version   the program version
     * @param procedure the procedure number
     */
    record RpcProcedure(int program, int version, int procedure) {
    }

    /**
     * An encoded RPC message and where its body (arguments or results) begins, after the RPC header
     * (RFC 5531 §9) with its credential and verifier.
     *
     * @param bytes      the whole message, read in place; the policy must not change it
     * @param bodyOffset index of the first byte of the arguments or results
     */
    record RpcMessage(MessageBytes bytes, int bodyOffset) {

        /**
         * Checks the body lies inside the message.
         *
         * @param bytes      the message
         * @param bodyOffset where its body begins
         */
        public RpcMessage {
            if (bodyOffset < 0 || bodyOffset > bytes.length()) {
                throw new IllegalArgumentException("body offset " + bodyOffset + " outside a message of "
                        + bytes.length() + " bytes");
            }
        }

        /**
         * @param bytes      the whole message in one array
         * @param bodyOffset index of the first byte of the arguments or results
         */
        public RpcMessage(byte[] bytes, int bodyOffset) {
            this(MessageBytes.of(bytes), bodyOffset);
        }
    }

    /**
     * The bound on a reply.
     *
     * @param maxLength         the largest the whole reply message can be, DDP-eligible results included
     * @param payloadMaxLengths the largest each DDP-eligible result can be, in stream order: one Write
     *                          chunk each, when the reply may not fit inline
     */
    record ReplySize(long maxLength, List<Long> payloadMaxLengths) {

        /**
         * The room a requester keeps in its inline receive buffer for the reply's transport header: an
         * RDMA_MSG header whose Write list holds one chunk of 11 segments (28 + 4 + 11 * 16 + 4 bytes).
         * A reply fits inline when its {@link #maxLength} plus this fits the receive threshold. Linux
         * xprtrdma keeps the same room ({@code rpcrdma_max_reply_header_size} with {@code re_max_rdma_segs}
         * of 11, what it computes for devices that read 29 or more SGEs, rxe and mlx5 among them).
         */
        public static final int REPLY_HEADER_RESERVE = 28 + 4 + 11 * 16 + 4;

        /**
         * A reply known to fit any inline threshold: every receiver takes 1024 bytes (RFC 8166 §3.3.2),
         * less {@link #REPLY_HEADER_RESERVE}.
         */
        public static final ReplySize INLINE = new ReplySize(1024 - REPLY_HEADER_RESERVE, List.of());

        /**
         * The largest RPC accepted-reply header a binding sizes its replies with: XID, message type,
         * reply status, the verifier's flavor and length, a verifier body of up to 400 bytes, and the
         * accept status (RFC 5531).
         */
        public static final int RPC_HEADER_MAX = 6 * 4 + 400;

        /**
         * Copies the list and checks the lengths.
         *
         * @param maxLength         the largest reply
         * @param payloadMaxLengths the largest DDP-eligible results
         */
        public ReplySize {
            payloadMaxLengths = List.copyOf(payloadMaxLengths);
            boolean negative = maxLength < 0;
            for (int i = 0; i < payloadMaxLengths.size(); i++) {
                negative |= payloadMaxLengths.get(i) < 0;
            }
            if (negative) {
                throw new IllegalArgumentException("negative reply length");
            }
        }
    }
}
