/**
 * The fabric conformance kit: what every {@link org.rpcrdma4j.fabric.Fabric} must do, as abstract
 * JUnit 5 suites that a fabric module runs on its own fabric through a {@link
 * org.rpcrdma4j.fabric.conformance.FabricFactory} ({@link org.rpcrdma4j.fabric.conformance.SeamConformance},
 * {@link org.rpcrdma4j.fabric.conformance.ChunkConformance},
 * {@link org.rpcrdma4j.fabric.conformance.RpcConformance}), and the programs they serve. Published in
 * rpcrdma-transport's test jar; docs/ARCHITECTURE.md, "The fabric conformance kit", says how to run it.
 */
package org.rpcrdma4j.fabric.conformance;
