package org.rpcrdma4j.fabric;

/** No fabric module of the name asked for is on the class or module path, or it failed to load. */
public final class FabricNotFoundException extends Exception {

    private static final long serialVersionUID = 1L;

    FabricNotFoundException(String message) {
        super(message);
    }
}
