package org.rpcrdma4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Loads the real libibverbs.so.1, librdmacm.so.1 and libefa.so.1 and makes the calls that need no RDMA
 * device.
 * Tagged {@code native}: the default build leaves it out, {@code -Pverbs-native} runs it, and then
 * it fails, not skips, where the libraries are missing. Holds on hosts with and without devices.
 */
@Tag("native")
class NativeLibrariesTest {
    private static final Path INFINIBAND = Path.of("/sys/class/infiniband");
    private static final Path RDMA_CM = Path.of("/dev/infiniband/rdma_cm");

    @Test
    void bothLibrariesLoadWithEveryFunctionBound() throws LibraryUnavailableException {
        Verbs.load();
    }

    /** libefa.so.1 ships in ibverbs-providers on Debian; its direct verbs resolve with no EFA device. */
    @Test
    void libefaLoadsWithEveryDirectVerbBound() throws LibraryUnavailableException {
        EfaDirectVerbs.load();
    }

    @Test
    void deviceListIsWhatSysfsShows() throws VerbsException, IOException {
        List<String> sysfs = List.of();
        if (Files.isDirectory(INFINIBAND)) {
            try (Stream<Path> entries = Files.list(INFINIBAND)) {
                sysfs = entries.map(p -> p.getFileName().toString()).toList();
            }
        }
        assertThat(Verbs.deviceNames()).containsExactlyInAnyOrderElementsOf(sysfs);
    }

    @Test
    void anEventChannelOpensOnlyWhereTheKernelHasRdmaCm() throws VerbsException {
        if (Files.exists(RDMA_CM)) {
            CmEventChannel.create().close();
            return;
        }
        assertThatThrownBy(CmEventChannel::create).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.call()).isEqualTo("rdma_create_event_channel");
            assertThat(e.errnoName()).isIn("ENODEV", "ENOENT");
        });
    }

    @Test
    void openingAnUnknownDeviceFailsWithItsCall() {
        assertThatThrownBy(() -> VerbsContext.open("no-such-device0")).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.call()).startsWith("ibv_"));
    }
}
