package org.rpcrdma4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The Java layouts of {@link Structs} against the sizes and offsets of the rdma-core 44 headers. */
class StructLayoutTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;
    private static final Map<String, GroupLayout> JAVA = Structs.ALL.stream()
            .collect(Collectors.toMap(l -> l.name().orElseThrow(), l -> l));

    @TestFactory
    Stream<DynamicTest> everySizeInTheHeadersIsTheJavaLayoutsSize() {
        return C.sizes.entrySet().stream().map(e -> DynamicTest.dynamicTest("sizeof " + e.getKey(), () -> {
            assertThat(JAVA).as("a Java layout for struct %s", e.getKey()).containsKey(e.getKey());
            assertThat(JAVA.get(e.getKey()).byteSize()).isEqualTo(e.getValue());
        }));
    }

    @TestFactory
    Stream<DynamicTest> everyOffsetInTheHeadersIsTheJavaLayoutsOffset() {
        return C.offsets.entrySet().stream().map(e -> DynamicTest.dynamicTest("offsetof " + e.getKey(), () -> {
            String struct = e.getKey().substring(0, e.getKey().indexOf('.'));
            String path = e.getKey().substring(struct.length() + 1);
            assertThat(JAVA).as("a Java layout for struct %s", struct).containsKey(struct);
            assertThat(Structs.offset(JAVA.get(struct), path)).isEqualTo(e.getValue());
        }));
    }

    @Test
    void everyJavaLayoutAndNamedFieldIsCheckedAgainstTheHeaders() {
        List<String> unchecked = new ArrayList<>();
        for (GroupLayout layout : Structs.ALL) {
            String struct = layout.name().orElseThrow();
            if (!C.sizes.containsKey(struct)) {
                unchecked.add("sizeof " + struct);
            }
            for (String field : namedLeaves(layout, "")) {
                if (!C.offsets.containsKey(struct + "." + field)) {
                    unchecked.add(struct + "." + field);
                }
            }
        }
        assertThat(unchecked).as("Java fields without a value from layouts.c").isEmpty();
    }

    @Test
    void aPathThatNamesNoFieldIsRefused() {
        assertThatThrownBy(() -> Structs.offset(Structs.IBV_WC, "no_such_field"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no_such_field");
        assertThatThrownBy(() -> Structs.offset(Structs.IBV_WC, "status.deeper"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no members");
    }

    @Test
    void theHeadersWereTakenForEveryStructTheBindingsUse() {
        assertThat(C.sizes).hasSize(Structs.ALL.size());
        assertThat(C.offsets.size()).isGreaterThan(150);
    }

    private static boolean isCheckedOnItsOwn(MemoryLayout member) {
        return JAVA.values().stream().anyMatch(l -> l.equals(member.withName(l.name().orElseThrow())));
    }

    /**
     * Paths of the named members to check: the non-group ones, and the embedded structs that are
     * checked on their own (ibv_context.ops); looking through unnamed groups as C does.
     */
    private static List<String> namedLeaves(GroupLayout group, String prefix) {
        List<String> paths = new ArrayList<>();
        for (MemoryLayout member : group.memberLayouts()) {
            String name = member.name().orElse(null);
            if (name != null && isCheckedOnItsOwn(member)) {
                paths.add(prefix + name);
            } else if (member instanceof GroupLayout inner) {
                paths.addAll(namedLeaves(inner, name == null ? prefix : prefix + name + "."));
            } else if (name != null) {
                paths.add(prefix + name);
            }
        }
        return paths;
    }
}
