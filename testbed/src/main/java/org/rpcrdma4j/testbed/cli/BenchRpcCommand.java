package org.rpcrdma4j.testbed.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.FabricNotFoundException;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.Fabrics;
import org.rpcrdma4j.testbed.bench.RpcBench.Run;
import org.rpcrdma4j.testbed.bench.RpcBench;
import org.rpcrdma4j.testbed.bench.StepBreakdown.Breakdown;
import org.rpcrdma4j.testbed.bench.StepBreakdown;
import org.rpcrdma4j.testbed.term.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code testbed bench rpc}: one oncrpc4j program over oncrpc4j's TCP and over rpcrdma4j, side by side. */
@Command(
        name = "rpc",
        mixinStandardHelpOptions = true,
        description = {
            "The testbed's NFSv3 service served over oncrpc4j's TCP transport on loopback and over rpcrdma4j on "
                    + "a fabric (--fabric: the simulated EFA device by default), in one run: NULL, GETATTR, LOOKUP, "
                    + "ACCESS, CREATE+REMOVE and "
                    + "READDIRPLUS of a 20-entry directory at queue depth 1 and 32, 4 KiB, 64 KiB and 1 MiB READs "
                    + "and WRITEs at queue depth 1 and 1 MiB READs and WRITEs at 16: latency (p50, p99), operations per second, MB/s and the "
                    + "process's CPU time per operation, and over rpcrdma4j the bytes copied per operation on each "
                    + "side (the transport's and the fabric's copies). Each workload first warms up for a third of "
                    + "its time, all before any is measured.",
            "--fabric rc-sim runs rpcrdma4j on RC queue pairs over the simulated RC network, --fabric udp on the "
                    + "UDP device on loopback (both ends bind --listen); server and client are in this process.",
            "--processes 2 runs the services in a second JVM that the bench starts (and ends, whatever happens): "
                    + "oncrpc4j's TCP and rpcrdma4j on the fabric, which must reach other processes (udp, verbs), "
                    + "both served by that process for the whole run, and this process is the client of both. "
                    + "The CPU time and the bytes allocated per operation are then both processes' added, and a "
                    + "third table splits them into the client's and the server's.",
            "With --breakdown, runs blocking workloads (default: null-qd1 and getattr-qd1) over rpcrdma4j alone "
                    + "under a JFR recording of the transport's CallStepEvents and prints the median time of each "
                    + "step of a call.",
            "With --pcap FILE, what rpcrdma4j's runs send and receive is written into FILE as it goes, on the "
                    + "fabric's progress threads: the figures then measure the capture too, and every READ and "
                    + "WRITE workload writes its data (choose --workload and --millis to keep the file small).",
            "Exits 1 if a reply was wrong or a call failed."
        })
