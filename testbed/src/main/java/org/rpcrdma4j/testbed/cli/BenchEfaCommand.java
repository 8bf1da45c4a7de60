package org.rpcrdma4j.testbed.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.rpcrdma4j.efa.device.DeviceProvider;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.rpcrdma4j.testbed.bench.EfaBench;
import org.rpcrdma4j.testbed.bench.EfaBench.Result;
import org.rpcrdma4j.testbed.bench.EfaDeviceBench;
import org.rpcrdma4j.testbed.bench.EfaRmaBench;
import org.rpcrdma4j.testbed.bench.FiPingpong;
import org.rpcrdma4j.testbed.bench.IbvRcPingpong;
import org.rpcrdma4j.testbed.term.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code testbed bench efa}: EFA endpoint ping-pong and streaming on the simulated device beside memcpy, or on the
 * UDP device between two processes beside libfabric's {@code fi_pingpong}, or on the verbs device between two
 * processes or hosts beside rdma-core's {@code ibv_rc_pingpong}.
 */
@Command(
        name = "efa",
        mixinStandardHelpOptions = true,
        description = {
            "Two EFA RDM endpoints on the simulated device (no added delay, one thread): one-way ping-pong "
                    + "latency for 8 B, 4 KiB and 64 KiB and streaming bandwidth for 64 KiB, 1 MiB and 16 MiB, each "
                    + "beside a single-thread memcpy of the same size measured in the same run. The whole set runs "
                    + "once unmeasured first, to warm up. Then emulated RMA beside direct RDMA in the same run: "
                    + "EAGER_RTW (4 KiB), LONGCTS_RTW and LONGREAD_RTW (1 MiB) writes, SHORT_RTR (4 KiB) and "
                    + "LONGCTS_RTR (1 MiB) reads on devices without the RDMA each replaces, each beside a direct write "
                    + "or read of the same size, and a 64-bit fetch-and-add (FETCH_RTA) beside a direct 8-byte read.",
            "Each row prints as its measurement ends; on a terminal a progress bar shows the run in progress. "
                    + "With the defaults a run keeps one core busy for about 30 seconds (the warm-up set, then the "
                    + "measured one), longer on a loaded machine; --iterations and --stream-bytes shorten it.",
            "--device udp: the same ping-pongs and streams between two processes, this one and a second JVM it "
                    + "starts, each endpoint on a UDP device bound to --listen, beside libfabric's fi_pingpong -p "
                    + "\"udp;ofi_rxd\" -e rdm run between two processes of its own at each size in the same run (when "
                    + "installed: Debian's libfabric-bin; the bench says when it is not). Ping-pong rows set the "
                    + "one-way time beside fi_pingpong's usec/xfer, stream rows the MB/s beside fi_pingpong's MB/sec.",
            "--device verbs: the same on verbs devices (RC queue pairs per peer on the RDMA device that has the "
                    + "--listen address; JDK 22+ with efa-verbs on the class path), the peer a second JVM or, with "
                    + "--peer, 'testbed bench efa-peer --device verbs --control PORT' on another host; beside each "
                    + "size rdma-core's ibv_rc_pingpong between this host and the peer's (Debian's ibverbs-utils), "
                    + "raw Sends on an RC queue pair: half its usec/iter beside a ping-pong, its Mbit/sec over 8 "
                    + "beside a stream.",
            "Exits 1 if a message arrived damaged."
        })
