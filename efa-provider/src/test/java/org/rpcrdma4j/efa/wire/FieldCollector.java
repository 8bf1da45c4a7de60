package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects what {@link PacketFields#visit} reports into maps and lists in the shape of the golden
 * {@code fields}: integers as {@link Long}, bytes as lowercase hex.
 */
final class FieldCollector implements FieldVisitor {

    private final Map<String, Object> root = new LinkedHashMap<>();
    private final Deque<Object> open = new ArrayDeque<>();

    FieldCollector() {
        open.push(root);
    }

    static Map<String, Object> collect(ByteBuffer buffer, DecodedPacket packet) {
        FieldCollector collector = new FieldCollector();
        PacketFields.visit(buffer, packet, collector);
        return collector.root;
    }

    /**
     * Converts golden {@code fields} to the collector's shape: {@code 0x} strings become unsigned longs,
     * other strings (raw bytes) stay hex. The base header fields and the payload are dropped.
     */
    @SuppressWarnings("unchecked")
    static Object normalize(Object golden) {
        if (golden instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) map).forEach((key, value) -> {
                if (!List.of("type", "version", "flags", "payload").contains(key)) {
                    out.put(key, normalize(value));
                }
            });
            return out;
        }
        if (golden instanceof List<?> list) {
            return list.stream().map(FieldCollector::normalize).toList();
        }
        String s = (String) golden;
        return s.startsWith("0x") ? GoldenPacket.integer(s) : s;
    }

    @Override
    public void onInteger(String name, long value) {
        add(name, value);
    }

    @Override
    public void onBytes(String name, ByteBuffer buffer, int offset, int length) {
        byte[] bytes = new byte[length];
        buffer.get(offset, bytes);
        add(name, HexFormat.of().formatHex(bytes));
    }

    @Override
    public void onObjectStart(String name) {
        Map<String, Object> object = new LinkedHashMap<>();
        add(name, object);
        open.push(object);
    }

    @Override
    public void onObjectEnd() {
        open.pop();
    }

    @Override
    public void onArrayStart(String name) {
        List<Object> array = new ArrayList<>();
        add(name, array);
        open.push(array);
    }

    @Override
    public void onArrayEnd() {
        open.pop();
    }

    @SuppressWarnings("unchecked")
    private void add(String name, Object value) {
        Object container = open.peek();
        if (container instanceof Map<?, ?> map) {
            if (((Map<String, Object>) map).put(name, value) != null) {
                throw new AssertionError("field " + name + " reported twice");
            }
        } else {
            ((List<Object>) container).add(value);
        }
    }
}
