/** rpcrdma4j over the simulated EFA device, as the testbed's commands and tests run it. */
package org.rpcrdma4j.testbed.sim;
