package org.rpcrdma4j.efa.device.conformance;

import org.rpcrdma4j.efa.device.Device;

/**
 * Faults a {@link DeviceFactory} may be able to put on what one device sends another, within what
 * SRD allows: reordering, and receiver-not-ready although a receive is posted (an overloaded peer,
 * libfabric's EFA completion paths, "Dealing with receiver not ready errors"). No loss: SRD
 * delivers every packet exactly once. A factory that cannot inject faults does not implement this,
 * and the checks that need it are skipped.
 */
public interface LinkFaults {

    /**
     * From now on, what {@code from} sends {@code to} arrives in an order other than the one it was
     * posted in, often enough that a hundred packets in flight are reordered.
     *
     * @param from the sending device, of this factory
     * @param to the receiving device, of this factory
     */
    void reorder(Device from, Device to);

    /**
     * From now on, every packet {@code from} sends {@code to} is refused with receiver-not-ready, as
     * if no receive were posted, and takes no receive buffer.
     *
     * @param from the sending device, of this factory
     * @param to the receiving device, of this factory
     */
    void receiverNotReady(Device from, Device to);

    /**
     * Takes the link's faults away for what is posted from now on.
     *
     * @param from the sending device
     * @param to the receiving device
     */
    void clear(Device from, Device to);
}
