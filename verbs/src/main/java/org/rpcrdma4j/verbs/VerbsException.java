package org.rpcrdma4j.verbs;

import java.io.IOException;

/**
 * A libibverbs, librdmacm or libc call failed. Carries the name of the call and the {@code errno}
 * it reported, with the errno's symbolic name and meaning.
 */
public class VerbsException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    /**
     * @param call the native function that failed, e.g. {@code "rdma_bind_addr"}
     * @param errno the error number it reported, 0 if it reported none
     */
    public VerbsException(String call, int errno) {
        super(call + " failed: " + (errno == 0 ? "no errno" : Errno.name(errno) + " (" + Errno.description(errno) + ")"));
        this.call = call;
        this.errno = errno;
    }

    /**
     * For failures that are not an errno, such as a library that cannot be loaded.
     *
     * @param call what failed
     * @param message why
     */
    protected VerbsException(String call, String message) {
        super(message);
        this.call = call;
        this.errno = 0;
    }

    /** @return the native function that failed */
    public String call() {
        return call;
    }

    /** @return the errno it reported, 0 if none */
    public int errno() {
        return errno;
    }

    /** @return the errno's symbolic name, e.g. {@code "ENODEV"} */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** @return the errno's meaning, e.g. {@code "No such device"} */
    public String errnoDescription() {
        return Errno.description(errno);
    }
}
