package org.rpcrdma4j.testbed.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;

/**
 * The server's process of {@code bench rpc --processes 2}: {@link BenchServices}' NFSv3 service over a
 * {@link BenchExport} of its own, served over oncrpc4j's TCP and over rpcrdma4j on a fabric at once, until its
 * input ends. It talks to the bench in lines:
 *
 * <ul>
 *   <li>at start it prints {@code tcp ADDRESS:PORT} and {@code rdma ADDRESS}, the fabric's address as its provider
 *       formats it, then {@code ready};</li>
 *   <li>{@code start}: takes the moment a measured batch starts; answers {@code started};</li>
 *   <li>{@code stop}: answers what this process used since ({@link ProcessMeter#lines}), then
 *       {@code copied BYTES}, what rpcrdma4j's service and its fabric copied since, then {@code end};</li>
 *   <li>the end of its input: stops both services, closes the fabric, deletes the export and returns.</li>
 * </ul>
 */
public final class RpcPeer {

    private static final int WORKERS = RpcBench.WORKERS;

    private RpcPeer() {
    }

    /**
     * Serves until {@code in} ends.
     *
     * @param provider   the fabric's provider
     * @param options    what the fabric opens with; its listening address is where TCP listens too
     * @param sameThread whether programs run on the thread that received the call, on both transports
     * @param in         the commands
     * @param out        the answers
     * @throws Exception if a service cannot start or the fabric cannot open
     */
    public static void serve(FabricProvider provider, FabricOptions options, boolean sameThread, BufferedReader in,
                             PrintWriter out) throws Exception {
        String host = SocketAddressText.parse(options.listen(), 0).getAddress().getHostAddress();
        // oncrpc4j's TCP service shuts its worker pool down when it stops: each service has its own.
        ExecutorService tcpWorkers = Executors.newFixedThreadPool(WORKERS);
        ExecutorService rdmaWorkers = Executors.newFixedThreadPool(WORKERS);
        try (BenchExport export = BenchExport.create(); Fabric fabric = provider.open(options)) {
            OncRpcSvc tcp = BenchServices.tcp(export.handles(), host, sameThread, tcpWorkers);
            try {
                RdmaRpcSvc rdma = BenchServices.rdma(fabric, export.handles(), sameThread, rdmaWorkers);
                try {
                    InetSocketAddress tcpAddress = tcp.getInetSocketAddress(IpProtocolType.TCP);
                    out.println("tcp " + SocketAddressText.format(new InetSocketAddress(host, tcpAddress.getPort())));
                    out.println("rdma " + provider.format(fabric.localAddress()));
                    out.println("ready");
                    out.flush();
                    answer(in, out, () -> rdma.statistics().bytesCopied() + fabric.statistics().bytesCopied());
                } finally {
                    rdma.stop();
                }
            } finally {
                tcp.stop(5, TimeUnit.SECONDS);
            }
        } finally {
            tcpWorkers.shutdownNow();
            rdmaWorkers.shutdownNow();
        }
    }

    private static void answer(BufferedReader in, PrintWriter out, LongSupplier copies)
            throws IOException {
        ProcessMeter meter = new ProcessMeter();
        ProcessMeter.Snapshot since = meter.snapshot();
        long copiedSince = copies.getAsLong();
        for (String line; (line = in.readLine()) != null; ) {
            switch (line) {
                case "start" -> {
                    copiedSince = copies.getAsLong();
                    since = meter.snapshot();
                    out.println("started");
                }
                case "stop" -> {
                    ProcessMeter.lines(since.used()).forEach(out::println);
                    out.println("copied " + (copies.getAsLong() - copiedSince));
                    out.println("end");
                }
                default -> throw new IOException("no such command: " + line);
            }
            out.flush();
        }
    }
}
