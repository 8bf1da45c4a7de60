package org.rpcrdma4j.testbed.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricNotFoundException;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.fabric.Fabrics;
import org.rpcrdma4j.testbed.demo.NfsWorkload;
import org.rpcrdma4j.testbed.serve.NfsServer;
import org.rpcrdma4j.transport.TransportStatistics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code testbed serve}: the NFSv3 and MOUNT test service until interrupted. */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Serve a directory with the NFSv3 and MOUNT test service over RPC-over-RDMA until interrupted "
                    + "(SIGINT, SIGTERM), then stop cleanly and print what was served.",
            "--fabric NAME picks a fabric module on the class path by its name (testbed fabrics lists them).",
            "--fabric verbs: RDMA-CM and an RC queue pair per client on the RDMA device that has the --listen "
                    + "address (Soft-RoCE or hardware), plus MOUNT over TCP on port 20048 of that address, "
                    + "registered with rpcbind on port 111 (the running one, else one in this JVM): Linux's "
                    + "mount.nfs asks rpcbind for MOUNT and talks it over TCP even with proto=rdma. Mount with "
                    + "'mount -o vers=3,proto=rdma,port=20049,nolock ADDRESS:DIR /mnt'. Needs JDK 22+, the "
                    + "fabric-rc and verbs jars on the class path and --enable-native-access=ALL-UNNAMED.",
            "--fabric udp: the EFA RDM endpoint on the UDP device bound to --listen (port 0: any), plus MOUNT "
                    + "over TCP as with verbs; it prints the address a client gives 'demo --server', its connid "
                    + "included.",
            "--fabric sim: on the simulated EFA device inside this JVM, reachable by nothing outside it; "
                    + "--fabric rc-sim: the same on the RC fabric over a simulated RC network.",
            "--pcap FILE writes every RPC-over-RDMA message the service sends and receives, and its RDMA Reads and "
                    + "Writes, into FILE as RoCEv2 frames as they happen (flushed when it stops), on any fabric.",
            "Exits 1 if the service could not start; stopped by a signal, it exits as any JVM does (130 for "
                    + "SIGINT, 143 for SIGTERM) after the summary."
        })
public final class ServeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--fabric", required = true, paramLabel = "NAME", description = "The fabric: sim, verbs, ...")
    private String fabric;

    @Option(names = "--listen", paramLabel = "ADDRESS[:PORT]",
            description = "Where to listen, for a fabric whose listeners are named by address (verbs: the RDMA "
                    + "device's IP address and the port, default 20049).")
    private String listen;

    @Option(names = "--export", required = true, paramLabel = "DIR", description = "The directory to serve.")
    private Path export;

    @Mixin
    private PcapOption pcap;

    @Mixin
    private DeviceProfileOption deviceProfile;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(export)) {
            throw new ParameterException(spec.commandLine(), "--export " + export + " is not a directory");
        }
        Path dir = export.toAbsolutePath().normalize();
        FabricProvider provider;
        try {
            provider = Fabrics.named(fabric);
        } catch (FabricNotFoundException e) {
            err.println("testbed serve: " + e.getMessage());
            return 1;
        }
        if (provider.needsListenAddress() && listen == null) {
            throw new ParameterException(spec.commandLine(), "--fabric " + fabric + " needs --listen ADDRESS[:PORT]");
        }
        FabricOptions options = deviceProfile.applyTo(FabricOptions.DEFAULT.listening(listen), provider, spec);
        provider = pcap.capturing(provider, spec);
        Fabric on;
        try {
            on = provider.open(options);
        } catch (IllegalArgumentException e) {
            pcap.close(err, "testbed serve");
            throw new ParameterException(spec.commandLine(), "--fabric " + fabric + ": " + e.getMessage());
        } catch (Exception e) {
            err.println("testbed serve: cannot open the " + fabric + " fabric" + (listen == null ? "" : " on " + listen)
                    + ": " + e.getMessage());
            pcap.close(err, "testbed serve");
            return 1;
        }
        // MOUNT and rpcbind over TCP where the fabric listens on an IP address of this host
        InetAddress tcp = listen == null ? null : on.localAddress().inetAddress();
        return serve(out, on, dir, tcp, dir + " on the " + fabric + " fabric at " + provider.format(on.localAddress())
                + (tcp == null ? "" : ", MOUNT and rpcbind on tcp"));
    }

    /** Serves until the JVM is asked to stop; a shutdown hook stops the service and prints the summary. */
    private int serve(PrintWriter out, Fabric on, Path dir, InetAddress tcp, String where) throws Exception {
        long start = System.nanoTime();
        NfsServer server;
        try {
            server = new NfsServer(on, dir, dir.toString(), tcp);
        } catch (Exception e) {
            closeFabric(on);
            pcap.close(spec.commandLine().getErr(), "testbed serve");
            throw e;
        }
        CountDownLatch summarised = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                out.println("stopping: " + e.getMessage());
            } finally {
                closeFabric(on);
                pcap.close(spec.commandLine().getErr(), "testbed serve");
            }
            // Read once the fabric is closed, its connections torn down: the gauges show what it kept.
            FabricStatistics fabricFigures = on.statistics();
            TransportStatistics rdma = server.statistics();
            out.printf("stopped after %.1f s: %d NFS calls and %d MOUNT calls over RDMA, %d MOUNT calls over TCP, "
                    + "%d messages dropped, %d RDMA_ERRORs sent, %d connections closed for protocol errors%n",
                    (System.nanoTime() - start) / 1e9, server.nfsCalls(), server.rdmaMountCalls(),
                    server.tcpMountCalls(), rdma.messagesDropped(), rdma.rdmaErrorsSent(),
                    rdma.connectionsClosedForErrors());
            out.println(NfsWorkload.fabricSummary(fabricFigures));
            out.flush();
            summarised.countDown();
        }, "testbed-serve-stop"));
        out.println("serving " + where);
        out.flush();
        summarised.await();
        return 0;
    }

    private static void closeFabric(Fabric fabric) {
        try {
            fabric.close();
        } catch (RuntimeException e) {
            // the process is ending; nothing is left to release
        }
    }
}
