package org.rpcrdma4j.efa;

import java.util.Objects;

/**
 * One entry of an endpoint's completion queue: an operation the application started has ended,
 * the analogue of libfabric's {@code fi_cq_tagged_entry} with the error fields of
 * {@code fi_cq_err_entry} folded in (the libfabric programmer's guide, "Completion Queues").
 *
 * @param kind what completed
 * @param context the context the application gave when it started the operation
 * @param length for a receive, the bytes placed in the buffer; otherwise the bytes moved
 * @param tag for a tagged receive, the tag of the message received; otherwise 0
 * @param cqData for a receive with {@code hasCqData}, the remote CQ data the sender attached
 * @param hasCqData whether the sender attached CQ data ({@code FI_REMOTE_CQ_DATA})
 * @param source for a receive, the address-vector handle of the sender (peers inserted implicitly
 *     from a raw-address header get one too); otherwise the peer the operation addressed
 * @param error {@link EfaErrorCode#SUCCESS}, or why the operation failed
 */
public record CompletionEntry(Kind kind, long context, long length, long tag, long cqData, boolean hasCqData,
                              long source, EfaErrorCode error) {

    /** What a completion entry completes. */
    public enum Kind {
        /** An untagged send. */
        SEND,
        /** A tagged send. */
        TAGGED_SEND,
        /** An untagged receive. */
        RECV,
        /** A tagged receive. */
        TAGGED_RECV,
        /** An RDMA read, direct or emulated. */
        READ,
        /** An RDMA write, direct or emulated. */
        WRITE,
        /** A write atomic ({@code fi_atomic}); {@code length} is the bytes of its elements. */
        ATOMIC,
        /** A fetch atomic ({@code fi_fetch_atomic}): the elements before it are in the result buffer. */
        FETCH_ATOMIC,
        /** A compare atomic ({@code fi_compare_atomic}): the elements before it are in the result buffer. */
        COMPARE_ATOMIC,
        /**
         * A peer's write with remote CQ data landed in this endpoint's registered memory
         * ({@code FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA}): {@code length} bytes, {@code cqData} as sent;
         * {@code context} is 0. Writes without CQ data complete only at the initiator (§3.3).
         */
        REMOTE_WRITE
    }

    /**
     * Checks the components.
     *
     * @param kind what completed
     * @param context the application's context
     * @param length bytes placed or moved
     * @param tag the tag of a tagged receive
     * @param cqData remote CQ data
     * @param hasCqData whether remote CQ data is present
     * @param source the peer's address-vector handle
     * @param error the outcome
     */
    public CompletionEntry {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(error, "error");
    }

    /** @return whether the operation succeeded */
    public boolean ok() {
        return error == EfaErrorCode.SUCCESS;
    }
}