public final class BenchEfaCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--device", paramLabel = "sim|udp|verbs", description = "sim: both endpoints in this process "
            + "on the simulated device; udp, verbs: on devices of that kind in two processes, or on two hosts with "
            + "--peer (default: ${DEFAULT-VALUE}).")
    private String device = "sim";

    @Option(names = "--listen", paramLabel = "ADDRESS[:PORT]", description = "With --device udp or verbs, where the "
            + "devices open: both processes', or this one's with --peer (default: ${DEFAULT-VALUE}).")
    private String listen = "127.0.0.1:0";

    @Option(names = "--peer", paramLabel = "HOST:PORT", description = "With --device udp or verbs, the control "
            + "address of a peer started on another host with 'testbed bench efa-peer --control PORT', instead of "
            + "a second process here.")
    private String peer;

    @Option(names = "--fi-pingpong", paramLabel = "COMMAND", description = "With --device udp, the fi_pingpong to "
            + "run beside, a path or a name on PATH; 'none' to leave it out (default: ${DEFAULT-VALUE}).")
    private String fiPingpong = "fi_pingpong";

    @Option(names = "--ibv-rc-pingpong", paramLabel = "COMMAND", description = "With --device verbs, this side's "
            + "ibv_rc_pingpong, a path or a name on PATH (the peer runs the one on its PATH); 'none' to leave it "
            + "out (default: ${DEFAULT-VALUE}).")
    private String ibvRcPingpong = "ibv_rc_pingpong";

    @Option(names = "--seed", description = "Seed of the simulated fabric and endpoints (default: ${DEFAULT-VALUE}).")
    private long seed = 1;

    @Option(names = "--iterations", description = "Round trips per ping-pong size (default: 200000 on sim, "
            + "10000 on udp and verbs).")
    private Integer iterations;

    @Option(names = "--stream-bytes", description = "Bytes streamed per size (default: 536870912 on sim, "
            + "268435456 on udp and verbs).")
    private Long streamBytes;

    @Option(names = "--json", description = "Print one JSON object instead of a table.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        boolean sim = device.equals("sim");
        if (!sim && !device.equals("udp") && !device.equals("verbs")) {
            throw new ParameterException(spec.commandLine(), "--device is sim, udp or verbs, not " + device);
        }
        int rounds = iterations != null ? iterations : sim ? 200_000 : 10_000;
        long bytes = streamBytes != null ? streamBytes : sim ? 512L << 20 : 256L << 20;
        if (rounds < 1 || bytes < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--iterations and --stream-bytes must be positive");
        }
        if (sim) {
            return simulated(rounds, bytes);
        }
        DeviceProvider provider = DeviceProvider.find(device).orElseThrow(() -> new ParameterException(
                spec.commandLine(), "the " + device + " device is not on the class path (devices here: "
                        + DeviceProvider.names() + "); the verbs device needs JDK 22+ and efa-verbs' jar"));
        return betweenPeers(provider, rounds, bytes);
    }

    private int simulated(int iterations, long streamBytes) {
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = new Progress(spec.commandLine().getErr(), Progress.onTerminal());
        if (!json) {
            out.println(String.format("%-9s %10s %14s %14s %8s %16s %s", "test", "size", "efa", "memcpy", "ratio",
                    "memcpy 1 buffer", "data"));
            out.flush();
        }
        List<Result> results = EfaBench.runAll(seed, iterations, streamBytes, new EfaBench.Listener() {
            @Override
            public void starting(int index, boolean warmUp, String test, int size) {
                progress.show((warmUp ? "warm-up " : "") + test + " " + size, index, EfaBench.RUNS);
            }

            @Override
            public void finished(Result result) {
                progress.clear();
                if (!json) {
                    out.println(row(result));
                    out.flush();
                }
            }
        });
        progress.clear();
        if (!json) {
            out.println("latency is one way; ratio is efa/memcpy bandwidth for streams, memcpy/efa time for "
                    + "ping-pongs;");
            out.println("a stream's memcpy copies into the receiver's rotation of buffers, 'memcpy 1 buffer' into one");
            out.println();
            out.println(String.format("%-9s %10s %-14s %14s %14s %8s %s", "rma", "size", "emulated by", "emulated",
                    "direct", "ratio", "data"));
            out.flush();
        }
        List<EfaRmaBench.Result> rma = EfaRmaBench.runAll(seed, iterations, streamBytes / 4,
                new EfaRmaBench.Listener() {
                    @Override
                    public void starting(int index, String name) {
                        progress.show(name, index, EfaRmaBench.ROWS);
                    }

                    @Override
                    public void finished(EfaRmaBench.Result result) {
                        progress.clear();
                        if (!json) {
                            out.println(rmaRow(result));
                            out.flush();
                        }
                    }
                });
        progress.clear();
        if (json) {
            out.println(toJson(results, rma));
        } else {
            out.println("time per operation, posted to completed at the initiator, one at a time; ratio is "
                    + "emulated/direct time;");
            out.println("emulated: both devices without the RDMA the subprotocol replaces (a fetch-add always is); "
                    + "direct: both with RDMA read and write, a read of 8 bytes beside the fetch-add");
        }
        out.flush();
        return results.stream().allMatch(Result::verified) && rma.stream().allMatch(EfaRmaBench.Result::verified)
                ? 0 : 1;
    }

    private int betweenPeers(DeviceProvider provider, int iterations, long streamBytes) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = new Progress(spec.commandLine().getErr(), Progress.onTerminal());
        List<String> notes = new ArrayList<>();
        Optional<EfaDeviceBench.Beside> beside = beside(provider.name(), notes);
        String tool = beside.map(EfaDeviceBench.Beside::name).orElse("-");
        EfaDeviceBench opened;
        try {
            opened = peer == null ? EfaDeviceBench.start(provider, listen)
                    : EfaDeviceBench.connect(provider, listen, controlAddress());
        } catch (IOException e) {
            spec.commandLine().getErr().println(e.getMessage());
            return 1;
        }
        if (!json) {
            out.println(String.format("%-9s %10s %16s %16s %8s %s", "test", "size", "efa " + provider.name(), tool,
                    "ratio", "data"));
            out.flush();
        }
        List<EfaDeviceBench.Result> results;
        try (EfaDeviceBench bench = opened) {
            results = bench.runAll(iterations, streamBytes, beside, new EfaDeviceBench.Listener() {
                @Override
                public void starting(int index, boolean warmUp, String test, int size) {
                    progress.show((warmUp ? "warm-up " : "") + test + " " + size, index, EfaDeviceBench.RUNS);
                }

                @Override
                public void finished(EfaDeviceBench.Result result) {
                    progress.clear();
                    if (!json) {
                        out.println(peerRow(result));
                        out.flush();
                    }
                }

                @Override
                public void note(String note) {
                    notes.add(note);
                }
            });
        }
        progress.clear();
        if (json) {
            out.println(peerJson(provider.name(), tool, results, notes));
        } else {
            notes.forEach(out::println);
            out.println("latency is one way, both sides' own figure; ratio is efa/" + tool + ": below 1 is better "
                    + "for ping-pongs, above 1 for streams;");
            out.println("a stream's " + tool + " figure is its ping-pong's MB/s at that size (both directions), the "
                    + "most it measures; each side of a stream runs in its own process");
        }
        out.flush();
        return results.stream().allMatch(EfaDeviceBench.Result::verified) ? 0 : 1;
    }

    /** @return the peer tool of the device's kind, if it is wanted and found; a note says which, or why none */
    private Optional<EfaDeviceBench.Beside> beside(String kind, List<String> notes) {
        if (kind.equals("udp")) {
            if (fiPingpong.equals("none")) {
                notes.add("fi_pingpong: left out (--fi-pingpong none)");
                return Optional.empty();
            }
            Optional<FiPingpong> found = FiPingpong.find(fiPingpong);
            notes.add(found.map(tool -> "fi_pingpong: " + tool.executable() + " -p \"" + FiPingpong.PROVIDER
                            + "\" -e rdm, between two processes of its own on the same host")
                    .orElse("fi_pingpong: " + fiPingpong + " not found, so not run (Debian: apt-get install "
                            + "libfabric-bin)"));
            return found.map(tool -> new EfaDeviceBench.Beside(tool, null));
        }
        if (ibvRcPingpong.equals("none")) {
            notes.add("ibv_rc_pingpong: left out (--ibv-rc-pingpong none)");
            return Optional.empty();
        }
        Optional<IbvRcPingpong> found = IbvRcPingpong.find(ibvRcPingpong);
        notes.add(found.map(tool -> "ibv_rc_pingpong: " + tool.executable() + ", its server half run by the peer "
                        + "on the peer's host")
                .orElse("ibv_rc_pingpong: " + ibvRcPingpong + " not found, so not run (Debian: apt-get install "
                        + "ibverbs-utils)"));
        return found.map(tool -> new EfaDeviceBench.Beside(null, tool));
    }

    private InetSocketAddress controlAddress() {
        InetSocketAddress control = SocketAddressText.parse(peer, 0);
        if (control.getPort() == 0) {
            throw new ParameterException(spec.commandLine(), "--peer needs the peer's control port, HOST:PORT");
        }
        return control;
    }

    private static String peerRow(EfaDeviceBench.Result r) {
        String unit = r.test().equals("stream") ? " MB/s" : " us";
        return String.format("%-9s %10d %16s %16s %8s %s", r.test(), r.size(), String.format("%.2f", r.efa()) + unit,
                Double.isNaN(r.beside()) ? "-" : String.format("%.2f", r.beside()) + unit,
                Double.isNaN(r.ratio()) ? "-" : String.format("%.3f", r.ratio()), r.verified() ? "ok" : "DAMAGED");
    }

    private static String peerJson(String device, String tool, List<EfaDeviceBench.Result> results,
                                   List<String> notes) {
        Json json = new Json().beginObject().name("device").value(device).name("beside").value(tool)
                .name("results").beginArray();
        for (EfaDeviceBench.Result r : results) {
            json.beginObject().name("test").value(r.test()).name("size").value(r.size())
                    .name("efa").value(r.efa()).name("besideFigure").value(r.beside()).name("ratio").value(r.ratio())
                    .name("unit").value(r.test().equals("stream") ? "MB/s" : "us")
                    .name("verified").value(r.verified()).endObject();
        }
        json.endArray().name("notes").beginArray();
        notes.forEach(json::value);
        return json.endArray().endObject().toString();
    }

    private static String row(Result r) {
        String unit = r.test().equals("stream") ? " MB/s" : " us";
        return String.format("%-9s %10d %14s %14s %8.3f %16s %s", r.test(), r.size(),
                String.format("%.2f", r.efa()) + unit, String.format("%.2f", r.memcpy()) + unit, r.ratio(),
                String.format("%.2f", r.memcpyOneBuffer()) + unit, r.verified() ? "ok" : "DAMAGED");
    }

    private static String rmaRow(EfaRmaBench.Result r) {
        return String.format("%-9s %10d %-14s %14s %14s %8.3f %s", r.operation(), r.size(), r.subprotocol(),
                String.format("%.2f us", r.emulatedUs()), String.format("%.2f us", r.directUs()), r.ratio(),
                r.verified() ? "ok" : "DAMAGED");
    }

    private static String toJson(List<Result> results, List<EfaRmaBench.Result> rma) {
        Json json = new Json().beginObject().name("results").beginArray();
        for (Result r : results) {
            json.beginObject().name("test").value(r.test()).name("size").value(r.size())
                    .name("efa").value(r.efa()).name("memcpy").value(r.memcpy()).name("ratio").value(r.ratio())
                    .name("memcpyOneBuffer").value(r.memcpyOneBuffer())
                    .name("unit").value(r.test().equals("stream") ? "MB/s" : "us")
                    .name("verified").value(r.verified()).endObject();
        }
        json.endArray().name("rma").beginArray();
        for (EfaRmaBench.Result r : rma) {
            json.beginObject().name("operation").value(r.operation()).name("size").value(r.size())
                    .name("subprotocol").value(r.subprotocol()).name("emulated").value(r.emulatedUs())
                    .name("direct").value(r.directUs()).name("ratio").value(r.ratio()).name("unit").value("us")
                    .name("verified").value(r.verified()).endObject();
        }
        return json.endArray().endObject().toString();
    }
}
