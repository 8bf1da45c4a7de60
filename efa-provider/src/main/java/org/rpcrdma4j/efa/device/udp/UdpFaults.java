package org.rpcrdma4j.efa.device.udp;

/**
 * Faults the device's fault injector puts on the datagrams it sends, before the socket: loss,
 * duplication and reordering, each drawn from the injector's seeded random source
 * ({@link UdpDeviceConfig#faultSeed()}). They apply to every datagram (data, acknowledgements,
 * answers), so they exercise the reliability layer; what the device's user sees stays SRD:
 * every packet once, in any order. Set them for everything a device sends with
 * {@link UdpDeviceConfig.Builder#withFaults(UdpFaults)}, or per destination at run time with
 * {@link UdpDevice#setLinkFaults(java.net.InetSocketAddress, UdpFaults)}. For tests and soak runs;
 * the default is {@link #NONE}.
 *
 * @param lossProbability the chance a datagram is not sent
 * @param duplicateProbability the chance a datagram is sent twice
 * @param reorderProbability the chance a datagram is held back and sent after later ones
 * @param reorderWindow how many later datagrams may overtake a held one, at most; a held datagram
 *     also leaves at the next timer tick
 */
public record UdpFaults(double lossProbability, double duplicateProbability, double reorderProbability,
                        int reorderWindow) {

    /** No faults. */
    public static final UdpFaults NONE = new UdpFaults(0, 0, 0, 0);

    /**
     * Checks the components.
     *
     * @param lossProbability the chance a datagram is not sent
     * @param duplicateProbability the chance a datagram is sent twice
     * @param reorderProbability the chance a datagram is held back
     * @param reorderWindow how many later datagrams may overtake a held one
     * @throws IllegalArgumentException if a probability is outside [0, 1], loss is certain, or
     *     reordering is asked for with a window below 1
     */
    public UdpFaults {
        requireProbability(lossProbability);
        requireProbability(duplicateProbability);
        requireProbability(reorderProbability);
        if (lossProbability >= 1) {
            throw new IllegalArgumentException("a link that loses everything is a link that is down");
        }
        if (reorderWindow < 0 || (reorderProbability > 0 && reorderWindow < 1)) {
            throw new IllegalArgumentException("reordering needs a window of at least 1, not " + reorderWindow);
        }
    }

    /**
     * @param probability the chance a datagram is lost
     * @return these faults with that loss
     */
    public UdpFaults withLoss(double probability) {
        return new UdpFaults(probability, duplicateProbability, reorderProbability, reorderWindow);
    }

    /**
     * @param probability the chance a datagram is sent twice
     * @return these faults with that duplication
     */
    public UdpFaults withDuplication(double probability) {
        return new UdpFaults(lossProbability, probability, reorderProbability, reorderWindow);
    }

    /**
     * @param probability the chance a datagram is held back
     * @param window how many later datagrams may overtake it
     * @return these faults with that reordering
     */
    public UdpFaults withReorder(double probability, int window) {
        return new UdpFaults(lossProbability, duplicateProbability, probability, window);
    }

    /**
     * Reads faults written as {@code loss=P,duplicate=P,reorder=P,window=N} (any of them, in any order;
     * one left out is 0), the form a system property can carry into another process.
     *
     * @param text the faults, e.g. {@code duplicate=0.01,reorder=0.02,window=8}
     * @return those faults
     * @throws IllegalArgumentException if a part is not one of those four names with a number, or the
     *     faults are not valid (see the constructor)
     */
    public static UdpFaults parse(String text) {
        double loss = 0;
        double duplicate = 0;
        double reorder = 0;
        int window = 0;
        for (String part : text.split(",")) {
            String[] nameAndValue = part.trim().split("=", 2);
            String value = nameAndValue.length == 2 ? nameAndValue[1].trim() : "";
            try {
                switch (nameAndValue[0].trim()) {
                    case "loss" -> loss = Double.parseDouble(value);
                    case "duplicate" -> duplicate = Double.parseDouble(value);
                    case "reorder" -> reorder = Double.parseDouble(value);
                    case "window" -> window = Integer.parseInt(value);
                    default -> throw new IllegalArgumentException("'" + part + "' in '" + text
                            + "' is none of loss=P, duplicate=P, reorder=P, window=N");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + part + "' in '" + text + "' has no number");
            }
        }
        return new UdpFaults(loss, duplicate, reorder, window);
    }

    /** @return whether these are no faults at all */
    public boolean none() {
        return lossProbability == 0 && duplicateProbability == 0 && reorderProbability == 0;
    }

    private static void requireProbability(double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("probability " + p + " is outside [0, 1]");
        }
    }
}
