package org.rpcrdma4j.testbed.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.rpcrdma4j.testbed.serve.NfsServer;
import org.rpcrdma4j.testbed.serve.VerbsFabric;
import org.rpcrdma4j.testbed.sim.SimulatedNetwork;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.TransportStatistics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
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
            "--fabric verbs: RDMA-CM and an RC queue pair per client on the RDMA device that has the --listen "
                    + "address (Soft-RoCE or hardware), plus MOUNT over TCP on port 20048 of that address, "
                    + "registered with rpcbind on port 111 (the running one, else one in this JVM): Linux's "
                    + "mount.nfs asks rpcbind for MOUNT and talks it over TCP even with proto=rdma. Mount with "
                    + "'mount -o vers=3,proto=rdma,port=20049,nolock ADDRESS:DIR /mnt'. Needs JDK 22+, the "
                    + "verbs jar on the class path and --enable-native-access=ALL-UNNAMED.",
            "--fabric sim: on the simulated EFA device inside this JVM, reachable by nothing outside it.",
            "Exits 1 if the service could not start; stopped by a signal, it exits as any JVM does (130 for "
                    + "SIGINT, 143 for SIGTERM) after the summary."
        })
public final class ServeCommand implements Callable<Integer> {

    /** The fabrics {@code serve} can listen on. */
    public enum FabricKind { sim, verbs }

    static final int DEFAULT_PORT = 20049;

    @Spec
    private CommandSpec spec;

    @Option(names = "--fabric", required = true, description = "sim or verbs.")
    private FabricKind fabric;

    @Option(names = "--listen", paramLabel = "ADDRESS[:PORT]",
            description = "The RDMA device's IP address and the port (default port: 20049); needed with verbs.")
    private String listen;

    @Option(names = "--export", required = true, paramLabel = "DIR", description = "The directory to serve.")
    private Path export;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(export)) {
            throw new ParameterException(spec.commandLine(), "--export " + export + " is not a directory");
        }
        Path dir = export.toAbsolutePath().normalize();
        if (fabric == FabricKind.verbs) {
            if (listen == null) {
                throw new ParameterException(spec.commandLine(), "--fabric verbs needs --listen ADDRESS[:PORT]");
            }
            InetSocketAddress bind = parseAddress("--listen", listen);
            Fabric rc;
            try {
                rc = VerbsFabric.open(bind);
            } catch (VerbsFabric.UnavailableException e) {
                err.println("testbed serve: " + e.getMessage());
                return 1;
            } catch (Exception e) {
                err.println("testbed serve: cannot open the verbs fabric on " + listen + ": " + e.getMessage());
                return 1;
            }
            return serve(out, rc, dir, bind.getAddress(), dir + " on " + bind.getAddress().getHostAddress() + ":"
                    + bind.getPort() + " (rdma), MOUNT and rpcbind on tcp");
        }
        try (SimulatedNetwork network = new SimulatedNetwork(1)) {
            return serve(out, network.server(), dir, null,
                    dir + " on the simulated EFA endpoint " + network.server().localAddress() + " (in this JVM only)");
        }
    }

    /** Serves until the JVM is asked to stop; a shutdown hook stops the service and prints the summary. */
    private int serve(PrintWriter out, Fabric on, Path dir, InetAddress tcp, String where) throws Exception {
        long start = System.nanoTime();
        NfsServer server;
        try {
            server = new NfsServer(on, dir, dir.toString(), tcp);
        } catch (Exception e) {
            closeFabric(on);
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
            }
            // Read once the fabric is closed, its connections torn down: the gauges show what it kept.
            TransportStatistics fabricFigures = on.statistics();
            TransportStatistics rdma = server.statistics();
            out.printf("stopped after %.1f s: %d NFS calls and %d MOUNT calls over RDMA, %d MOUNT calls over TCP, "
                    + "%d messages dropped, %d RDMA_ERRORs sent, %d connections closed for protocol errors%n",
                    (System.nanoTime() - start) / 1e9, server.nfsCalls(), server.rdmaMountCalls(),
                    server.tcpMountCalls(), rdma.messagesDropped(), rdma.rdmaErrorsSent(),
                    rdma.connectionsClosedForErrors());
            out.println(fabricSummary(fabricFigures));
            out.flush();
            summarised.countDown();
        }, "testbed-serve-stop"));
        out.println("serving " + where);
        out.flush();
        summarised.await();
        return 0;
    }

    /**
     * @param fabric a fabric's statistics
     * @return one line of them: connections, registrations, the counters that are not 0, the gauges
     */
    static String fabricSummary(TransportStatistics fabric) {
        StringBuilder line = new StringBuilder("fabric: ").append(fabric.connections()).append(" connections, ")
                .append(fabric.chunkRegistrations()).append(" registrations");
        fabric.fabricCounters().forEach((name, value) -> {
            if (value != 0) {
                line.append(", ").append(name).append('=').append(value);
            }
        });
        fabric.fabricGauges().forEach((name, value) -> line.append(", ").append(name).append('=').append(value));
        return line.toString();
    }

    private static void closeFabric(Fabric fabric) {
        if (fabric instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                // the process is ending; nothing is left to release
            }
        }
    }

    /**
     * @param option the option given, for the messages
     * @param listen {@code ADDRESS[:PORT]}, an IPv6 address in brackets when it has a port
     * @return the socket address, port {@value #DEFAULT_PORT} when none is given
     */
    static InetSocketAddress parseAddress(String option, String listen) {
        String host = listen;
        int port = DEFAULT_PORT;
        int colon = listen.lastIndexOf(':');
        boolean bracketed = listen.startsWith("[");
        if (colon > 0 && (bracketed ? listen.lastIndexOf(']') < colon : listen.indexOf(':') == colon)) {
            host = listen.substring(0, colon);
            try {
                port = Integer.parseInt(listen.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a port in " + option + " " + listen);
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range in " + option + " " + listen);
            }
        }
        if (bracketed) {
            host = host.substring(1, host.length() - 1);
        }
        return new InetSocketAddress(host, port);
    }
}
