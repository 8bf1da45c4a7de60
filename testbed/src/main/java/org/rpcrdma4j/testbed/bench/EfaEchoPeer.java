package org.rpcrdma4j.testbed.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.device.DeviceProvider;
import org.rpcrdma4j.fabric.SocketAddressText;

/**
 * The far side of {@link EfaDeviceBench}, in the peer process: an EFA endpoint on a device of its own (UDP, verbs)
 * that answers ping-pongs and takes streams. Set up by lines on its input, each answered by a line on its output:
 *
 * <ul>
 *   <li>at start it prints {@code efa ADDRESS:PORT/CONNID}, its endpoint's address;</li>
 *   <li>{@code pingpong SIZE}: keeps two receives of {@code SIZE} bytes posted and sends every message back to
 *       its sender as it came; answers {@code ready};</li>
 *   <li>{@code stream SIZE WINDOW COUNT}: keeps {@code WINDOW} receives of {@code SIZE} bytes posted until
 *       {@code COUNT} messages came, then sends their sender one byte, 1 if the last message holds
 *       {@link EfaDeviceBench#streamData} and 0 if not; answers {@code ready};</li>
 *   <li>{@code ibv SIZE ITERATIONS}: starts the server half of {@code ibv_rc_pingpong} ({@link IbvRcPingpong}) on
 *       the RDMA device that has the endpoint's address, for the bench's client half; answers {@code ready}, or
 *       {@code unavailable REASON} if the tool or the device is missing;</li>
 *   <li>the end of its input: closes the endpoint and returns.</li>
 * </ul>
 *
 * A new set-up first cancels the receives the last one left posted and waits for its sends to end. One thread
 * runs the endpoint; another reads the commands and wakes it.
 */
public final class EfaEchoPeer {

    /** Set on the context of a send, beside the index of the buffer it sends. */
    private static final long SEND = 1L << 32;
    private static final Duration CANCEL_LIMIT = Duration.ofSeconds(30);
    /**
     * How long the server half of {@code ibv_rc_pingpong} is given: as long as the bench gives its client half, so
     * that the peer reads commands again by the time the bench, its client given up, sends the next.
     */
    private static final Duration IBV_SERVER_LIMIT = Duration.ofMinutes(1);

    private final EndpointDriver driver;
    private final InetAddress host;
    private final Optional<IbvRcPingpong> ibvRcPingpong = IbvRcPingpong.find("ibv_rc_pingpong");
    private final PrintWriter out;
    private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    private final Set<Long> posted = new HashSet<>();
    private final ByteBuffer verdict = ByteBuffer.allocate(1);
    private ByteBuffer[] buffers = new ByteBuffer[0];
    private Mode mode = Mode.IDLE;
    private long expected;
    private long received;
    private long postedTotal;
    private int sending;
    private ToolRun ibvRun;
    private ToolRun.Started ibvServer;

    /** What the posted receives are for; between set-ups, nothing: an echo that ends then posts no receive. */
    private enum Mode { IDLE, PINGPONG, STREAM }

    private EfaEchoPeer(EndpointDriver driver, InetAddress host, PrintWriter out) {
        this.driver = driver;
        this.host = host;
        this.out = out;
    }

    /**
     * Serves until {@code in} ends.
     *
     * @param provider the kind of device
     * @param listen   {@code ADDRESS[:PORT]} the endpoint's device opens on
     * @param in       the commands
     * @param out      the answers
     * @throws IOException if the device cannot open there
     */
    public static void serve(DeviceProvider provider, String listen, BufferedReader in, PrintWriter out)
            throws IOException {
        try (EndpointDriver driver = EndpointDriver.open(provider, listen)) {
            EfaEchoPeer peer = new EfaEchoPeer(driver, SocketAddressText.parse(listen, 0).getAddress(), out);
            Thread reader = new Thread(() -> peer.read(in), "efa-peer-commands");
            reader.setDaemon(true);
            reader.start();
            out.println("efa " + driver.address());
            out.flush();
            peer.run();
        }
    }

    private void read(BufferedReader in) {
        try {
            for (String line; (line = in.readLine()) != null; ) {
                commands.add(line);
                driver.wakeUp();
            }
        } catch (IOException e) {
            // a broken pipe ends the input as its end does
        }
        commands.add("quit");
        driver.wakeUp();
    }

