package org.rpcrdma4j.efa.device.verbs;

import java.nio.ByteBuffer;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * What a NIC seam ({@link RcNic}, {@link SrdNic}) offers {@link NicRegistrations}: registering direct
 * memory and giving it back. Not thread-safe: the device's progress thread calls it.
 */
interface NicMemory {

    /** A registration: its first byte's address, its length and keys, as work requests and peers name it. */
    record Registration(long address, long length, int lkey, int rkey) {
    }

    /**
     * Registers a direct buffer's bytes from its position to its limit ({@code ibv_reg_mr}), local
     * write always granted.
     *
     * @return the registration, or null if the NIC refuses more (ENOMEM)
     */
    Registration register(ByteBuffer memory, boolean remoteRead, boolean remoteWrite) throws VerbsException;

    /** Deregisters ({@code ibv_dereg_mr}). */
    void deregister(Registration registration) throws VerbsException;
}
