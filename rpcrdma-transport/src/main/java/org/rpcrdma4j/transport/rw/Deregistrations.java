package org.rpcrdma4j.transport.rw;

import java.util.List;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.Registration;

/**
 * Deregisters the registrations of one piece of work together, each with a continuation
 * ({@link Fabric#deregister(Registration, long, Runnable)}), and goes on once the fabric is done with
 * all their memory: a fabric may still copy into or out of it after the deregistration returns, so the
 * memory is read, given back or disposed only then. Progress thread only.
 */
public final class Deregistrations {

    private Deregistrations() {
    }

    /**
     * @param fabric        the fabric they are registered with
     * @param registrations the registrations, none deregistered yet
     * @param readable      the bytes of each, from its first, the caller will read; 0 for none (memory
     *                      never written has none to read back whatever this says)
     * @param then          runs on the progress thread once every registration's continuation has run:
     *                      at once for none
     */
    public static void all(Fabric fabric, List<Registration> registrations, long readable, Runnable then) {
        if (registrations.isEmpty()) {
            then.run();
            return;
        }
        int[] left = {registrations.size()};
        Runnable one = () -> {
            if (--left[0] == 0) {
                then.run();
            }
        };
        for (Registration registration : registrations) {
            fabric.deregister(registration, readable, one);
        }
    }
}
