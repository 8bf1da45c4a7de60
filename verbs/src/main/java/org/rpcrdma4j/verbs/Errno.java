package org.rpcrdma4j.verbs;

import java.lang.foreign.MemorySegment;

/** The names and meanings of errno values, from the C library. */
public final class Errno {
    private Errno() {
    }

    /**
     * @param errno an errno value
     * @return its symbolic name, e.g. {@code "ENOENT"}, or {@code "errno N"} if the C library has no name for it
     */
    public static String name(int errno) {
        if (LibC.STRERRORNAME != null) {
            try {
                String name = Native.string((MemorySegment) LibC.STRERRORNAME.invokeExact(errno), 64);
                if (name != null) {
                    return name;
                }
            } catch (Throwable t) {
                throw Native.unexpected(t);
            }
        }
        return "errno " + errno;
    }

    /**
     * @param errno an errno value
     * @return its meaning, e.g. {@code "No such file or directory"}
     */
    public static String description(int errno) {
        try {
            String text = Native.string((MemorySegment) LibC.STRERROR.invokeExact(errno), 256);
            return text == null ? "unknown error " + errno : text;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
