package org.rpcrdma4j.nfs;

import org.rpcrdma4j.transport.DdpPolicy;

/**
 * The receive buffer the Linux 6.1 client sets up for the reply to a call, which decides whether it
 * provides a chunk: xprtrdma provides one exactly when this buffer exceeds its inline receive size
 * ({@code rpcrdma_results_inline}). Its size ({@code rq_rcv_buf.buflen}) is the RPC reply header
 * ({@code RPC_REPHDRSIZE}, 4 words) with the verifier the credential's flavor allows for
 * ({@code au_rslack}), the procedure's largest reply in XDR words ({@code p_replen}), and the page
 * bytes its encoder adds for bulk results ({@code rpc_prepare_reply_pages}). A binding that sizes its
 * replies this way asks for the chunks Linux asks for.
 */
public final class LinuxReplyBuffer {

    private static final int AUTH_NONE = 0;
    private static final int AUTH_SYS = 1;
    /** The call header before the credential: XID, msg_type, RPC version, program, version, procedure. */
    private static final int CREDENTIAL_OFFSET = 6 * 4;

    /**
     * The reply header under AUTH_NONE and AUTH_SYS: XID, msg_type, reply_stat, the AUTH_NONE verifier's
     * flavor and length, accept_stat (Linux: {@code RPC_REPHDRSIZE} plus {@code NUL_REPLYSLACK}, the
     * slack of both flavors until a reply's verifier says otherwise; Linux's server sends AUTH_NONE).
     */
    public static final int HEADER_AUTH_SYS = (4 + 2) * 4;

    /** A NULL procedure's {@code p_replen}: none, raised to the two words of an accepted reply's floor. */
    public static final int NULL_REPLY_WORDS = 2;

    private LinuxReplyBuffer() {
    }

    /**
     * @param call the encoded call
     * @return the room for the reply's RPC header: {@link #HEADER_AUTH_SYS} for AUTH_NONE and AUTH_SYS
     *     calls; for any other flavor, or a call whose header is not in the message, the largest verifier
     *     RFC 5531 allows ({@link DdpPolicy.ReplySize#RPC_HEADER_MAX}), as Linux's RPCSEC_GSS slack is only
     *     known to the client
     */
    public static int header(DdpPolicy.RpcMessage call) {
        if (call.bodyOffset() < CREDENTIAL_OFFSET + 8) {
            return DdpPolicy.ReplySize.RPC_HEADER_MAX;
        }
        int flavor = call.bytes().getInt(CREDENTIAL_OFFSET);
        return flavor == AUTH_NONE || flavor == AUTH_SYS ? HEADER_AUTH_SYS : DdpPolicy.ReplySize.RPC_HEADER_MAX;
    }

    /**
     * @param call       the encoded call
     * @param replyWords the procedure's largest reply in XDR words, without the RPC header
     *                   (Linux's {@code p_replen})
     * @param pageBytes  the page bytes Linux's encoder adds for a bulk result, 0 when none
     * @return the size of Linux's receive buffer for the reply
     */
    public static long size(DdpPolicy.RpcMessage call, int replyWords, long pageBytes) {
        return header(call) + 4L * replyWords + pageBytes;
    }
}