public final class BenchRpcCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--fabric", paramLabel = "NAME", description = "The fabric of rpcrdma4j's runs: sim, rc-sim, "
            + "udp, ... (default: ${DEFAULT-VALUE}).")
    private String fabric = "sim";

    @Option(names = "--listen", paramLabel = "ADDRESS[:PORT]", description = "Where the server's and the client's "
            + "fabric bind, for a fabric that needs it (default: ${DEFAULT-VALUE}).")
    private String listen = "127.0.0.1:0";

    @Option(names = "--processes", paramLabel = "1|2", description = "1: server and client in this process; 2: "
            + "the server in a second process (default: ${DEFAULT-VALUE}).")
    private int processes = 1;

    @Option(names = "--seed", description = "Seed of a simulated fabric (default: ${DEFAULT-VALUE}).")
    private long seed = 1;

    @Option(names = "--millis", description = "Measured time per workload and transport (default: ${DEFAULT-VALUE}).")
    private long millis = 3000;

    @Option(names = "--json", description = "Print one JSON document instead of a table.")
    private boolean json;

    @Option(names = "--workload", split = ",", paramLabel = "NAME",
            description = "Run only these workloads (default: all): ${COMPLETION-CANDIDATES}.",
            converter = WorkloadConverter.class, completionCandidates = WorkloadNames.class)
    private List<RpcBench.Workload> workloads;

    @Option(names = "--same-thread", description = "Run programs on the thread that received the call (oncrpc4j's "
            + "selector thread, rpcrdma4j's progress thread) instead of a pool of workers, on both transports.")
    private boolean sameThread;

    @Option(names = "--spin-micros", description = "Blocking calls spin this long for their reply before they "
            + "park (rpcrdma4j's SpinThenParkCaller), on both transports; without it they wait as oncrpc4j's "
            + "RpcCall.call does.")
    private Long spinMicros;

    @Option(names = "--allocations", description = "Also print the bytes allocated per operation by each thread.")
    private boolean allocations;

    @Option(names = "--breakdown", description = "Print where the time of a blocking call over rpcrdma4j goes, step "
            + "by step, instead of comparing the transports.")
    private boolean breakdown;

    @Mixin
    private PcapOption pcap;

    @Mixin
    private DeviceProfileOption deviceProfile;

    @Option(names = "--beside-profile", paramLabel = "PROFILE", converter = DeviceProfileOption.Converter.class,
            description = "Measure rpcrdma4j beside rpcrdma4j on the same fabric with its devices on this profile "
                    + "(none, read, read-write) instead of beside TCP, e.g. --device-profile read --beside-profile "
                    + "read-write for what emulated RDMA writes cost. In one process only.")
    private DeviceProfile besideProfile;

    @Override
    public Integer call() throws Exception {
        int exit;
        boolean written;
        try {
            exit = bench();
        } finally {
            written = pcap.close(spec.commandLine().getErr(), "testbed bench rpc");
        }
        return written ? exit : 1;
    }

    private int bench() throws Exception {
        if (millis < 1) {
            throw new ParameterException(spec.commandLine(), "--millis must be positive");
        }
        if (spinMicros != null && spinMicros < 0) {
            throw new ParameterException(spec.commandLine(), "--spin-micros must not be negative");
        }
        if (processes != 1 && processes != 2) {
            throw new ParameterException(spec.commandLine(), "--processes is 1 or 2");
        }
        if (processes == 2 && breakdown) {
            throw new ParameterException(spec.commandLine(), "--breakdown records both sides' steps in one process: "
                    + "it takes no --processes 2");
        }
        Duration spin = spinMicros == null ? null : Duration.ofNanos(spinMicros * 1000);
        PrintWriter out = spec.commandLine().getOut();
        RpcBench.OnFabric on;
        RpcBench.OnFabric reference = null;
        if (besideProfile != null && (processes == 2 || breakdown)) {
            throw new ParameterException(spec.commandLine(), "--beside-profile runs both fabrics in this process, "
                    + "without --processes 2 or --breakdown");
        }
        try {
            FabricProvider named = Fabrics.named(fabric);
            // A fabric whose listeners are named by an address is one other processes reach; the simulated ones
            // give each fabric an address inside this JVM only.
            if (processes == 2 && !named.needsListenAddress()) {
                throw new ParameterException(spec.commandLine(), "--processes 2 needs a fabric that other processes "
                        + "reach (udp, verbs); " + fabric + " is " + named.description());
            }
            FabricOptions options = deviceProfile.applyTo(FabricOptions.DEFAULT.withSeed(seed), named, spec);
            FabricProvider provider = pcap.capturing(named, spec);
            if (provider.needsListenAddress()) {
                options = options.listening(listen);
            }
            on = new RpcBench.OnFabric(provider, options, options);
            if (besideProfile != null) {
                FabricOptions besideOptions = options.withDeviceProfile(besideProfile);
                reference = new RpcBench.OnFabric(provider, besideOptions, besideOptions);
                if (reference.label().equals(on.label())) {
                    throw new ParameterException(spec.commandLine(), "--beside-profile " + besideProfile.label()
                            + " is the profile measured; name another");
                }
            }
        } catch (FabricNotFoundException e) {
            spec.commandLine().getErr().println("testbed bench rpc: " + e.getMessage());
            return 1;
        }
        if (breakdown) {
            List<RpcBench.Workload> chosen = workloads != null ? workloads
                    : List.of(RpcBench.Workload.NULL_QD1, RpcBench.Workload.GETATTR_QD1);
            Map<RpcBench.Workload, Breakdown> breakdowns;
            try {
                breakdowns = new RpcBench(Duration.ofMillis(millis), chosen, on, sameThread, spin, false).breakdown();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            out.println(json ? breakdownJson(breakdowns) : breakdownTable(breakdowns));
            out.flush();
            return 0;
        }
        List<RpcBench.Workload> chosen = workloads != null ? workloads : List.of(RpcBench.Workload.values());
        RpcBench bench = reference == null
                ? new RpcBench(Duration.ofMillis(millis), chosen, on, sameThread, spin, processes == 2)
                : RpcBench.beside(Duration.ofMillis(millis), chosen, on, reference, sameThread, spin);
        Progress progress = new Progress(spec.commandLine().getErr(), Progress.onTerminal());
        List<Run> runs = bench.runAll((step, index) -> progress.show(step, index, bench.steps()));
        progress.clear();
        String beside = reference == null ? "tcp" : reference.label();
        out.println(json ? toJson(runs) : toTable(runs, chosen, beside, on.label()));
        if (!json) {
            out.println(cpuTable(runs, chosen, beside, on.label()));
        }
        if (!json && processes == 2) {
            out.println(sidesTable(runs, chosen, on.label()));
        }
        if (allocations && !json) {
            out.println(allocationTable(runs));
        }
        out.flush();
        return runs.stream().allMatch(Run::verified) ? 0 : 1;
    }

    private static String toTable(List<Run> runs, List<RpcBench.Workload> workloads, String beside,
                                  String rdmaLabel) {
        String b = column(beside);
        StringBuilder table = new StringBuilder(String.format(
                "%-18s %8s %8s %5s %8s %8s %5s %9s %9s %5s %7s %7s %5s %9s %9s %5s %10s %10s %9s %9s %s%n",
                "workload", b + " p50", "rdma p50", "ratio", b + " p99", "rdma p99", "ratio", b + " op/s", "rdma op/s",
                "ratio", b + " cpu", "rdma cpu", "ratio", b + " MB/s", "rdma MB/s", "ratio", "srv copy B",
                "cli copy B", b + " alloc", "rdma allc", "replies"));
        for (RpcBench.Workload workload : workloads) {
            Run tcp = find(runs, beside, workload);
            Run rdma = find(runs, rdmaLabel, workload);
            table.append(String.format(
                    "%-18s %8.1f %8.1f %5.2f %8.1f %8.1f %5.2f %9.0f %9.0f %5.2f %7.1f %7.1f %5.2f %9.1f %9.1f %5s %10.0f %10.0f %9.0f %9.0f %s%n",
                    workload.label(), tcp.latency().p50(), rdma.latency().p50(), rdma.latency().p50() / tcp.latency().p50(),
                    tcp.latency().p99(), rdma.latency().p99(), rdma.latency().p99() / tcp.latency().p99(),
                    tcp.opsPerSec(), rdma.opsPerSec(), rdma.opsPerSec() / tcp.opsPerSec(),
                    tcp.cpu().process(), rdma.cpu().process(), rdma.cpu().process() / tcp.cpu().process(),
                    tcp.mbPerSec(), rdma.mbPerSec(), tcp.mbPerSec() > 0 ? String.format("%.2f", rdma.mbPerSec() / tcp.mbPerSec()) : "-",
                    rdma.copies().server(), rdma.copies().client(), tcp.allocations().total(),
                    rdma.allocations().total(), tcp.verified() && rdma.verified() ? "ok" : "WRONG"));
        }
        boolean twoProcesses = runs.get(0).server() != null;
        return table.append("p50, p99: microseconds from call to reply; cpu: microseconds of CPU time per operation ("
                        + (twoProcesses ? "the client's and the server's processes added" : "client and server in one"
                        + " process") + "); an operation is one call, but a CREATE and its REMOVE in"
                        + " create-remove%n".formatted())
                .append(beside.equals("tcp") ? "" : "ref: " + beside + "; rdma: " + rdmaLabel + "%n".formatted())
                .append("ratios are " + rdmaLabel + " / " + beside + ": below 1 is better for latency and cpu, above 1 for op/s"
                        + " and MB/s; copy B: bytes rpcrdma4j copied per operation on the server's and the client's"
                        + " side, the transport's and the fabric's copies; alloc: bytes the process's threads"
                        + " allocated per operation")
                .toString();
    }

    private static String cpuTable(List<Run> runs, List<RpcBench.Workload> workloads, String beside,
                                   String rdmaLabel) {
        String b = column(beside);
        StringBuilder table = new StringBuilder(String.format("%-18s %8s %8s %8s %8s %8s %8s %9s %9s%n", "workload",
                b + " io", "rdma io", b + " oth", "rdma oth", b + " all", "rdma all", "io ratio", "all ratio"));
        for (RpcBench.Workload workload : workloads) {
            RpcBench.Cpu tcp = find(runs, beside, workload).cpu();
            RpcBench.Cpu rdma = find(runs, rdmaLabel, workload).cpu();
            table.append(String.format("%-18s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %9.2f %9.2f%n", workload.label(),
                    tcp.io(), rdma.io(), tcp.others(), rdma.others(), tcp.io() + tcp.others(),
                    rdma.io() + rdma.others(), rdma.io() / tcp.io(),
                    (rdma.io() + rdma.others()) / (tcp.io() + tcp.others())));
        }
        return table.append("CPU microseconds per operation by thread: io, the transports' I/O threads (oncrpc4j's"
                + " selector threads, the fabric's progress and device threads); oth,"
                + " the callers, workers and timers; all, both (the process's cpu above also counts the JIT and"
                + " the garbage collector)").toString();
    }

    private static String sidesTable(List<Run> runs, List<RpcBench.Workload> workloads, String rdmaLabel) {
        StringBuilder table = new StringBuilder(String.format("%-18s %8s %8s %5s %8s %8s %5s %9s %9s %5s %9s %9s %5s%n",
                "workload", "tcp cli", "rdma cli", "ratio", "tcp srv", "rdma srv", "ratio", "tcp cli B", "rdma cli",
                "ratio", "tcp srv B", "rdma srv", "ratio"));
        for (RpcBench.Workload workload : workloads) {
            Run tcp = find(runs, "tcp", workload);
            Run rdma = find(runs, rdmaLabel, workload);
            table.append(String.format("%-18s %8.1f %8.1f %5.2f %8.1f %8.1f %5.2f %9.0f %9.0f %5.2f %9.0f %9.0f %5.2f%n",
                    workload.label(), tcp.client().cpu().process(), rdma.client().cpu().process(),
                    rdma.client().cpu().process() / tcp.client().cpu().process(), tcp.server().cpu().process(),
                    rdma.server().cpu().process(), rdma.server().cpu().process() / tcp.server().cpu().process(),
                    tcp.client().allocated(), rdma.client().allocated(),
                    rdma.client().allocated() / tcp.client().allocated(), tcp.server().allocated(),
                    rdma.server().allocated(), rdma.server().allocated() / tcp.server().allocated()));
        }
        return table.append("each process's share per operation: cli, srv: microseconds of the client's and the"
                + " server's process's CPU time; B: bytes the threads of each allocated; ratios are " + rdmaLabel
                + " / tcp, below 1 is better").toString();
    }

    private static String allocationTable(List<Run> runs) {
        StringBuilder table = new StringBuilder(String.format("%-9s %-18s %10s  %s%n", "transport", "workload",
                "alloc B", "by thread (B per operation)"));
        for (Run run : runs) {
            StringBuilder byThread = new StringBuilder();
            run.allocations().byThread().forEach((name, bytes) -> {
                if (bytes >= 1) {
                    byThread.append(String.format("%s %.0f; ", name, bytes));
                }
            });
            table.append(String.format("%-9s %-18s %10.0f  %s%n", run.transport(), run.workload(),
                    run.allocations().total(), byThread));
        }
        return table.toString();
    }

    private static String breakdownTable(Map<RpcBench.Workload, Breakdown> breakdowns) {
        StringBuilder table = new StringBuilder(String.format("%-48s", "step"));
        breakdowns.keySet().forEach(w -> table.append(String.format(" %14s %14s", w.label() + " step",
                w.label() + " at")));
        table.append(String.format("%n"));
        for (int i = 0; i < StepBreakdown.STEPS.size() - 1; i++) {
            int step = i;
            table.append(String.format("%-48s", StepBreakdown.STEPS.get(i + 1)));
            breakdowns.values().forEach(b -> table.append(String.format(" %14.2f %14.2f",
                    b.steps().get(step).medianUs(), b.steps().get(step).sinceUs())));
            table.append(String.format("%n"));
        }
        table.append(String.format("%-48s", "calls that passed every step"));
        breakdowns.values().forEach(b -> table.append(String.format(" %14d %14s", b.calls(), "")));
        return table.append(String.format("%nstep: median us since the step before; at: median us since the call"
                + " started; medians of each column separately, so they need not add up")).toString();
    }

    private static String breakdownJson(Map<RpcBench.Workload, Breakdown> breakdowns) {
        Json json = new Json().beginObject().name("breakdowns").beginArray();
        breakdowns.forEach((workload, breakdown) -> {
            json.beginObject().name("workload").value(workload.label()).name("calls").value(breakdown.calls())
                    .name("steps").beginArray();
            for (StepBreakdown.Step step : breakdown.steps()) {
                json.beginObject().name("step").value(step.step()).name("medianUs").value(step.medianUs())
                        .name("sinceStartUs").value(step.sinceUs()).endObject();
            }
            json.endArray().endObject();
        });
        return json.endArray().endObject().toString();
    }

    /** @return the column heads' name of the runs beside: "tcp", or "ref" for a fabric's long label */
    private static String column(String beside) {
        return beside.equals("tcp") ? "tcp" : "ref";
    }

    private static Run find(List<Run> runs, String transport, RpcBench.Workload workload) {
        return runs.stream().filter(r -> r.transport().equals(transport) && r.workload().equals(workload.label()))
                .findFirst().orElseThrow();
    }

    private static String toJson(List<Run> runs) {
        Json json = new Json().beginObject().name("runs").beginArray();
        for (Run r : runs) {
            json.beginObject().name("transport").value(r.transport()).name("workload").value(r.workload())
                    .name("latencyUs").value(r.latency().mean()).name("p50Us").value(r.latency().p50())
                    .name("p99Us").value(r.latency().p99()).name("opsPerSec").value(r.opsPerSec())
                    .name("mbPerSec").value(r.mbPerSec()).name("cpuUsPerOp").value(r.cpu().process())
                    .name("ioCpuUsPerOp").value(r.cpu().io()).name("otherCpuUsPerOp").value(r.cpu().others())
                    .name("verified").value(r.verified())
                    .name("allocatedPerOp").value(r.allocations().total());
            if (r.copies() != null) {
                json.name("serverCopiedPerCall").value(r.copies().server())
                        .name("clientCopiedPerCall").value(r.copies().client());
            }
            if (r.server() != null) {
                side(json.name("client"), r.client());
                side(json.name("server"), r.server());
            }
            json.endObject();
        }
        return json.endArray().endObject().toString();
    }

    private static void side(Json json, RpcBench.Side side) {
        json.beginObject().name("cpuUsPerOp").value(side.cpu().process()).name("ioCpuUsPerOp").value(side.cpu().io())
                .name("otherCpuUsPerOp").value(side.cpu().others()).name("allocatedPerOp").value(side.allocated())
                .endObject();
    }

    /** Workloads by their labels in the report. */
    static final class WorkloadConverter implements ITypeConverter<RpcBench.Workload> {
        @Override
        public RpcBench.Workload convert(String label) {
            return Arrays.stream(RpcBench.Workload.values()).filter(w -> w.label().equals(label)).findFirst()
                    .orElseThrow(() -> new TypeConversionException("no workload " + label));
        }
    }

    /** The labels, for the help text. */
    static final class WorkloadNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(RpcBench.Workload.values()).map(RpcBench.Workload::label).iterator();
        }
    }
}
