/** The README's demo: NFSv3 over rpcrdma4j on the simulated EFA device. */
package org.rpcrdma4j.testbed.demo;
