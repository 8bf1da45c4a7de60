package org.rpcrdma4j.testbed.cli;

import picocli.CommandLine.Command;

/** {@code testbed decode}: groups the packet decoders, one subcommand per protocol. */
@Command(
        name = "decode",
        mixinStandardHelpOptions = true,
        description = "Decode packets into one JSON object per line: hex lines from stdin, or captures.",
        subcommands = {DecodeRpcRdmaCommand.class, DecodeEfaCommand.class, DecodePcapCommand.class})
public final class DecodeCommand {
}
