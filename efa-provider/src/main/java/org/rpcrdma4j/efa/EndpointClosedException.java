package org.rpcrdma4j.efa;

/**
 * Thrown by every call of an {@link EfaEndpoint} after {@link EfaEndpoint#close()}, except
 * {@code close} itself and the calls that read what is left: {@code poll}, {@code counter} and
 * {@code gauge}.
 */
public final class EndpointClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** @param address the closed endpoint's address */
    EndpointClosedException(EndpointAddress address) {
        super("the endpoint " + address + " is closed");
    }
}
