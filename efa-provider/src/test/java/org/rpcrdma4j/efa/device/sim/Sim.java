package org.rpcrdma4j.efa.device.sim;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;

/** Small helpers shared by the simulated-device tests. */
final class Sim {

    private Sim() {
    }

    /** @return a link-local style GID ending in {@code n} */
    static Gid gid(int n) {
        return new Gid(0xfe80_0000_0000_0000L, n);
    }

    static ByteBuffer packet(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    static ByteBuffer packet(int length) {
        return ByteBuffer.allocate(length);
    }

    static String text(ByteBuffer buffer, int length) {
        final byte[] bytes = new byte[length];
        buffer.get(buffer.position(), bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    /** @return every completion the device has, oldest first */
    static List<Completion> drain(Device device) {
        final List<Completion> completions = new ArrayList<>();
        while (device.pollCompletions(completions::add, 16) > 0) {
            // keep polling
        }
        return completions;
    }
}
