package org.rpcrdma4j.xdr;

import java.util.Objects;

/**
 * The body of an RDMA_ERROR message (RFC 8166 §4.5): ERR_VERS with the lowest and highest version
 * the sender supports, or ERR_CHUNK.
 *
 * @param code the error code
 * @param low  lowest supported version, u32 (ERR_VERS only, otherwise 0)
 * @param high highest supported version, u32 (ERR_VERS only, otherwise 0)
 */
public record RdmaError(ErrorCode code, int low, int high) {

    private static final RdmaError ERR_CHUNK = new RdmaError(ErrorCode.ERR_CHUNK, 0, 0);

    /**
     * Checks that only ERR_VERS carries a version range.
     *
     * @param code the error code
     * @param low  lowest supported version
     * @param high highest supported version
     */
    public RdmaError {
        Objects.requireNonNull(code, "code");
        if (code == ErrorCode.ERR_CHUNK && (low != 0 || high != 0)) {
            throw new IllegalArgumentException("ERR_CHUNK carries no version range");
        }
    }

    /**
     * @param low  lowest supported version
     * @param high highest supported version
     * @return an ERR_VERS body
     */
    public static RdmaError errVers(int low, int high) {
        return new RdmaError(ErrorCode.ERR_VERS, low, high);
    }

    /** @return the ERR_CHUNK body */
    public static RdmaError errChunk() {
        return ERR_CHUNK;
    }

    /** @return the number of bytes this body takes on the wire after the four fixed header words */
    public int encodedLength() {
        return code == ErrorCode.ERR_VERS ? 12 : 4;
    }
}
