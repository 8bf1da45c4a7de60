/**
 * JMH benchmarks, packaged into {@code testbed.jar} and run with {@code org.openjdk.jmh.Main}; no test
 * runs them.
 */
package org.rpcrdma4j.testbed.bench;
