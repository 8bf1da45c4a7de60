package org.rpcrdma4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The numbers and texts this module hard-codes against those of the rdma-core 44, glibc and Linux headers. */
class ConstantsTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;
    private final Set<String> claimed = new HashSet<>();

    private void expect(String cName, int javaValue) {
        assertThat(javaValue).as(cName).isEqualTo(C.constant(cName));
        claimed.add(cName);
    }

    @Test
    void everyConstantIsTheHeadersAndEveryHeaderConstantIsUsed() throws IllegalAccessException {
        for (Field field : Constants.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == int.class) {
                expect(field.getName(), field.getInt(null));
            }
        }
        for (WcStatus s : WcStatus.values()) {
            expect("IBV_WC_" + s.name(), s.value());
        }
        for (WcOpcode o : WcOpcode.values()) {
            if (o != WcOpcode.UNKNOWN) {
                expect("IBV_WC_" + o.name(), o.value());
            }
        }
        for (CmEventType t : CmEventType.values()) {
            if (t != CmEventType.UNKNOWN) {
                expect("RDMA_CM_EVENT_" + t.name(), t.value());
            }
        }
        for (PortState s : PortState.values()) {
            if (s != PortState.UNKNOWN) {
                expect("IBV_PORT_" + s.name(), s.value());
            }
        }
        for (LinkLayer l : LinkLayer.values()) {
            if (l != LinkLayer.UNKNOWN) {
                expect("IBV_LINK_LAYER_" + l.name(), l.value());
            }
        }
        for (AsyncEventType t : AsyncEventType.values()) {
            if (t != AsyncEventType.UNKNOWN) {
                expect("IBV_EVENT_" + t.name(), t.value());
            }
        }
        for (Access a : Access.values()) {
            expect("IBV_ACCESS_" + a.name(), a.value());
        }
        assertThat(C.constants.keySet()).as("constants taken but used nowhere").isSubsetOf(claimed);
    }

    @Test
    void statusTextsAreWhatIbvWcStatusStrSays() {
        for (WcStatus s : WcStatus.values()) {
            assertThat(s.description()).isEqualTo(C.strings.get("ibv_wc_status_str " + s.value()));
            assertThat(WcStatus.of(s.value())).isSameAs(s);
        }
        assertThat(C.strings.keySet().stream().filter(k -> k.startsWith("ibv_wc_status_str"))).hasSize(WcStatus.values().length);
    }

    @Test
    void eventNamesAreWhatRdmaEventStrSays() {
        for (CmEventType t : CmEventType.values()) {
            if (t != CmEventType.UNKNOWN) {
                assertThat(t.description()).isEqualTo(C.strings.get("rdma_event_str " + t.value()));
                assertThat(CmEventType.of(t.value())).isSameAs(t);
            }
        }
    }

    @Test
    void asyncEventTextsAreWhatIbvEventTypeStrSays() {
        for (AsyncEventType t : AsyncEventType.values()) {
            if (t != AsyncEventType.UNKNOWN) {
                assertThat(t.description()).isEqualTo(C.strings.get("ibv_event_type_str " + t.value()));
                assertThat(AsyncEventType.of(t.value())).isSameAs(t);
            }
        }
        assertThat(AsyncEventType.QP_FATAL.concernsQueuePair()).isTrue();
        assertThat(AsyncEventType.PORT_ERR.concernsPort()).isTrue();
        assertThat(AsyncEventType.DEVICE_FATAL.concernsQueuePair() || AsyncEventType.DEVICE_FATAL.concernsPort())
                .isFalse();
    }

    @Test
    void unknownNumbersMapToTheirCatchAll() {
        assertThat(WcStatus.of(24)).isSameAs(WcStatus.GENERAL_ERR);
        assertThat(WcStatus.of(-1)).isSameAs(WcStatus.GENERAL_ERR);
        assertThat(WcOpcode.of(8)).isSameAs(WcOpcode.UNKNOWN);
        assertThat(CmEventType.of(16)).isSameAs(CmEventType.UNKNOWN);
        assertThat(PortState.of(6)).isSameAs(PortState.UNKNOWN);
        assertThat(LinkLayer.of(3)).isSameAs(LinkLayer.UNKNOWN);
        assertThat(AsyncEventType.of(20)).isSameAs(AsyncEventType.UNKNOWN);
    }
}
