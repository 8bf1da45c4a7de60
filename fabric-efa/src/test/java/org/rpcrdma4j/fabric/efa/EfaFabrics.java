package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.conformance.FabricFactory;

/**
 * The conformance kit's fabrics for the EFA fabric, whatever its device: each server or client a fabric
 * of its own, whose progress must never have failed when it closes; a message too long for its
 * receive completes with an error and the connection goes on. Each device says how a fabric opens
 * and restarts.
 */
abstract class EfaFabrics implements FabricFactory {

    private final List<EfaFabric> fabrics = new ArrayList<>();

    /** @return a new fabric on this factory's device */
    abstract EfaFabric open();

    @Override
    public Fabric server() {
        EfaFabric fabric = open();
        fabrics.add(fabric);
        return fabric;
    }

    @Override
    public Fabric client() {
        return server();
    }

    /** Closes the fabric, then checks its progress never failed. */
    @Override
    public void close(Fabric fabric) {
        EfaFabric efa = (EfaFabric) fabric;
        efa.close();
        assertThat(efa.statistics().progressLoopFailures()).isZero();
    }

    /** The endpoint completes a truncated message with an error and goes on. */
    @Override
    public boolean messageTooLongEndsConnection() {
        return false;
    }

    @Override
    public void close() {
        fabrics.forEach(EfaFabric::close);
    }
}
