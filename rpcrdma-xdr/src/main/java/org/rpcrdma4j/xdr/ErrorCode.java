package org.rpcrdma4j.xdr;

/** The {@code rdma_err} field of an RDMA_ERROR message (RFC 8166 §4.5). */
public enum ErrorCode {
    /** The responder does not support the header's version; carries the supported range. */
    ERR_VERS(1),
    /** The header or its chunks could not be parsed or used. */
    ERR_CHUNK(2);

    private final int value;

    ErrorCode(int value) {
        this.value = value;
    }

    /** @return the value of this code on the wire */
    public int value() {
        return value;
    }

    /**
     * Looks up a code by its wire value.
     *
     * @param value the {@code rdma_err} word
     * @return the code, or {@code null} if the value names none
     */
    public static ErrorCode fromValue(int value) {
        return switch (value) {
            case 1 -> ERR_VERS;
            case 2 -> ERR_CHUNK;
            default -> null;
        };
    }
}
