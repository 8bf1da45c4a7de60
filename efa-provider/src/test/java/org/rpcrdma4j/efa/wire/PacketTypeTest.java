package org.rpcrdma4j.efa.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The constants tables agree with the provider's, as recorded in {@code constants.json}. */
class PacketTypeTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> constants() throws IOException {
        try (InputStream in = PacketTypeTest.class.getResourceAsStream("/vectors/libfabric/constants.json")) {
            return (Map<String, Object>) TestJson.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static int value(Map<String, Object> table, String name) {
        return ((Number) ((Map<?, ?>) table.get(name)).get("value")).intValue();
    }

    @Test
    @SuppressWarnings("unchecked")
    void typeIdsAndReqHeaderSizesMatchTheProvider() throws IOException {
        List<Map<String, Object>> types = (List<Map<String, Object>>) constants().get("packet_types");
        int checked = 0;
        for (Map<String, Object> provider : types) {
            PacketType type = PacketType.fromId(((Number) provider.get("id")).intValue());
            if (type == null) {
                // Never on the wire: RMA_CONTEXT (internal) and READ_RTR (never built).
                assertThat(provider.get("name")).isIn("RMA_CONTEXT", "READ_RTR");
                continue;
            }
            assertThat(type.name()).isEqualTo(provider.get("name"));
            assertThat(type.isReq()).isEqualTo("REQ".equals(provider.get("category")));
            if (type.isReq()) {
                assertThat(type.mandatoryHeaderLength()).as(type.name())
                        .isEqualTo(((Number) provider.get("req_base_hdr_size")).intValue());
                assertThat(type.hasRmaIov()).as(type.name()).isEqualTo(provider.get("rma_iov_in_mandatory_hdr"));
            }
            checked++;
        }
        assertThat(checked).isEqualTo(PacketType.values().length);
    }

    @Test
    @SuppressWarnings("unchecked")
    void extraFeatureBitsMatchTheProvider() throws IOException {
        Map<String, Object> bits = (Map<String, Object>) constants().get("extra_feature_request_bit_ids");
        assertThat(bits).hasSize(ExtraFeature.values().length);
        for (ExtraFeature feature : ExtraFeature.values()) {
            String name = bits.keySet().stream().filter(key -> key.endsWith("_" + feature.name())).findFirst()
                    .orElseThrow();
            assertThat(feature.bitId()).as(name).isEqualTo(value(bits, name));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void flagsMatchTheProvider() throws IOException {
        Map<String, Object> constants = constants();
        Map<String, Object> req = (Map<String, Object>) constants.get("req_flags");
        Map<String, Object> handshake = (Map<String, Object>) constants.get("handshake_flags");
        assertThat(PacketFlags.CONNID_HDR_FLAG).isEqualTo(value(req, "EFA_RDM_PKT_CONNID_HDR"));
        assertThat(PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG).isEqualTo(value(req, "EFA_RDM_REQ_OPT_RAW_ADDR_HDR"));
        assertThat(PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG).isEqualTo(value(req, "EFA_RDM_REQ_OPT_CQ_DATA_HDR"));
        assertThat(PacketFlags.REQ_MSG_FLAG).isEqualTo(value(req, "EFA_RDM_REQ_MSG"));
        assertThat(PacketFlags.REQ_TAGGED_FLAG).isEqualTo(value(req, "EFA_RDM_REQ_TAGGED"));
        assertThat(PacketFlags.REQ_RMA_FLAG).isEqualTo(value(req, "EFA_RDM_REQ_RMA"));
        assertThat(PacketFlags.REQ_ATOMIC_FLAG).isEqualTo(value(req, "EFA_RDM_REQ_ATOMIC"));
        assertThat(PacketFlags.REQ_READ_NACK_FLAG).isEqualTo(value(req, "EFA_RDM_REQ_READ_NACK"));
        assertThat(PacketFlags.CTS_READ_REQ_FLAG)
                .isEqualTo(value((Map<String, Object>) constants.get("cts_flags"), "EFA_RDM_CTS_READ_REQ"));
        assertThat(PacketFlags.HANDSHAKE_HOST_ID_HDR_FLAG).isEqualTo(value(handshake, "EFA_RDM_HANDSHAKE_HOST_ID_HDR"));
        assertThat(PacketFlags.HANDSHAKE_DEVICE_VERSION_HDR_FLAG)
                .isEqualTo(value(handshake, "EFA_RDM_HANDSHAKE_DEVICE_VERSION_HDR"));
        assertThat(PacketFlags.HANDSHAKE_USER_RECV_QP_HDR_FLAG)
                .isEqualTo(value(handshake, "EFA_RDM_HANDSHAKE_USER_RECV_QP_HDR"));
        assertThat(PacketFlags.HANDSHAKE_HMEM_P2P_HDR_FLAG).isEqualTo(value(handshake, "EFA_RDM_HANDSHAKE_HMEM_P2P_HDR"));
    }

    @Test
    void unknownIdsHaveNoType() {
        assertThat(PacketType.fromId(0)).isNull();
        assertThat(PacketType.fromId(6)).isNull();
        assertThat(PacketType.fromId(131)).isNull();
        assertThat(PacketType.fromId(132)).isNull();
        assertThat(PacketType.fromId(148)).isNull();
        assertThat(PacketType.fromId(255)).isNull();
        assertThat(PacketType.fromId(147)).isEqualTo(PacketType.RUNTREAD_RTW);
    }
}
