package org.rpcrdma4j.xdr;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * A received RPC-over-RDMA message broke a {@link Rule}. Carries what a responder needs to answer:
 * the rule (and so the {@link Action}), and the XID and version of the message when they were there.
 *
 * <p>Immutable and without a stack trace: it reports bad input, not a bug.
 */
public final class RpcRdmaDecodeException extends Exception {

    private static final long serialVersionUID = 1L;

    private final Rule rule;
    private final boolean hasXid;
    private final int xid;
    private final boolean hasVers;
    private final int vers;

    private RpcRdmaDecodeException(Rule rule, boolean hasXid, int xid, boolean hasVers, int vers, String message) {
        super(message, null, false, false);
        this.rule = rule;
        this.hasXid = hasXid;
        this.xid = xid;
        this.hasVers = hasVers;
        this.vers = vers;
    }

    /**
     * @param rule    the broken rule; its action must be DROP since there is no XID to answer to
     * @param message what was wrong, naming value and limit
     * @return an exception for a message without an XID
     */
    static RpcRdmaDecodeException withoutXid(Rule rule, String message) {
        return new RpcRdmaDecodeException(rule, false, 0, false, 0, message);
    }

    /**
     * @param rule    the broken rule
     * @param xid     the XID of the message
     * @param message what was wrong, naming value and limit
     * @return an exception for a message with an XID but no complete version word
     */
    static RpcRdmaDecodeException withXid(Rule rule, int xid, String message) {
        return new RpcRdmaDecodeException(rule, true, xid, false, 0, message);
    }

    /**
     * @param rule    the broken rule
     * @param xid     the XID of the message
     * @param vers    the version word of the message
     * @param message what was wrong, naming value and limit
     * @return an exception for a message with both XID and version word
     */
    static RpcRdmaDecodeException withHeader(Rule rule, int xid, int vers, String message) {
        return new RpcRdmaDecodeException(rule, true, xid, true, vers, message);
    }

    /** @return the broken rule */
    public Rule rule() {
        return rule;
    }

    /** @return what a responder does about it */
    public Action action() {
        return rule.action();
    }

    /** @return the XID of the offending message, if it had one */
    public OptionalInt xid() {
        return hasXid ? OptionalInt.of(xid) : OptionalInt.empty();
    }

    /**
     * Builds the RDMA_ERROR a responder sends back, as Linux svcrdma forms it: the failing message's
     * XID and version word (version 1 if the message was too short to have one), the responder's
     * credits, and ERR_VERS with low = high = 1 or ERR_CHUNK.
     *
     * @param credits the credit value the responder grants
     * @return the answer, or empty when the rule says to drop the message
     */
    public Optional<RpcRdmaHeader> answer(int credits) {
        RdmaError body = switch (rule.action()) {
            case ERR_VERS -> RdmaError.errVers(RpcRdmaHeader.VERSION, RpcRdmaHeader.VERSION);
            case ERR_CHUNK -> RdmaError.errChunk();
            case DROP -> null;
        };
        if (body == null) {
            return Optional.empty();
        }
        return Optional.of(RpcRdmaHeader.error(xid, hasVers ? vers : RpcRdmaHeader.VERSION, credits, body));
    }
}
