package org.rpcrdma4j.testbed.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricNotFoundException;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.Fabrics;
import org.rpcrdma4j.testbed.demo.MountedWorkload;
import org.rpcrdma4j.testbed.demo.NfsDemo;
import org.rpcrdma4j.testbed.demo.NfsSoak;
import org.rpcrdma4j.testbed.demo.NfsWorkload;
import org.rpcrdma4j.testbed.demo.RemoteDemo;
import org.rpcrdma4j.testbed.term.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code testbed demo}: the NFSv3 workload over RPC-over-RDMA, against the test service in this JVM
 * (on the simulated EFA device by default) or against a server on another host.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Mount an NFSv3 export over RPC-over-RDMA with the client helper and, in a directory of its own that "
                    + "it removes at the end: write, commit and read back files of 16 and 64 MiB with 16 READs or "
                    + "WRITEs of the server's transfer size in flight (MiB/s, COMMIT timed apart), and files of "
                    + "1 KiB, 64 KiB and 1 MiB one call at a time (median time per call), comparing every file's "
                    + "SHA-256; create and list a directory of 2,000 entries; read back a 4,000-byte symbolic link; "
                    + "then print what moved how (inline, Read, Write and Reply chunks; on the sim and udp fabrics "
                    + "also which EFA subprotocols carried them: direct RDMA, or its emulation on a --device-profile "
                    + "without it).",
            "Without --server: serve the NFSv3 test service in this JVM on the fabric and mount it. With --fabric "
                    + "sim (the default), on the simulated EFA device: about ten seconds of CPU time; the figures "
                    + "measure the simulation on this CPU. With --fabric rc-sim, the RC fabric on a simulated RC "
                    + "network (JDK 22+, the fabric-rc and verbs jars on the class path). A fabric whose listeners "
                    + "are named by address (verbs) serves on --listen ADDRESS[:PORT].",
            "--fabric verbs --server ADDRESS[:PORT]: mount the server's --export as Linux's 'mount -o "
                    + "vers=3,proto=rdma' does: MOUNT over TCP at the port its rpcbind gives, NFS over an RC "
                    + "connection to PORT (default 20049) with this user's Unix credentials. Works with "
                    + "'testbed serve --fabric verbs' and Linux's nfsd ('rdma 20049' in /proc/fs/nfsd/portlist). "
                    + "Needs JDK 22+, the fabric-rc and verbs jars on the class path and "
                    + "--enable-native-access=ALL-UNNAMED.",
            "--pcap FILE writes what this JVM's fabrics send and receive into FILE. Without --server that is "
                    + "everything on the wire, taken at the server's end; with it, the client's Sends and receives "
                    + "only: the RDMA Reads and Writes are the server's, which only a capture at the server sees.",
            "--files and --link-target move the given files and link target instead of generated ones; the "
                    + "SHA-256 of what came back is printed whole, to be checked elsewhere.",
            "--soak SIZE runs the soak instead (issue 23 §3): a 64 MiB file written and read back whole, pass "
                    + "after pass, 16 calls in flight, until SIZE (e.g. 10G) has moved both ways together, every "
                    + "byte checked; the heap used after GC at the first minute and at the end may differ by "
                    + "16 MiB at most. It prints each pass and the total rate.",
            "Exits 0 when every check passed, 1 when one failed or the demo could not run (the reason on "
                    + "stderr: the fabric absent or unavailable, the server unreachable, a call that failed), 2 for "
                    + "wrong options."
        })
