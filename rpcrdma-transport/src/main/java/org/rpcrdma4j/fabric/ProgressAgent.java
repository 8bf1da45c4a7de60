package org.rpcrdma4j.fabric;

/**
 * A fabric's work on its progress thread, run by a {@link ProgressRunner} in duty cycles (as Agrona's
 * agents are): the commands other threads handed over, then the device's completions and events.
 * Everything a fabric and the transport above it do happens on that thread, so neither needs locks.
 */
public interface ProgressAgent {

    /**
     * One duty cycle; it must not block.
     *
     * @return the work done (commands run, completions and events handled); 0 when there was none
     * @throws Exception a failure the fabric cannot go on from: the runner logs it and stops
     */
    int doWork() throws Exception;

    /**
     * Asked after a cycle that did nothing: whether nothing can happen until another thread hands
     * work over or the device wakes the thread, so that the runner may wait for that. A fabric whose
     * device completes without telling the thread (the EFA endpoint on a NIC) answers false and keeps
     * its idle strategy.
     *
     * @return whether the thread may wait to be woken
     */
    default boolean quiet() {
        return true;
    }

    /** Runs on the progress thread once the runner stops: ends connections, releases the device. */
    default void onStop() {
    }
}
