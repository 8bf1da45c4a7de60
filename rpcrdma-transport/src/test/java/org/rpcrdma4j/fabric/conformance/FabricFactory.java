package org.rpcrdma4j.fabric.conformance;

import org.rpcrdma4j.fabric.Fabric;

/**
 * What a fabric module gives the conformance kit: fabrics of its kind on one network, the way to
 * close each, the one fault the kit injects, and the one choice the seam leaves to a fabric. The kit
 * asks for a new factory, so a new network, for every test and closes it after the test.
 */
public interface FabricFactory extends AutoCloseable {

    /**
     * @return a new fabric on a host of its own, with the address a service listens on (verbs RC:
     *     port 20049); it listens once the kit calls {@link Fabric#listen}
     */
    Fabric server();

    /** @return a new fabric on a host of its own, to connect from */
    Fabric client();

    /**
     * Closes a fabric of this factory as its owner does: every connection ends (what was posted comes
     * back flushed, each listener hears the end once, and so does each peer), everything it holds is
     * released, registrations left by its user included, and its progress stops; its statistics stay
     * readable. Closing again does nothing.
     *
     * @param fabric a fabric of this factory
     */
    void close(Fabric fabric);

    /**
     * Breaks every connection of a fabric as a device that fails or a process that dies does, with no
     * orderly close: each end hears its connection end once, with a status other than
     * {@link org.rpcrdma4j.fabric.FabricStatus#CLOSED}, after what it posted came back. The fabric
     * can connect again afterwards (to the addresses it knew; a fabric whose address the fault
     * changed has a new {@link Fabric#localAddress()}).
     *
     * @param fabric a fabric of this factory, open
     */
    void breakConnections(Fabric fabric);

    /**
     * The one behaviour the seam leaves to the fabric ({@link org.rpcrdma4j.fabric.FabricStatus#MESSAGE_TOO_LONG}
     * concerns one message): whether a message longer than its receive also ends its connection. On
     * verbs RC it does (the receiver's local length error puts the queue pair in the error state); on
     * EFA RDM only that receive fails (the endpoint reports the truncation and goes on).
     *
     * @return whether the connection ends
     */
    boolean messageTooLongEndsConnection();

    /** Closes every fabric not closed yet, then the network. */
    @Override
    void close();
}
