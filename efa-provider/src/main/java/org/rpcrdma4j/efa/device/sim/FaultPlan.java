package org.rpcrdma4j.efa.device.sim;

/**
 * Faults applied to the operations sent over a link: delay, reordering and injected
 * receiver-not-ready. Set one per device for everything it sends
 * ({@link SimDeviceConfig#withFaults(FaultPlan)}) or per directed link
 * ({@link SimFabric#setLinkFaults(SimDevice, SimDevice, FaultPlan)}), which takes precedence.
 * There is no loss: EFA's SRD transport is reliable, only unordered.
 *
 * @param minDelayNs the least time an operation spends on the wire
 * @param maxDelayNs the most; each operation draws uniformly from {@code [min, max]}
 * @param reorderProbability the chance that an operation is overtaken by later ones that became
 *     due in the same {@link SimFabric#progress(long)} call
 * @param reorderWindow how many of those later operations may overtake it, at most
 * @param rnrProbability the chance that a receiver reports receiver-not-ready although it has a
 *     receive posted, as an overloaded peer does
 */
public record FaultPlan(long minDelayNs, long maxDelayNs, double reorderProbability, int reorderWindow,
                        double rnrProbability) {

    /** No faults: every operation is executed at the next progress, in the order posted. */
    public static final FaultPlan NONE = new FaultPlan(0, 0, 0, 0, 0);

    /**
     * Checks the components.
     *
     * @param minDelayNs the least time an operation spends on the wire
     * @param maxDelayNs the most; each operation draws uniformly from {@code [min, max]}
     * @param reorderProbability the chance that an operation is overtaken by later ones that became
     *     due in the same {@link SimFabric#progress(long)} call
     * @param reorderWindow how many of those later operations may overtake it, at most
     * @param rnrProbability the chance that a receiver reports receiver-not-ready although it has a
     *     receive posted, as an overloaded peer does
     * @throws IllegalArgumentException if a delay is negative or the range inverted, a
     *     probability is outside [0, 1], or reordering is asked for with a window below 1
     */
    public FaultPlan {
        if (minDelayNs < 0 || maxDelayNs < minDelayNs || maxDelayNs == Long.MAX_VALUE) {
            throw new IllegalArgumentException("bad delay range [" + minDelayNs + ", " + maxDelayNs + "]");
        }
        requireProbability(reorderProbability);
        requireProbability(rnrProbability);
        if (reorderWindow < 0 || (reorderProbability > 0 && reorderWindow < 1)) {
            throw new IllegalArgumentException("reordering needs a window of at least 1, not " + reorderWindow);
        }
    }

    /**
     * @param minNs the least delay
     * @param maxNs the most delay
     * @return this plan with that delay range
     */
    public FaultPlan withDelay(long minNs, long maxNs) {
        return new FaultPlan(minNs, maxNs, reorderProbability, reorderWindow, rnrProbability);
    }

    /**
     * @param probability the chance an operation is overtaken
     * @param window how many later operations may overtake it
     * @return this plan with that reordering
     */
    public FaultPlan withReorder(double probability, int window) {
        return new FaultPlan(minDelayNs, maxDelayNs, probability, window, rnrProbability);
    }

    /**
     * @param probability the chance a receiver with a receive posted still reports RNR
     * @return this plan with that injected RNR
     */
    public FaultPlan withRnr(double probability) {
        return new FaultPlan(minDelayNs, maxDelayNs, reorderProbability, reorderWindow, probability);
    }

    private static void requireProbability(double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("probability " + p + " is outside [0, 1]");
        }
    }
}
