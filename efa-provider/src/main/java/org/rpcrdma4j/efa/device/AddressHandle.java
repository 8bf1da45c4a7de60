package org.rpcrdma4j.efa.device;

import java.util.Objects;

/**
 * A device's handle for a peer GID, made by {@link Device#createAddressHandle(Gid)}. Sends and RDMA
 * operations go to (address handle, QPN, Q-Key); a receive completion names the handle of its
 * source only if one exists for the source's GID (EFA RDM protocol v4 §2.2).
 *
 * <p>Only the device that made a handle accepts it, and only until it is destroyed.
 *
 * @param ahn the address handle number, chosen by the device
 * @param gid the peer GID the handle stands for
 */
public record AddressHandle(int ahn, Gid gid) {

    /**
     * Checks the components.
     *
     * @param ahn the address handle number
     * @param gid the peer GID
     */
    public AddressHandle {
        Objects.requireNonNull(gid, "gid");
    }
}
