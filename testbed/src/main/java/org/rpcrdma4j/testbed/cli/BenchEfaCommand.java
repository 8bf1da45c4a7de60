package org.rpcrdma4j.testbed.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.rpcrdma4j.testbed.bench.EfaBench;
import org.rpcrdma4j.testbed.bench.EfaBench.Result;
import org.rpcrdma4j.testbed.bench.EfaUdpBench;
import org.rpcrdma4j.testbed.bench.FiPingpong;
import org.rpcrdma4j.testbed.term.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code testbed bench efa}: EFA endpoint ping-pong and streaming on the simulated device beside memcpy, or on the
 * UDP device between two processes beside libfabric's {@code fi_pingpong}.
 */
@Command(
        name = "efa",
        mixinStandardHelpOptions = true,
        description = {
            "Two EFA RDM endpoints on the simulated device (no added delay, one thread): one-way ping-pong "
                    + "latency for 8 B, 4 KiB and 64 KiB and streaming bandwidth for 64 KiB, 1 MiB and 16 MiB, each "
                    + "beside a single-thread memcpy of the same size measured in the same run. The whole set runs "
                    + "once unmeasured first, to warm up.",
            "Each row prints as its measurement ends; on a terminal a progress bar shows the run in progress. "
                    + "With the defaults a run keeps one core busy for about 30 seconds (the warm-up set, then the "
                    + "measured one), longer on a loaded machine; --iterations and --stream-bytes shorten it.",
            "--device udp: the same ping-pongs and streams between two processes, this one and a second JVM it "
                    + "starts, each endpoint on a UDP device bound to --listen, beside libfabric's fi_pingpong -p "
                    + "\"udp;ofi_rxd\" -e rdm run between two processes of its own at each size in the same run (when "
                    + "installed: Debian's libfabric-bin; the bench says when it is not). Ping-pong rows set the "
                    + "one-way time beside fi_pingpong's usec/xfer, stream rows the MB/s beside fi_pingpong's MB/sec.",
            "Exits 1 if a message arrived damaged."
        })
