package org.rpcrdma4j.fabric;

import java.util.Map;

/**
 * What a fabric holds now and has counted ({@link Fabric#statistics()}): an immutable snapshot. What
 * every fabric has is here; each fabric's own type adds its figures, read typed (the EFA fabric's
 * endpoint counters, the RC fabric's RDMA-CM events). {@link #counters()} and {@link #gauges()} show
 * those same figures by name, for tools that know no fabric: logs, monitoring, a command's summary.
 */
public interface FabricStatistics {

    /** @return connections open now */
    int connections();

    /** @return memory registrations held now, whoever made them */
    int registrations();

    /**
     * @return payload bytes the fabric has copied between the transport's buffers and the memory the
     *     device reads or writes, and within its own layer (a message held before a receive takes it);
     *     RDMA Reads and Writes and the device's own transfers are not copies
     */
    long bytesCopied();

    /** @return the fabric's own counters by name, in the order to show them */
    Map<String, Long> counters();

    /** @return what the fabric's own layer holds now, by name, in the order to show them */
    Map<String, Long> gauges();
}
