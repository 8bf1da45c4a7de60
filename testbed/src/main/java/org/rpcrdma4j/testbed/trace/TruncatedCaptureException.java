package org.rpcrdma4j.testbed.trace;

import java.io.IOException;

/**
 * A capture that ends inside a frame or block, as a capture does when the capturing process was
 * stopped hard or the file was copied while being written. The frames before the cut were read.
 */
public final class TruncatedCaptureException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int frame;

    /**
     * @param frame   the frame that the cut fell in or before, as Wireshark would number it
     * @param message what was cut short
     */
    public TruncatedCaptureException(int frame, String message) {
        super(message);
        this.frame = frame;
    }

    /** @return the frame that the cut fell in or before; every frame before it was read */
    public int frame() {
        return frame;
    }
}
