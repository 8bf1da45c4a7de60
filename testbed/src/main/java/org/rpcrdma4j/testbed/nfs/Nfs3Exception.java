package org.rpcrdma4j.testbed.nfs;

import java.io.IOException;

/** An NFSv3 or MOUNT v3 reply whose status is not OK; {@link #status()} is the nfsstat3 (or mountstat3) value. */
public final class Nfs3Exception extends IOException {

    private static final long serialVersionUID = 1L;

    private final int status;

    /** @param status the nfsstat3/mountstat3 value; @param what the operation that failed */
    public Nfs3Exception(int status, String what) {
        super(what + ": " + Nfs3.statusName(status));
        this.status = status;
    }

    /** The nfsstat3 (or mountstat3) value of the reply. */
    public int status() {
        return status;
    }
}
