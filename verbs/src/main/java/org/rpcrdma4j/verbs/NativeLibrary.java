package org.rpcrdma4j.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;

/** The rdma-core libraries, each loaded once per process; a failure is remembered and repeated. */
enum NativeLibrary {
    IBVERBS("libibverbs.so.1", "libibverbs1"),
    RDMACM("librdmacm.so.1", "librdmacm1"),
    /** EFA's direct verbs; Debian ships the library in the EFA provider's package. */
    EFA("libefa.so.1", "ibverbs-providers");

    private final String soname;
    private final String packageName;
    private SymbolLookup lookup;
    private String failure;

    NativeLibrary(String soname, String packageName) {
        this.soname = soname;
        this.packageName = packageName;
    }

    /**
     * Loads the library if not yet loaded.
     *
     * @throws LibraryUnavailableException if it cannot be loaded, now or before
     */
    synchronized SymbolLookup require() throws LibraryUnavailableException {
        if (lookup == null && failure == null) {
            try {
                lookup = SymbolLookup.libraryLookup(soname, Arena.global());
            } catch (IllegalArgumentException e) {
                failure = e.getMessage();
            }
        }
        if (lookup == null) {
            throw unavailable(failure);
        }
        return lookup;
    }

    /** The lookup of a library that {@link #require()} has loaded; for the binding classes' initialisers. */
    synchronized SymbolLookup loaded() {
        if (lookup == null) {
            throw new IllegalStateException(soname + " not loaded");
        }
        return lookup;
    }

    LibraryUnavailableException unavailable(String reason) {
        return new LibraryUnavailableException(soname, packageName, reason);
    }
}
