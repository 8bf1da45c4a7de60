/**
 * The simulated device: an in-JVM {@link org.rpcrdma4j.efa.device.Device}, deterministic from a
 * seed, whose faults are part of the device and not of the tests (faults are injected at the
 * device seam, as Aeron's drivers inject loss).
 *
 * <p>A {@link org.rpcrdma4j.efa.device.sim.SimFabric} is the wire: it owns the devices, the
 * operations in flight, the seeded random source and a virtual clock. Time is a parameter: nothing
 * moves until {@link org.rpcrdma4j.efa.device.sim.SimFabric#progress(long)} is called with the
 * current virtual time, which executes every operation that has become due. There are no threads
 * and no sleeping, so the same seed and the same calls give the same deliveries in the same order.
 *
 * <p>What is simulated is what the EFA device promises and no more (docs/ARCHITECTURE.md, "Inside efa-provider"):
 * reliable but unordered delivery of datagrams up to the MTU, bounded queues, receiver-not-ready
 * when no receive is posted, address handles and a Q-Key per queue pair, RDMA read up to 1 GiB and
 * optional RDMA write, checked on every access. Faults come from a
 * {@link org.rpcrdma4j.efa.device.sim.FaultPlan} per device or per link (delay, reordering,
 * injected RNR), from a {@link org.rpcrdma4j.efa.device.sim.SimDeviceConfig} (small queues,
 * capabilities switched off) and from
 * {@link org.rpcrdma4j.efa.device.sim.SimFabric#restart(SimDevice)} (a peer that comes back on
 * the same QPN with a new Q-Key). Whatever a device drops is counted by
 * {@link org.rpcrdma4j.efa.device.sim.DropReason}.
 */
package org.rpcrdma4j.efa.device.sim;
