/**
 * The connection-oriented fabric of rpcrdma-transport on verbs, found by the name {@code verbs}
 * ({@link org.rpcrdma4j.fabric.rc.RcFabricProvider}): {@link org.rpcrdma4j.fabric.rc.RcFabric}, one RC
 * queue pair per connection set up by RDMA-CM with RFC 8797 private data in the REQ and REP,
 * as Linux's xprtrdma and svcrdma speak it. {@code RcFabric.open(address)} gives a fabric on the
 * device that has that address; the transport's {@code RdmaRpcSvcBuilder.withFabric} and
 * {@code RdmaRpcClient.builder} take it like any other. The same fabric runs on a simulated RC network
 * in the JVM ({@link org.rpcrdma4j.fabric.rc.SimulatedRc}), found by the name {@code rc-sim}
 * ({@link org.rpcrdma4j.fabric.rc.RcSimFabricProvider}).
 *
 * <p>The fabric's logic (connection states, completion routing by queue pair number and
 * {@code wr_id}, flush accounting, the status table, private data recognition, the copies between the
 * transport's heap buffers and registered memory) drives the verbs objects through the narrow
 * package-private {@code RcDevice}: {@code VerbsRcDevice} over libibverbs and librdmacm, and the
 * simulated network's devices.
 */
package org.rpcrdma4j.fabric.rc;
