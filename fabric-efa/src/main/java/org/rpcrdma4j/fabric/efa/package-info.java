/**
 * The {@link org.rpcrdma4j.fabric.Fabric} seam over the connectionless EFA RDM endpoint, found by the
 * name {@code sim} ({@link org.rpcrdma4j.fabric.efa.SimFabricProvider}). {@link org.rpcrdma4j.fabric.efa.SimulatedEfa} makes
 * ready fabrics on a simulated network, all driven by one progress thread ({@code EfaProgressLoop}), and
 * is the tool to test a service under faults: devices configured per fabric, link faults, processes that
 * die or restart, and {@link org.rpcrdma4j.fabric.efa.RawEndpoint}s that send anything on any tag;
 * {@link org.rpcrdma4j.fabric.efa.EfaFabric} sets
 * connections up with {@link org.rpcrdma4j.fabric.efa.ControlMessage}s on a control tag and gives
 * each connection a data tag of its own.
 */
package org.rpcrdma4j.fabric.efa;
