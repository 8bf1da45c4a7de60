/** The picocli subcommands of the testbed and the small JSON and hex helpers they share. */
package org.rpcrdma4j.testbed.cli;
