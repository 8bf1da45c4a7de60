package org.rpcrdma4j.testbed.demo;

import java.util.StringJoiner;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.fabric.efa.EfaFabricStatistics;

/**
 * Which EFA subprotocols carried a server's RDMA Reads and Writes, from its endpoint's counters: direct
 * RDMA where both devices can, else the emulation the endpoint chose (issue 25 §2), so that the demo shows a
 * device profile without RDMA write, or without RDMA, at work.
 */
final class EfaSubprotocols {

    private static final EndpointCounter[] EMULATED_READS = {
        EndpointCounter.SHORT_RTR_READS, EndpointCounter.LONGCTS_RTR_READS
    };
    private static final EndpointCounter[] EMULATED_WRITES = {
        EndpointCounter.EAGER_RTW_WRITES, EndpointCounter.LONGCTS_RTW_WRITES, EndpointCounter.LONGREAD_RTW_WRITES
    };

    private EfaSubprotocols() {
    }

    /**
     * @param server the statistics of the fabric that served, which makes a transport's RDMA Reads and Writes
     * @return a line such as {@code RDMA Reads direct 40; RDMA Writes emulated LONGREAD_RTW 26}, or {@code null}
     *     for a fabric that is not an EFA fabric
     */
    static String line(FabricStatistics server) {
        if (!(server instanceof EfaFabricStatistics efa)) {
            return null;
        }
        return "EFA subprotocols at the server: RDMA Reads "
                + carried(efa, EndpointCounter.DIRECT_READS, EMULATED_READS) + "; RDMA Writes "
                + carried(efa, EndpointCounter.DIRECT_WRITES, EMULATED_WRITES);
    }

    /** @return "direct N", "emulated X N, Y M", both, or "none", leaving out what carried nothing */
    private static String carried(EfaFabricStatistics efa, EndpointCounter direct, EndpointCounter[] emulated) {
        StringJoiner ways = new StringJoiner(", ");
        if (efa.endpoint().counter(direct) > 0) {
            ways.add("direct " + efa.endpoint().counter(direct));
        }
        StringJoiner emulations = new StringJoiner(", ", "emulated ", "").setEmptyValue("");
        for (EndpointCounter counter : emulated) {
            long count = efa.endpoint().counter(counter);
            if (count > 0) {
                // the counter's name without its "_READS" or "_WRITES": the packet type that starts the subprotocol
                emulations.add(counter.name().substring(0, counter.name().lastIndexOf('_')) + " " + count);
            }
        }
        if (emulations.length() > 0) {
            ways.add(emulations.toString());
        }
        return ways.length() > 0 ? ways.toString() : "none";
    }
}
