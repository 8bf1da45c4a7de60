package org.rpcrdma4j.fabric;

/**
 * What a progress thread does after each duty cycle, told how much work the cycle did (as Agrona's
 * idle strategies are): nothing while there is work; spin, yield or park while there is none. An
 * instance serves one thread and keeps its state between cycles.
 */
@FunctionalInterface
public interface IdleStrategy {

    /**
     * Called by the progress thread after each cycle.
     *
     * @param work what the cycle did (commands run, completions handled); 0 when it found nothing
     */
    void idle(int work);
}
