package org.rpcrdma4j.efa.endpoint;

import org.rpcrdma4j.efa.EndpointCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the progress path records an exception it contained (no RuntimeException escapes an
 * agent): each is counted ({@link EndpointCounter#PROGRESS_ERRORS}); the first is
 * logged with its stack trace and the rest at debug level, so that a peer that provokes one per
 * packet cannot flood the log. The caller decides what the exception costs: a packet, an
 * operation or a peer, never the endpoint.
 */
final class ProgressErrors {

    private static final Logger LOG = LoggerFactory.getLogger(ProgressErrors.class);

    private final Counters counters;
    private boolean logged;

    ProgressErrors(Counters counters) {
        this.counters = counters;
    }

    void record(String where, RuntimeException e) {
        counters.increment(EndpointCounter.PROGRESS_ERRORS);
        if (!logged) {
            logged = true;
            LOG.warn("contained an exception on the progress path while {}; later ones are logged at debug level",
                    where, e);
        } else {
            LOG.debug("contained an exception on the progress path while {}", where, e);
        }
    }
}
