package org.rpcrdma4j.xdr;

/**
 * A DDP-eligible XDR data item that travels in a chunk instead of inline: where its data starts in
 * the unreduced XDR stream and how many data bytes it has, without its XDR pad.
 *
 * @param offset byte offset of the item's data in the unreduced stream, a multiple of four; for a
 *               Read chunk this is the chunk's position
 * @param length data bytes of the item, without pad
 */
public record XdrItem(long offset, long length) {

    /**
     * Checks the item is aligned and not negative.
     *
     * @param offset byte offset in the unreduced stream
     * @param length data bytes
     */
    public XdrItem {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("negative offset or length: " + offset + ", " + length);
        }
        if (!RoundUp.isAligned(offset)) {
            throw new IllegalArgumentException("XDR item offset " + offset + " is not a multiple of 4");
        }
    }
}