public final class BenchEfaCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--device", paramLabel = "sim|udp", description = "sim: both endpoints in this process on the "
            + "simulated device; udp: on UDP devices in two processes (default: ${DEFAULT-VALUE}).")
    private String device = "sim";

    @Option(names = "--listen", paramLabel = "ADDRESS[:PORT]", description = "With --device udp, where both "
            + "processes' devices bind (default: ${DEFAULT-VALUE}).")
    private String listen = "127.0.0.1:0";

    @Option(names = "--fi-pingpong", paramLabel = "COMMAND", description = "With --device udp, the fi_pingpong to "
            + "run beside, a path or a name on PATH; 'none' to leave it out (default: ${DEFAULT-VALUE}).")
    private String fiPingpong = "fi_pingpong";

    @Option(names = "--seed", description = "Seed of the simulated fabric and endpoints (default: ${DEFAULT-VALUE}).")
    private long seed = 1;

    @Option(names = "--iterations", description = "Round trips per ping-pong size (default: 200000 on sim, "
            + "10000 on udp).")
    private Integer iterations;

    @Option(names = "--stream-bytes", description = "Bytes streamed per size (default: 536870912 on sim, "
            + "268435456 on udp).")
    private Long streamBytes;

    @Option(names = "--json", description = "Print one JSON object instead of a table.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        boolean udp = switch (device) {
            case "sim" -> false;
            case "udp" -> true;
            default -> throw new ParameterException(spec.commandLine(), "--device is sim or udp, not " + device);
        };
        int rounds = iterations != null ? iterations : udp ? 10_000 : 200_000;
        long bytes = streamBytes != null ? streamBytes : udp ? 256L << 20 : 512L << 20;
        if (rounds < 1 || bytes < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--iterations and --stream-bytes must be positive");
        }
        return udp ? betweenProcesses(rounds, bytes) : simulated(rounds, bytes);
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
        if (json) {
            out.println(toJson(results));
        } else {
            out.println("latency is one way; ratio is efa/memcpy bandwidth for streams, memcpy/efa time for "
                    + "ping-pongs;");
            out.println("a stream's memcpy copies into the receiver's rotation of buffers, 'memcpy 1 buffer' into one");
        }
        out.flush();
        return results.stream().allMatch(Result::verified) ? 0 : 1;
    }

    private int betweenProcesses(int iterations, long streamBytes) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = new Progress(spec.commandLine().getErr(), Progress.onTerminal());
        Optional<FiPingpong> tool = fiPingpong.equals("none") ? Optional.empty() : FiPingpong.find(fiPingpong);
        List<String> notes = new ArrayList<>();
        notes.add(fiPingpong.equals("none") ? "fi_pingpong: left out (--fi-pingpong none)"
                : tool.map(found -> "fi_pingpong: " + found.executable() + " -p \"" + FiPingpong.PROVIDER
                        + "\" -e rdm, between two processes of its own on the same host")
                .orElse("fi_pingpong: " + fiPingpong + " not found, so not run (Debian: apt-get install "
                        + "libfabric-bin)"));
        if (!json) {
            out.println(String.format("%-9s %10s %16s %16s %8s %s", "test", "size", "efa udp", "fi_pingpong",
                    "ratio", "data"));
            out.flush();
        }
        List<EfaUdpBench.Result> results;
        try (EfaUdpBench bench = EfaUdpBench.start(listen)) {
            results = bench.runAll(iterations, streamBytes, tool, new EfaUdpBench.Listener() {
                @Override
                public void starting(int index, boolean warmUp, String test, int size) {
                    progress.show((warmUp ? "warm-up " : "") + test + " " + size, index, EfaUdpBench.RUNS);
                }

                @Override
                public void finished(EfaUdpBench.Result result) {
                    progress.clear();
                    if (!json) {
                        out.println(udpRow(result));
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
            out.println(udpJson(results, notes));
        } else {
            notes.forEach(out::println);
            out.println("latency is one way, both sides' own figure; ratio is efa/fi_pingpong: below 1 is better for "
                    + "ping-pongs, above 1 for streams;");
            out.println("a stream's fi_pingpong figure is its ping-pong's MB/sec at that size (both directions), the "
                    + "most it measures; each side of a stream runs in its own process");
        }
        out.flush();
        return results.stream().allMatch(EfaUdpBench.Result::verified) ? 0 : 1;
    }

    private static String udpRow(EfaUdpBench.Result r) {
        String unit = r.test().equals("stream") ? " MB/s" : " us";
        return String.format("%-9s %10d %16s %16s %8s %s", r.test(), r.size(), String.format("%.2f", r.efa()) + unit,
                Double.isNaN(r.fiPingpong()) ? "-" : String.format("%.2f", r.fiPingpong()) + unit,
                Double.isNaN(r.ratio()) ? "-" : String.format("%.3f", r.ratio()), r.verified() ? "ok" : "DAMAGED");
    }

    private static String udpJson(List<EfaUdpBench.Result> results, List<String> notes) {
        Json json = new Json().beginObject().name("device").value("udp").name("results").beginArray();
        for (EfaUdpBench.Result r : results) {
            json.beginObject().name("test").value(r.test()).name("size").value(r.size())
                    .name("efa").value(r.efa()).name("fiPingpong").value(r.fiPingpong()).name("ratio").value(r.ratio())
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

    private static String toJson(List<Result> results) {
        Json json = new Json().beginObject().name("results").beginArray();
        for (Result r : results) {
            json.beginObject().name("test").value(r.test()).name("size").value(r.size())
                    .name("efa").value(r.efa()).name("memcpy").value(r.memcpy()).name("ratio").value(r.ratio())
                    .name("memcpyOneBuffer").value(r.memcpyOneBuffer())
                    .name("unit").value(r.test().equals("stream") ? "MB/s" : "us")
                    .name("verified").value(r.verified()).endObject();
        }
        return json.endArray().endObject().toString();
    }
}
