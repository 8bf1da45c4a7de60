package org.rpcrdma4j.xdr;

/**
 * Bounds the decoder puts on counts read from the wire before anything is sized from them.
 *
 * <p>The defaults accept everything the Linux client sends: at most 16 segments per chunk, and far
 * fewer chunks than allowed here (one Read chunk plus a Position-zero chunk, one Write chunk).
 *
 * @param maxSegmentsPerChunk most segments in one Read chunk, Write chunk or the Reply chunk
 * @param maxReadChunks       most distinct positions in the Read list
 * @param maxWriteChunks      most chunks in the Write list
 */
public record DecodeLimits(int maxSegmentsPerChunk, int maxReadChunks, int maxWriteChunks) {

    /** 16 segments per chunk, 8 Read chunks, 8 Write chunks. */
    public static final DecodeLimits DEFAULT = new DecodeLimits(16, 8, 8);

    /**
     * Checks every limit is at least one.
     *
     * @param maxSegmentsPerChunk most segments in one chunk
     * @param maxReadChunks       most Read chunks
     * @param maxWriteChunks      most Write chunks
     */
    public DecodeLimits {
        if (maxSegmentsPerChunk < 1 || maxReadChunks < 1 || maxWriteChunks < 1) {
            throw new IllegalArgumentException("limits must be at least 1: " + maxSegmentsPerChunk + ", "
                    + maxReadChunks + ", " + maxWriteChunks);
        }
    }

    /** @return the most entries a valid Read list can have under these limits */
    public int maxReadSegments() {
        return maxReadChunks * maxSegmentsPerChunk;
    }
}