public final class DemoCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--fabric", paramLabel = "NAME", description = "The fabric: sim, verbs, ... "
            + "(default: ${DEFAULT-VALUE}).")
    private String fabric = "sim";

    @Option(names = "--server", paramLabel = "ADDRESS[:PORT]",
            description = "A server on another host, as the fabric writes addresses (verbs: its IP address and "
                    + "NFS/RDMA port, default 20049).")
    private String server;

    @Option(names = "--listen", paramLabel = "ADDRESS[:PORT]",
            description = "Where this JVM's fabric binds, for a fabric that needs it: without --server the server's "
                    + "(verbs, udp), with it the client's (udp).")
    private String listen;

    @Option(names = "--export", paramLabel = "PATH",
            description = "With verbs: the server's export to mount (default: ${DEFAULT-VALUE}).")
    private String export = "/export";

    @Option(names = "--files", paramLabel = "FILE", arity = "1..*",
            description = "Files to write and read back (under their own names) instead of generated ones.")
    private List<Path> files = new ArrayList<>();

    @Option(names = "--soak", paramLabel = "SIZE",
            description = "Run the soak instead of the demo until SIZE bytes (suffix K, M or G) moved.")
    private String soak;

    @Option(names = "--link-target", paramLabel = "FILE",
            description = "A file whose bytes are the symbolic link's target, instead of a generated one.")
    private Path linkTarget;

    @Option(names = "--seed", description = "Seed of the simulation and the file contents (default: ${DEFAULT-VALUE}).")
    private long seed = 1;

    @Mixin
    private PcapOption pcap;

    @Mixin
    private DeviceProfileOption deviceProfile;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        int exit;
        boolean written;
        try {
            exit = demo(spec.commandLine().getOut(), err);
        } finally {
            written = pcap.close(err, "testbed demo");
        }
        return written ? exit : 1;
    }

    /** @return the bytes {@code --soak} asks for: a positive number, with K, M or G for its powers of 1,024 */
    private long soakBytes() {
        if (!files.isEmpty() || linkTarget != null) {
            throw new ParameterException(spec.commandLine(),
                    "--soak moves a file of its own: no --files or --link-target");
        }
        String text = soak.trim().toUpperCase(Locale.ROOT);
        int shift = text.endsWith("K") ? 10 : text.endsWith("M") ? 20 : text.endsWith("G") ? 30 : 0;
        try {
            long number = Long.parseLong(shift == 0 ? text : text.substring(0, text.length() - 1));
            if (number > 0 && number <= Long.MAX_VALUE >> shift) {
                return number << shift;
            }
        } catch (NumberFormatException e) {
            // the message below says what is expected
        }
        throw new ParameterException(spec.commandLine(), "--soak " + soak + ": not a positive size such as 10G");
    }

    private int demo(PrintWriter out, PrintWriter err) throws Exception {
        for (Path file : files) {
            if (!Files.isRegularFile(file)) {
                throw new ParameterException(spec.commandLine(), "--files " + file + " is not a file");
            }
        }
        byte[] target = null;
        if (linkTarget != null) {
            try {
                target = Files.readAllBytes(linkTarget);
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "--link-target " + linkTarget + ": " + e);
            }
        }
        Progress progress = new Progress(out, Progress.onTerminal());
        MountedWorkload workload = soak == null ? new NfsWorkload(out, progress, seed, files, target)
                : new NfsSoak(out, progress, soakBytes(), seed);
        FabricProvider provider;
        try {
            provider = Fabrics.named(fabric);
        } catch (FabricNotFoundException e) {
            err.println("testbed demo: " + e.getMessage());
            return 1;
        }
        FabricOptions options = deviceProfile.applyTo(FabricOptions.DEFAULT.withSeed(seed), provider, spec);
        provider = pcap.capturing(provider, spec);
        if (server == null) {
            if (provider.needsListenAddress() && listen == null) {
                throw new ParameterException(spec.commandLine(), "--fabric " + fabric + " needs --server ADDRESS[:PORT], "
                        + "or --listen ADDRESS[:PORT] to serve in this JVM");
            }
            try {
                return new NfsDemo(out, workload, provider, options.listening(listen), options).run() ? 0 : 1;
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--fabric " + fabric + ": " + e.getMessage());
            }
        }
        FabricAddress rdma;
        try {
            rdma = provider.peer(server);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--server with --fabric " + fabric + ": " + e.getMessage());
        }
        Fabric client;
        try {
            // a fabric that only connects, unless it must bind an address of this host (udp)
            client = provider.open(options.listening(listen));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--fabric " + fabric + ": " + e.getMessage());
        } catch (Exception e) {
            err.println("testbed demo: cannot open the " + fabric + " fabric: " + e.getMessage());
            return 1;
        }
        try {
            boolean ok = new RemoteDemo(out, workload).run(client, rdma, export);
            // How the chunks moved (windows bound, remote and local invalidations, per-call
            // registrations), read once the fabric is closed, its connection torn down: its gauges
            // then show what it kept.
            client.close();
            out.println(NfsWorkload.fabricSummary(client.statistics()));
            out.flush();
            return ok ? 0 : 1;
        } catch (RemoteDemo.UnreachableException e) {
            err.println("testbed demo: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("testbed demo: the workload broke off: " + e + (e.getCause() == null ? "" : ", " + e.getCause()));
            return 1;
        } finally {
            client.close();
        }
    }
}
