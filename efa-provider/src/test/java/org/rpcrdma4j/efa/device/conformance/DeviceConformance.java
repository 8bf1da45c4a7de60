package org.rpcrdma4j.efa.device.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.Device;

/**
 * What the kit's suites share: a new {@link DeviceFactory} for every test, closed after it; waiting
 * for completions under the {@link HangGuard}; and memory with guard bytes around it, so that a
 * device writing outside what it was given is caught. Every buffer is direct, as a device that
 * registers native memory needs.
 */
public abstract class DeviceConformance {

    /** Bytes of guard on each side of the memory a test hands a device. */
    protected static final int GUARD = 64;
    /** What guard bytes hold. */
    protected static final byte GUARD_BYTE = (byte) 0xA5;

    private DeviceFactory factory;

    /** @return a new network of the device under test; the kit closes it after each test */
    protected abstract DeviceFactory devices();

    @BeforeEach
    final void openFactory() {
        factory = devices();
    }

    @AfterEach
    final void closeFactory() {
        factory.close();
    }

    /** @return the factory of the running test */
    protected final DeviceFactory factory() {
        return factory;
    }

    /** @return a new device of the factory */
    protected final Device newDevice() {
        return factory.newDevice();
    }

    /**
     * Skips the running test, with the reason, unless the factory offers {@code option}.
     *
     * @param option a further interface a factory may implement
     * @param <T> its type
     * @return the factory as that interface
     */
    protected final <T> T option(Class<T> option) {
        assumeTrue(option.isInstance(factory), () -> factory.getClass().getName() + " does not implement "
                + option.getSimpleName() + ": the device under test cannot be checked for this");
        return option.cast(factory);
    }

    /**
     * Skips the running test, with the reason, unless every device has {@code capability}.
     *
     * @param capability what the test needs
     * @param devices the devices it needs it of
     */
    protected static void assumeCapability(Capability capability, Device... devices) {
        for (Device device : devices) {
            assumeTrue(device.attributes().has(capability),
                    () -> "the device under test has no " + capability + " (" + device.attributes() + ")");
        }
    }

    /**
     * Polls {@code device}, letting the network move between polls, until exactly {@code count}
     * completions have been handed over; never polls more.
     *
     * @param device the device to poll
     * @param count how many completions to wait for
     * @return them, oldest first
     */
    protected final List<Completion> await(Device device, int count) {
        final List<Completion> got = new ArrayList<>(count);
        final HangGuard guard = new HangGuard();
        while (got.size() < count) {
            if (device.pollCompletions(got::add, count - got.size()) == 0) {
                guard.check(() -> count + " completions on " + device + " (got " + got + ")");
                factory.progress();
            }
        }
        return got;
    }

    /**
     * @param device the device to poll
     * @return its next completion, waited for
     */
    protected final Completion awaitOne(Device device) {
        return await(device, 1).get(0);
    }

    /**
     * Lets the network move once and asserts that {@code device} has no completion to hand over.
     *
     * @param device the device
     */
    protected final void assertNoCompletion(Device device) {
        factory.progress();
        final List<Completion> got = new ArrayList<>();
        device.pollCompletions(got::add, 16);
        assertThat(got).as("completions of %s", device).isEmpty();
    }

    /**
     * @param tag distinguishes one pattern from another
     * @param length how many bytes
     * @return a direct buffer of {@code length} bytes of a pattern no other tag gives
     */
    protected static ByteBuffer pattern(int tag, int length) {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(length);
        for (int i = 0; i < length; i++) {
            buffer.put(i, patternByte(tag, i));
        }
        return buffer;
    }

    /**
     * @param tag the pattern's tag
     * @param index the byte's index
     * @return the byte at {@code index} of {@link #pattern(int, int)}
     */
    protected static byte patternByte(int tag, int index) {
        return (byte) (tag * 131 + index * 7 + (index >>> 8));
    }

    /**
     * @param buffer a buffer
     * @param at where to start, absolute
     * @param length how many bytes
     * @return a copy of those bytes; the buffer's position is untouched
     */
    protected static byte[] bytes(ByteBuffer buffer, int at, int length) {
        final byte[] bytes = new byte[length];
        buffer.get(at, bytes);
        return bytes;
    }

    /**
     * @param tag the pattern's tag
     * @param length how many bytes
     * @return the first {@code length} bytes of the pattern
     */
    protected static byte[] patternBytes(int tag, int length) {
        return bytes(pattern(tag, length), 0, length);
    }

    /**
     * Memory of {@code length} bytes, filled with a pattern, between {@link #GUARD} guard bytes on
     * each side, all in one direct buffer.
     */
    protected static final class Guarded {

        private final ByteBuffer whole;
        private final int length;

        /**
         * @param tag the pattern's tag
         * @param length how many bytes a device is given
         */
        public Guarded(int tag, int length) {
            this.length = length;
            whole = ByteBuffer.allocateDirect(length + 2 * GUARD);
            for (int i = 0; i < whole.capacity(); i++) {
                whole.put(i, GUARD_BYTE);
            }
            for (int i = 0; i < length; i++) {
                whole.put(GUARD + i, patternByte(tag, i));
            }
        }

        /** @return a view of the whole buffer whose position and limit bracket the memory given */
        public ByteBuffer view() {
            return whole.duplicate().position(GUARD).limit(GUARD + length);
        }

        /**
         * @param offset from the first byte given
         * @param count how many
         * @return a copy of those bytes
         */
        public byte[] bytes(int offset, int count) {
            return DeviceConformance.bytes(whole, GUARD + offset, count);
        }

        /** @return a copy of every byte given */
        public byte[] bytes() {
            return bytes(0, length);
        }

        /** Asserts that nothing outside the memory given has changed. */
        public void assertGuardsIntact() {
            for (int i = 0; i < GUARD; i++) {
                assertThat(whole.get(i)).as("guard byte %d before the memory", GUARD - i).isEqualTo(GUARD_BYTE);
                assertThat(whole.get(GUARD + length + i)).as("guard byte %d after the memory", i)
                        .isEqualTo(GUARD_BYTE);
            }
        }
    }
}
