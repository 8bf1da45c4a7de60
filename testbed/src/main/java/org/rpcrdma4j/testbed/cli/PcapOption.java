package org.rpcrdma4j.testbed.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.testbed.capture.CapturingProvider;
import org.rpcrdma4j.testbed.capture.RoceCapture;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --pcap FILE}, the same on every command that runs rpcrdma4j on a fabric: the traffic of the
 * fabrics the command opens, written into FILE ({@link RoceCapture}). Without it the command's fabrics are
 * the provider's own, with nothing in between.
 */
final class PcapOption {

    @Option(names = "--pcap", paramLabel = "FILE",
            description = "Write every RPC-over-RDMA message sent or received, and every RDMA Read and Write, into "
                    + "FILE as RoCEv2 frames (pcap; replaced if it exists), whatever the fabric: read it with "
                    + "'tshark -r FILE', 'testbed replay FILE' or 'testbed decode pcap FILE'. An endpoint with no "
                    + "IPv4 address of its own (the simulated EFA network) gets one from 198.18.0.0/15.")
    private Path file;

    private RoceCapture capture;

    /**
     * Creates the capture file, if one was asked for.
     *
     * @param provider the fabric the command runs on
     * @param spec     the command, for the error of a file that cannot be created
     * @return the provider, capturing into the file if one was asked for
     * @throws ParameterException if the file cannot be created
     */
    FabricProvider capturing(FabricProvider provider, CommandSpec spec) {
        if (file == null) {
            return provider;
        }
        try {
            capture = RoceCapture.create(file);
        } catch (NoSuchFileException e) {
            throw new ParameterException(spec.commandLine(), "--pcap " + file + ": no such directory");
        } catch (AccessDeniedException e) {
            throw new ParameterException(spec.commandLine(), "--pcap " + file + ": permission denied");
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--pcap " + file + ": cannot create it: " + e.getMessage());
        }
        return new CapturingProvider(provider, capture);
    }

    /**
     * Ends the capture, after the fabrics it captured closed.
     *
     * @param err     where a failure to write it is reported
     * @param command the command's name, to start the report with
     * @return whether the capture, if there was one, was written whole
     */
    boolean close(PrintWriter err, String command) {
        if (capture == null) {
            return true;
        }
        try {
            capture.close();
            return true;
        } catch (IOException e) {
            err.println(command + ": " + e.getMessage());
            err.flush();
            return false;
        }
    }
}
