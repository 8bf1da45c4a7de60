package org.rpcrdma4j.efa.endpoint;

/**
 * The steps of a close: each runs even if one before it failed, so that what it frees is freed; the
 * first failure is thrown once all have run, with the later ones suppressed in it.
 */
final class CloseSteps {

    private RuntimeException failure;

    void run(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
    }

    /** @throws RuntimeException the first step's failure, if one failed */
    void throwFirstFailure() {
        if (failure != null) {
            throw failure;
        }
    }
}
