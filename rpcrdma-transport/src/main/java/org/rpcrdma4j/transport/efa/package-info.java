/**
 * The {@link org.rpcrdma4j.transport.Fabric} seam over the EFA RDM endpoint: the only package that
 * imports {@code org.rpcrdma4j.efa}. {@link org.rpcrdma4j.transport.efa.EfaProgressLoop} is the one
 * thread that drives its endpoints; {@link org.rpcrdma4j.transport.efa.EfaFabric} maps the data and
 * control channels onto two tags.
 */
package org.rpcrdma4j.transport.efa;
