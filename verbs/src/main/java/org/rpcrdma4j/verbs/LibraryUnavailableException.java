package org.rpcrdma4j.verbs;

/**
 * libibverbs, librdmacm or libefa could not be loaded, or lacks a function this module binds. On
 * Debian and Ubuntu the libraries are the packages {@code libibverbs1}, {@code librdmacm1} and
 * {@code ibverbs-providers} (libefa); a device also needs its provider ({@code ibverbs-providers},
 * which holds Soft-RoCE's {@code rxe} and EFA's {@code efa}).
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
