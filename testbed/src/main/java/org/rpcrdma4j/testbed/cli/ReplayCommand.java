package org.rpcrdma4j.testbed.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.trace.Capture;
import org.rpcrdma4j.testbed.term.Progress;
import org.rpcrdma4j.testbed.trace.Replay;
import org.rpcrdma4j.testbed.trace.TruncatedCaptureException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code testbed replay}: conformance of our requester and responder against Linux captures. */
@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        description = {
            "Replay Linux RPC-over-RDMA captures (pcap or pcapng of RoCEv2, or its JSON Lines export: a file named "
                    + "*.jsonl) against rpcrdma4j: every call Linux sent is "
                    + "planned by our requester and every reply by our responder (NFS binding, thresholds from "
                    + "the capture's RFC 8797 private data, Linux's credit grant), and each must travel as it "
                    + "did under Linux (docs/CONFORMANCE.md). Prints one line per trace (messages, matched, "
                    + "mismatched and the first difference; a message whose payload an export elides is reported "
                    + "as not checkable; a Linux answer that is Linux's own bug on a line of its own), or with --json "
                    + "{\"traces\":[{\"trace\":NAME,\"connections\":N,\"duplicates\":N,\"messages\":N,"
                    + "\"matched\":N,\"mismatches\":[...],\"linuxBugs\":[...],\"procedures\":[{\"procedure\":"
                    + "NAME,\"calls\":N,\"matched\":N,\"inline\":N,\"read\":N,\"write\":N,\"reply\":N,"
                    + "\"positionZero\":N}]}]}. Every RDMA connection of a capture is replayed.",
            "A file that cannot be read is reported and skipped; a capture cut short is replayed up to the cut, "
                    + "with a warning naming the frame, as tshark does.",
            "Exits 0 when every message matched, 1 on any mismatch, 2 when a capture could not be read or was "
                    + "cut short."
        })
public final class ReplayCommand implements Callable<Integer> {

    private static final String JSONL = ".jsonl";

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "print JSON instead of a table")
    private boolean json;

    @Parameters(arity = "1..*", paramLabel = "TRACE",
            description = "pcap or pcapng files, or their JSON Lines exports (*.jsonl), to replay")
    private List<Path> traces;

    @Override
    public Integer call() {
        Replay replay = new Replay(new NfsDdpPolicy());
        List<Replay.Result> results = new ArrayList<>();
        CaptureFiles files = new CaptureFiles(spec.commandLine().getErr());
        Progress progress = new Progress(spec.commandLine().getErr(), traces.size() > 1 && Progress.onTerminal());
        for (int i = 0; i < traces.size(); i++) {
            Path trace = traces.get(i);
            progress.show("replay " + trace.getFileName(), i, traces.size());
            List<TruncatedCaptureException> cut = new ArrayList<>(1);
            try {
                results.add(replay.run(name(trace), read(trace, cut::add)));
            } catch (IOException e) {
                progress.clear();
                files.cannotRead(trace, e);
                continue;
            }
            progress.clear();
            cut.forEach(e -> files.cutShort(trace, e));
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(json ? json(results) : table(results));
        out.flush();
        if (files.troubled()) {
            return 2;
        }
        return results.stream().allMatch(r -> r.mismatches().isEmpty()) ? 0 : 1;
    }

    /** Tells the export from the pcap by name, as export.py names it, since both replay the same trace. */
    private static Capture read(Path trace, Consumer<TruncatedCaptureException> cut) throws IOException {
        if (trace.getFileName().toString().endsWith(JSONL)) {
            try (BufferedReader in = Files.newBufferedReader(trace, StandardCharsets.UTF_8)) {
                return Capture.readJsonLines(in);
            }
        }
        try (InputStream in = Files.newInputStream(trace)) {
            return Capture.read(in, cut);
        }
    }

    private static String name(Path trace) {
        String file = trace.getFileName().toString();
        for (String suffix : new String[] {".pcapng", ".pcap", JSONL}) {
            if (file.endsWith(suffix)) {
                return file.substring(0, file.length() - suffix.length());
            }
        }
        return file;
    }

    private static String table(List<Replay.Result> results) {
        StringBuilder s = new StringBuilder(String.format("%-20s %8s %8s %10s  %s%n", "trace", "messages", "matched",
                "mismatched", "first difference"));
        for (Replay.Result r : results) {
            String first = r.mismatches().isEmpty() ? "-" : describe(r.mismatches().get(0));
            s.append(String.format("%-20s %8d %8d %10d  %s%n", r.trace(), r.messages(), r.matched(),
                    r.mismatches().size(), first));
            for (Replay.LinuxBug b : r.linuxBugs()) {
                s.append(String.format("  frame %d xid 0x%x %s: %s%n", b.frame(), b.xid(), b.procedure(), b.note()));
            }
        }
        return s.toString().stripTrailing();
    }

    private static String describe(Replay.Mismatch m) {
        return "frame " + m.frame() + " " + m.role() + " xid 0x" + Long.toHexString(m.xid()) + " " + m.procedure()
                + ": " + m.difference();
    }

    private static String json(List<Replay.Result> results) {
        Json j = new Json().beginObject().name("traces").beginArray();
        for (Replay.Result r : results) {
            j.beginObject().name("trace").value(r.trace()).name("connections").value(r.connections())
                    .name("duplicates").value(r.duplicates()).name("messages").value(r.messages()).name("matched")
                    .value(r.matched()).name("mismatches").beginArray();
            for (Replay.Mismatch m : r.mismatches()) {
                j.beginObject().name("frame").value(m.frame()).name("connection").value(m.connection())
                        .name("role").value(m.role()).name("xid").value(m.xid()).name("procedure")
                        .value(m.procedure()).name("difference").value(m.difference()).endObject();
            }
            j.endArray().name("linuxBugs").beginArray();
            for (Replay.LinuxBug b : r.linuxBugs()) {
                j.beginObject().name("frame").value(b.frame()).name("connection").value(b.connection())
                        .name("xid").value(b.xid()).name("procedure").value(b.procedure()).name("note")
                        .value(b.note()).endObject();
            }
            j.endArray().name("procedures").beginArray();
            for (Replay.ProcedureSummary p : r.procedures()) {
                j.beginObject().name("procedure").value(p.procedure()).name("calls").value(p.calls())
                        .name("matched").value(p.matched()).name("inline").value(p.inline()).name("read")
                        .value(p.read()).name("write").value(p.write()).name("reply").value(p.reply())
                        .name("positionZero").value(p.positionZero()).endObject();
            }
            j.endArray().endObject();
        }
        return j.endArray().endObject().toString();
    }
}
