/**
 * The rpcrdma4j testbed: the {@code testbed} command line ({@link org.rpcrdma4j.testbed.Main}) and
 * what it drives. This is the only module that prints to stdout.
 */
package org.rpcrdma4j.testbed;
