package org.rpcrdma4j.fabric.conformance;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.rpcrdma4j.fabric.Fabric;

/** What a test of the fabric seam does to a fabric directly: run on its progress thread, give it receives. */
public final class FabricCalls {

    private FabricCalls() {
    }

    /**
     * @param fabric the fabric
     * @param action what to run on its progress thread, where the seam's methods are called
     * @param <T>    its result's type
     * @return what {@code action} returned; what it threw is thrown here, wrapped
     * @throws Exception if it threw, or the progress thread did not run it within the hang guard
     */
    public static <T> T on(Fabric fabric, Supplier<T> action) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        fabric.execute(() -> {
            try {
                result.complete(action.get());
            } catch (RuntimeException | AssertionError e) {
                result.completeExceptionally(e);
            }
        });
        return result.get(HangGuard.SECONDS, TimeUnit.SECONDS);
    }

    /**
     * @param count how many
     * @param size  each one's size
     * @return new receive buffers to post
     */
    public static List<ByteBuffer> receives(int count, int size) {
        List<ByteBuffer> buffers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            buffers.add(ByteBuffer.allocate(size));
        }
        return buffers;
    }
}
