package org.rpcrdma4j.transport.rw;

import java.util.function.Consumer;
import org.rpcrdma4j.fabric.FabricStatus;

/**
 * Joins the completions of several RDMA operations: the callback runs once, when the last ends, with
 * the first failure or {@link FabricStatus#SUCCESS}. Progress thread only.
 */
public final class RdmaBatch {

    private final Consumer<FabricStatus> done;
    private int pending;
    private boolean sealed;
    private FabricStatus outcome = FabricStatus.SUCCESS;

    /** @param done called once with the first failure or success, after {@link #seal} and every operation */
    public RdmaBatch(Consumer<FabricStatus> done) {
        this.done = done;
    }

    /** @return the callback to give one more operation */
    public Consumer<FabricStatus> operation() {
        pending++;
        return result -> {
            if (!result.ok() && outcome.ok()) {
                outcome = result;
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
            done.accept(outcome);
        }
    }
}
