/**
 * The fabric named {@code efa-verbs}: {@link org.rpcrdma4j.fabric.efa.EfaFabric} on
 * {@link org.rpcrdma4j.efa.device.verbs.VerbsDevice}. A module of its own because fabric-efa compiles
 * for Java 17 and cannot see the verbs device, and the verbs device must not depend on the transport.
 */
package org.rpcrdma4j.fabric.efa.verbs;
