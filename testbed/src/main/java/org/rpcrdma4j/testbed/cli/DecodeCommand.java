package org.rpcrdma4j.testbed.cli;

import picocli.CommandLine.Command;

/** {@code testbed decode}: groups the packet decoders, one subcommand per protocol. */
@Command(
        name = "decode",
        mixinStandardHelpOptions = true,
        description = "Decode hex packets read from stdin, one per line, into one JSON object per line.",
        subcommands = {DecodeRpcRdmaCommand.class, DecodeEfaCommand.class})
public final class DecodeCommand {
}
