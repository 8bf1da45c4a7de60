/** What the commands show on a terminal and nowhere else: progress bars and prompts. */
package org.rpcrdma4j.testbed.term;
