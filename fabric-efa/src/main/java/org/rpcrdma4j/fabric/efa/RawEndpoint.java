package org.rpcrdma4j.fabric.efa;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointStatistics;

/**
 * An EFA endpoint a test drives by hand on a {@link SimulatedEfa} network ({@link SimulatedEfa#newEndpoint}),
 * on a simulated device of its own: for protocol tests that send any message on any tag to the network's
 * fabrics (reach one with {@link EfaFabric#endpointAddressOf} and {@link EfaEndpoint#insert}) or to other
 * raw endpoints, and see what comes back. Its completions wait in the endpoint until the test polls them,
 * each holding its operation's TX or RX entry until then, so a test that does not poll meets EAGAIN.
 *
 * <h2>Threads</h2>
 * An {@link EfaEndpoint} is not thread-safe, and this one belongs to the network's progress thread, which
 * progresses it in step with the simulation. A test reaches it only through {@link #call}, which runs its
 * work on that thread and waits for the result; the work must not keep the endpoint or block.
 * {@link #address()} and {@link #statistics()} may be called from any thread.
 *
 * <h2>Lifecycle</h2>
 * {@link #close()} closes the endpoint ({@link EfaEndpoint#close()}: what is in progress ends with
 * {@code CANCELED}, all it holds is released) and its device, says nothing to its peers, and the network
 * forgets it at once; what peers send to it from then on fails. Its last completions can still be polled
 * through {@link #call}.
 */
public final class RawEndpoint implements AutoCloseable {

    private final EfaEndpoint endpoint;
    private final EndpointAddress address;
    private final EfaProgressLoop loop;
    private final Consumer<RawEndpoint> onClosed;

    RawEndpoint(EfaEndpoint endpoint, EfaProgressLoop loop, Consumer<RawEndpoint> onClosed) {
        this.endpoint = endpoint;
        this.address = endpoint.address();
        this.loop = loop;
        this.onClosed = onClosed;
    }

    /** @return the endpoint's raw address, for peers to insert; any thread */
    public EndpointAddress address() {
        return address;
    }

    /**
     * Runs work on the endpoint, on the network's progress thread (at once when called there, from a
     * fabric's listener for instance), and waits for it.
     *
     * @param work what to do with the endpoint: insert peers, post sends and receives, poll completions
     * @param <T>  its result's type
     * @return what the work returned
     * @throws IllegalStateException if the work threw (the cause), the network is closed or its progress
     *     thread did not answer within 10 s
     */
    public <T> T call(Function<EfaEndpoint, T> work) {
        Objects.requireNonNull(work, "work");
        return loop.call(() -> work.apply(endpoint));
    }

    /** @return the endpoint's counters and gauges ({@link EfaEndpoint#statistics()}); any thread */
    public EndpointStatistics statistics() {
        return endpoint.statistics();
    }

    /** Closes the endpoint and its device; the network forgets it. Closing again does nothing. */
    @Override
    public void close() {
        loop.call(() -> {
            onClosed.accept(this);
            endpoint.close();
            return null;
        });
    }

    /** Loop thread only, until closed. */
    void progress(long nowNs) {
        endpoint.progress(nowNs);
    }

    /** @return whether its endpoint is idle ({@link EfaEndpoint#idle}); loop thread only */
    boolean idle() {
        return endpoint.idle();
    }
}
