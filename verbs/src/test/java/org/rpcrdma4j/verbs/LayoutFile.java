package org.rpcrdma4j.verbs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values src/test/layouts/layouts.c printed from the rdma-core 44 headers and libraries
 * (take-layouts.sh): struct sizes, field offsets, constants and status strings. The file is a test
 * resource, so the test jar carries it to the RC fabric's tests.
 */
final class LayoutFile {
    static final String RESOURCE = "rdma-core-44.x86_64.txt";
    static final LayoutFile RDMA_CORE_44 = read(RESOURCE);

    final Map<String, Long> sizes = new LinkedHashMap<>();
    final Map<String, Long> offsets = new LinkedHashMap<>();
    final Map<String, Long> constants = new LinkedHashMap<>();
    /** "function value" to text, e.g. "ibv_wc_status_str 5". */
    final Map<String, String> strings = new LinkedHashMap<>();

    private LayoutFile() {
    }

    static LayoutFile read(String resource) {
        LayoutFile file = new LayoutFile();
        try (InputStream in = LayoutFile.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the test class path");
            }
            List<String> lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList();
            for (String line : lines) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split(" ", 4);
                switch (f[0]) {
                    case "sizeof" -> file.sizes.put(f[1], Long.parseLong(f[2]));
                    case "offsetof" -> file.offsets.put(f[1], Long.parseLong(f[2]));
                    case "const" -> file.constants.put(f[1], Long.parseLong(f[2]));
                    case "str" -> file.strings.put(f[1] + " " + f[2], f[3]);
                    default -> throw new IllegalStateException("unknown line in " + resource + ": " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    long size(String struct) {
        Long size = sizes.get(struct);
        if (size == null) {
            throw new IllegalArgumentException("no sizeof " + struct + " in " + RESOURCE);
        }
        return size;
    }

    long offset(String path) {
        Long offset = offsets.get(path);
        if (offset == null) {
            throw new IllegalArgumentException("no offsetof " + path + " in " + RESOURCE);
        }
        return offset;
    }

    int constant(String name) {
        Long value = constants.get(name);
        if (value == null) {
            throw new IllegalArgumentException("no const " + name + " in " + RESOURCE);
        }
        return Math.toIntExact(value);
    }
}
