package org.rpcrdma4j.efa;

import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Picks a seed per test, from {@code -Drpcrdma4j.seed} when given and at random otherwise, and
 * prints it when the test fails so that the run can be replayed.
 */
public final class SeedWatcher implements BeforeEachCallback, TestWatcher {

    static final String PROPERTY = "rpcrdma4j.seed";

    private long seed;

    @Override
    public void beforeEach(ExtensionContext context) {
        final String fixed = System.getProperty(PROPERTY);
        seed = fixed != null ? Long.parseLong(fixed) : ThreadLocalRandom.current().nextLong();
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        System.out.println(context.getDisplayName() + " failed with seed " + seed + "; replay with -D"
                + PROPERTY + "=" + seed);
    }

    /** @return the seed of the running test */
    public long seed() {
        return seed;
    }
}
