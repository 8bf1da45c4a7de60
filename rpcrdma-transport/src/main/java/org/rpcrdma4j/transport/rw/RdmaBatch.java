package org.rpcrdma4j.transport.rw;

import java.util.function.Consumer;

/**
 * Joins the completions of several RDMA operations: the callback runs once, when the last ends, with
 * the first error or {@code null}. Progress thread only.
 */
public final class RdmaBatch {

    private final Consumer<String> done;
    private int pending;
    private boolean sealed;
    private String error;

    /** @param done called once with the first error or {@code null}, after {@link #seal} and every operation */
    public RdmaBatch(Consumer<String> done) {
        this.done = done;
    }

    /** @return the callback to give one more operation */
    public Consumer<String> operation() {
        pending++;
        return result -> {
            if (result != null && error == null) {
                error = result;
            }
            pending--;
            finishIfDone();
        };
    }

    /** Declares that every operation has been started. */
    public void seal() {
        sealed = true;
        finishIfDone();
    }

    private void finishIfDone() {
        if (sealed && pending == 0) {
            sealed = false;
            done.accept(error);
        }
    }
}
