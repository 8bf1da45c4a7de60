package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;

/**
 * What this JVM used between two moments: the process's CPU time, the CPU time of its threads split into the
 * transports' I/O threads and the others, and the bytes each thread allocated, as the JVM counts them
 * ({@code getProcessCpuTime}, {@code ThreadMXBean#getThreadCpuTime} and {@code getThreadAllocatedBytes}; a thread
 * that ended in between is not counted). A peer process reports its own in lines of text
 * ({@link #lines(Use)}, {@link #parse(List)}).
 */
public final class ProcessMeter {

    private final OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /**
     * What was used.
     *
     * @param processCpuNanos the whole process's CPU time, the JIT and the garbage collector included
     * @param ioCpuNanos      the transports' I/O threads' ({@link #isIoThread})
     * @param otherCpuNanos   the other threads': callers, workers, timers
     * @param allocated       bytes allocated by the threads of each name, digits in the name replaced by {@code #}
     */
    public record Use(long processCpuNanos, long ioCpuNanos, long otherCpuNanos, Map<String, Long> allocated) {
    }

    /** What the JVM counts for one thread: its name, digits replaced by {@code #}, CPU time and bytes allocated. */
    private record ThreadFigures(String name, long cpuNanos, long allocated) {
    }

    /** The counts at one moment. */
    public final class Snapshot {

        private final long processCpuNanos = os.getProcessCpuTime();
        private final Map<Long, ThreadFigures> byThread = threadFigures();

        private Snapshot() {
        }

        /** @return what was used from this snapshot until now */
        public Use used() {
            long process = os.getProcessCpuTime() - processCpuNanos;
            long io = 0;
            long others = 0;
            Map<String, Long> allocated = new TreeMap<>();
            for (Map.Entry<Long, ThreadFigures> now : threadFigures().entrySet()) {
                ThreadFigures then = byThread.getOrDefault(now.getKey(), new ThreadFigures(now.getValue().name(), 0, 0));
                long cpuNanos = now.getValue().cpuNanos() - then.cpuNanos();
                if (isIoThread(now.getValue().name())) {
                    io += cpuNanos;
                } else {
                    others += cpuNanos;
                }
                long bytes = now.getValue().allocated() - then.allocated();
                if (bytes > 0) {
                    allocated.merge(now.getValue().name(), bytes, Long::sum);
                }
            }
            return new Use(process, io, others, allocated);
        }
    }

    /** @return the counts now */
    public Snapshot snapshot() {
        return new Snapshot();
    }

    /** @return the figures of each live thread so far, by thread id */
    private Map<Long, ThreadFigures> threadFigures() {
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<Long, ThreadFigures> byId = new LinkedHashMap<>();
        for (int i = 0; i < ids.length; i++) {
            var info = threads.getThreadInfo(ids[i]);
            long cpuNanos = threads.getThreadCpuTime(ids[i]);
            if (info != null && bytes[i] >= 0 && cpuNanos >= 0) {
                byId.put(ids[i], new ThreadFigures(info.getThreadName().replaceAll("[0-9]+", "#"), cpuNanos,
                        bytes[i]));
            }
        }
        return byId;
    }

    /**
     * The transports' I/O threads: Grizzly's selector runners (oncrpc4j's client and server), the fabrics'
     * progress threads and the UDP device's I/O thread.
     */
    static boolean isIoThread(String name) {
        return name.contains("SelectorRunner") || name.startsWith("efa-") || name.startsWith("rc-fabric")
                || name.startsWith("udp-device");
    }

    /**
     * @param use what was used
     * @return it as lines: {@code cpu PROCESS IO OTHERS} (nanoseconds), then {@code allocated BYTES NAME} for each
     *     thread name
     */
    public static List<String> lines(Use use) {
        List<String> lines = new ArrayList<>();
        lines.add("cpu " + use.processCpuNanos() + " " + use.ioCpuNanos() + " " + use.otherCpuNanos());
        use.allocated().forEach((name, bytes) -> lines.add("allocated " + bytes + " " + name));
        return lines;
    }

    /**
     * @param lines what {@link #lines} wrote
     * @return the use they tell of
     * @throws IOException if they are not such lines
     */
    public static Use parse(List<String> lines) throws IOException {
        if (lines.isEmpty() || !lines.get(0).startsWith("cpu ")) {
            throw new IOException("not a process's use: " + lines);
        }
        try {
            String[] cpu = lines.get(0).split(" ");
            Map<String, Long> allocated = new TreeMap<>();
            for (String line : lines.subList(1, lines.size())) {
                String[] words = line.split(" ", 3);
                if (words.length != 3 || !words[0].equals("allocated")) {
                    throw new IOException("not an allocation: " + line);
                }
                allocated.merge(words[2], Long.parseLong(words[1]), Long::sum);
            }
            return new Use(Long.parseLong(cpu[1]), Long.parseLong(cpu[2]), Long.parseLong(cpu[3]), allocated);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new IOException("not a process's use: " + lines, e);
        }
    }
}
