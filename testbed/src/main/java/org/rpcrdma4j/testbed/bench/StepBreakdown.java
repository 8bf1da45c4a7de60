package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.rpcrdma4j.transport.CallStepEvent;

/**
 * Where the time of a blocking call over rpcrdma4j goes, step by step: a JFR recording of the transport's
 * {@link CallStepEvent}s inside each {@link BenchCallEvent}, and the median time between each step and the
 * one before it, over every call that passed all of them.
 */
public final class StepBreakdown implements AutoCloseable {

    /** The marks of one call in the order it passes them: the bench's own first and last, the transport's between. */
    public static final List<String> STEPS = List.of("call started (before oncrpc4j encodes)", CallStepEvent.CALL_SUBMITTED,
            CallStepEvent.CALL_PLANNED, CallStepEvent.CALL_SENT, CallStepEvent.CALL_RECEIVED,
            CallStepEvent.CALL_DISPATCHED, CallStepEvent.PROGRAM_STARTED, CallStepEvent.REPLY_SUBMITTED,
            CallStepEvent.REPLY_PLANNED, CallStepEvent.REPLY_SENT, CallStepEvent.REPLY_RECEIVED,
            CallStepEvent.REPLY_DELIVERED, "caller has the result (woken, oncrpc4j decoded)");

    /**
     * The median time from the step before to a step, and from the call's start.
     *
     * @param step     the step's name
     * @param medianUs the median time from the step before, in microseconds
     * @param sinceUs  the median time from the call's start, in microseconds
     */
    public record Step(String step, double medianUs, double sinceUs) {
    }

    /**
     * The breakdown of one workload.
     *
     * @param calls how many calls passed every step (others, such as those cut by the recording's end, are left out)
     * @param steps each step after the first, in order
     */
    public record Breakdown(int calls, List<Step> steps) {
    }

    private final Recording recording = new Recording();

    /** Starts recording the marks of calls. */
    StepBreakdown() {
        recording.enable(CallStepEvent.NAME).withoutStackTrace().withoutThreshold();
        recording.enable(BenchCallEvent.class).withoutStackTrace().withoutThreshold();
        recording.start();
    }

    /**
     * Stops recording and analyses what was recorded.
     *
     * @return the breakdown of the calls recorded
     * @throws IOException if the recording cannot be written or read
     */
    Breakdown finish() throws IOException {
        recording.stop();
        Path file = Files.createTempFile("rpcrdma4j-steps", ".jfr");
        try {
            recording.dump(file);
            return analyse(RecordingFile.readAllEvents(file));
        } finally {
            Files.delete(file);
        }
    }

    @Override
    public void close() {
        recording.close();
    }

    private static Breakdown analyse(List<RecordedEvent> events) {
        List<RecordedEvent> calls = new ArrayList<>();
        List<RecordedEvent> marks = new ArrayList<>();
        for (RecordedEvent event : events) {
            (event.getEventType().getName().equals(CallStepEvent.NAME) ? marks : calls).add(event);
        }
        calls.sort((a, b) -> a.getStartTime().compareTo(b.getStartTime()));
        marks.sort((a, b) -> a.getStartTime().compareTo(b.getStartTime()));
        List<long[]> complete = new ArrayList<>();
        List<long[]> fromStart = new ArrayList<>();
        int next = 0;
        for (RecordedEvent call : calls) {
            while (next < marks.size() && marks.get(next).getStartTime().isBefore(call.getStartTime())) {
                next++;
            }
            Instant[] at = new Instant[STEPS.size()];
            at[0] = call.getStartTime();
            at[at.length - 1] = call.getEndTime();
            // The call is the one submitted first in the frame: a mark of the call before may still fall in it.
            Integer xid = null;
            for (int i = next; i < marks.size() && !marks.get(i).getStartTime().isAfter(call.getEndTime()); i++) {
                RecordedEvent mark = marks.get(i);
                int step = STEPS.indexOf(mark.getString("step"));
                if (xid == null && step == 1) {
                    xid = mark.getInt("xid");
                }
                if (step > 0 && xid != null && mark.getInt("xid") == xid && at[step] == null) {
                    at[step] = mark.getStartTime();
                }
            }
            if (Arrays.stream(at).allMatch(t -> t != null)) {
                long[] gaps = new long[at.length - 1];
                long[] since = new long[at.length - 1];
                for (int i = 1; i < at.length; i++) {
                    gaps[i - 1] = nanos(at[i - 1], at[i]);
                    since[i - 1] = nanos(at[0], at[i]);
                }
                complete.add(gaps);
                fromStart.add(since);
            }
        }
        List<Step> steps = new ArrayList<>();
        for (int i = 1; i < STEPS.size(); i++) {
            int gap = i - 1;
            steps.add(new Step(STEPS.get(i), median(complete, gap), median(fromStart, gap)));
        }
        return new Breakdown(complete.size(), steps);
    }

    /** @return the median of one column of the rows, in microseconds; 0 without rows */
    private static double median(List<long[]> rows, int column) {
        long[] values = rows.stream().mapToLong(row -> row[column]).sorted().toArray();
        return values.length == 0 ? 0 : values[values.length / 2] / 1e3;
    }

    private static long nanos(Instant from, Instant to) {
        return (to.getEpochSecond() - from.getEpochSecond()) * 1_000_000_000L + to.getNano() - from.getNano();
    }
}