    private void run() {
        while (true) {
            String command = commands.poll();
            if (command != null) {
                String[] words = command.split(" ");
                String answer = "ready";
                switch (words[0]) {
                    case "quit" -> {
                        return;
                    }
                    case "pingpong" -> post(Integer.parseInt(words[1]), 2, Long.MAX_VALUE, Mode.PINGPONG);
                    case "stream" -> post(Integer.parseInt(words[1]), Integer.parseInt(words[2]),
                            Long.parseLong(words[3]), Mode.STREAM);
                    case "ibv" -> answer = startIbvServer(Integer.parseInt(words[1]), Integer.parseInt(words[2]));
                    default -> throw new IllegalArgumentException("no such command: " + command);
                }
                out.println(answer);
                out.flush();
                if (ibvServer != null) {
                    awaitIbvServer();
                }
            }
            driver.turn(this::onCompletion);
        }
    }

    /** @return {@code ready} once the server half is started, or {@code unavailable} and why */
    private String startIbvServer(int size, int iterations) {
        if (ibvRcPingpong.isEmpty()) {
            return "unavailable ibv_rc_pingpong is not installed on the peer (Debian: ibverbs-utils)";
        }
        try {
            Optional<RdmaGid> gid = RdmaGid.of(host);
            if (gid.isEmpty()) {
                return "unavailable no RDMA device of the peer has " + host.getHostAddress();
            }
            ibvRun = new ToolRun(IBV_SERVER_LIMIT);
            ibvServer = ibvRcPingpong.get().serve(gid.get(), size, iterations, ibvRun);
            return "ready";
        } catch (IOException e) {
            return "unavailable " + e.getMessage();
        }
    }

    /**
     * Waits for the server half to serve its client and exit, without progressing the endpoint, which has nothing
     * in flight meanwhile and would take CPU from the tool on a small host; kills it at its limit.
     */
    private void awaitIbvServer() {
        try (ToolRun run = ibvRun) {
            ibvServer.process().waitFor(run.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ibvRun = null;
            ibvServer = null;
        }
    }

    /**
     * Cancels what the last set-up left posted and lets its sends end, then posts {@code window} receives of
     * {@code size} bytes.
     */
    private void post(int size, int window, long count, Mode next) {
        EfaEndpoint endpoint = driver.endpoint();
        mode = Mode.IDLE;
        for (long context : posted) {
            endpoint.cancel(context);
        }
        driver.turnUntil(() -> posted.isEmpty() && sending == 0, this::onCompletion, CANCEL_LIMIT,
                "end of the last set-up's operations (receives posted " + posted + ", sends " + sending + ")");
        mode = next;
        expected = count;
        received = 0;
        buffers = new ByteBuffer[(int) Math.min(window, count)];
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = ByteBuffer.allocate(size);
            receive(i);
        }
        postedTotal = buffers.length;
    }

    private void receive(int slot) {
        if (!driver.endpoint().recv(EfaEndpoint.ADDR_UNSPEC, buffers[slot], slot)) {
            throw new IllegalStateException("the endpoint's receive table is full");
        }
        posted.add((long) slot);
    }

    private void onCompletion(CompletionEntry entry) {
        if (entry.error() == EfaErrorCode.CANCELED) {
            posted.remove(entry.context());
            return;
        }
        if (!entry.ok()) {
            throw new IllegalStateException("a " + entry.kind() + " failed: " + entry.error());
        }
        switch (entry.kind()) {
            case RECV -> {
                int slot = (int) entry.context();
                posted.remove(entry.context());
                received++;
                if (mode == Mode.PINGPONG) {
                    send(entry.source(), buffers[slot], SEND | slot);
                } else if (received == expected) {
                    verdict.clear().put(0, (byte) (buffers[slot].equals(EfaDeviceBench.streamData(buffers[slot]
                            .capacity())) ? 1 : 0));
                    send(entry.source(), verdict, SEND | Integer.MAX_VALUE);
                } else if (postedTotal < expected) {
                    receive(slot);
                    postedTotal++;
                }
            }
            case SEND -> {
                sending--;
                // A ping-pong buffer is posted again once its echo has left.
                if (mode == Mode.PINGPONG) {
                    receive((int) (entry.context() & ~SEND));
                }
            }
            default -> throw new IllegalStateException("unexpected completion " + entry);
        }
    }

    /** Sends; at most two sends are ever in flight, far within the endpoint's TX table. */
    private void send(long destination, ByteBuffer data, long context) {
        if (!driver.endpoint().send(destination, data, context)) {
            throw new IllegalStateException("the endpoint's send table is full");
        }
        sending++;
    }
}
