/** What the commands show only to a person at a terminal: progress bars, and what a decoder waits for. */
package org.rpcrdma4j.testbed.term;
