package org.rpcrdma4j.verbs;

/**
 * libibverbs or librdmacm could not be loaded, or lacks a function this module binds. On Debian
 * and Ubuntu the libraries are the packages {@code libibverbs1} and {@code librdmacm1}; a device
 * also needs its provider ({@code ibverbs-providers}, which holds Soft-RoCE's {@code rxe}).
 */
public final class LibraryUnavailableException extends VerbsException {
    private static final long serialVersionUID = 1L;

    private final String library;

    LibraryUnavailableException(String library, String packageName, String reason) {
        super("dlopen " + library, library + " is unavailable (install " + packageName + "): " + reason);
        this.library = library;
    }

    /** @return the shared object that failed, e.g. {@code "librdmacm.so.1"} */
    public String library() {
        return library;
    }
}
