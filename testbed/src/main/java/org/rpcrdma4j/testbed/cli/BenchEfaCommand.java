package org.rpcrdma4j.testbed.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.rpcrdma4j.testbed.bench.EfaBench;
import org.rpcrdma4j.testbed.bench.EfaBench.Result;
import org.rpcrdma4j.testbed.term.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code testbed bench efa}: EFA endpoint ping-pong and streaming on the simulated device, beside memcpy. */
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
            "Exits 1 if a message arrived damaged."
        })
public final class BenchEfaCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--seed", description = "Seed of the simulated fabric and endpoints (default: ${DEFAULT-VALUE}).")
    private long seed = 1;

    @Option(names = "--iterations", description = "Round trips per ping-pong size (default: ${DEFAULT-VALUE}).")
    private int iterations = 200_000;

    @Option(names = "--stream-bytes", description = "Bytes streamed per size (default: ${DEFAULT-VALUE}).")
    private long streamBytes = 512L << 20;

    @Option(names = "--json", description = "Print one JSON object instead of a table.")
    private boolean json;

    @Override
    public Integer call() {
        if (iterations < 1 || streamBytes < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--iterations and --stream-bytes must be positive");
        }
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
