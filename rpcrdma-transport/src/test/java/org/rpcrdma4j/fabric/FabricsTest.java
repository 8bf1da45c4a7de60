package org.rpcrdma4j.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fabrics are found by name among the providers a class loader declares (here one that declares the
 * two below, apart from the tests' own class path), going on past one that fails to load and naming it.
 */
class FabricsTest {

    @TempDir
    static Path root;
    private static ClassLoader declaring;

    @BeforeAll
    static void declareTheProviders() throws Exception {
        Path services = Files.createDirectories(root.resolve("META-INF/services"));
        Files.writeString(services.resolve(FabricProvider.class.getName()),
                Loopback.class.getName() + "\n" + Broken.class.getName() + "\n");
        declaring = new URLClassLoader(new URL[] {root.toUri().toURL()}, FabricsTest.class.getClassLoader());
    }

    /** A provider that loads. */
    public static final class Loopback implements FabricProvider {
        @Override
        public String name() {
            return "loopback";
        }

        @Override
        public String description() {
            return "a provider that loads";
        }

        @Override
        public boolean needsListenAddress() {
            return false;
        }

        @Override
        public Fabric open(FabricOptions options) {
            throw new UnsupportedOperationException("not opened by these tests");
        }

        @Override
        public FabricAddress peer(String text) {
            throw new IllegalArgumentException(text);
        }
    }

    /** A provider that fails to load, as one built for a newer Java or missing a library does. */
    public static final class Broken implements FabricProvider {
        public Broken() {
            throw new IllegalStateException("no device library here");
        }

        @Override
        public String name() {
            return "broken";
        }

        @Override
        public String description() {
            return "never loads";
        }

        @Override
        public boolean needsListenAddress() {
            return true;
        }

        @Override
        public Fabric open(FabricOptions options) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FabricAddress peer(String text) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void aProviderThatFailsToLoadIsReportedAndTheOthersServe() throws Exception {
        Fabrics.Found found = Fabrics.found(declaring);

        assertThat(found.providers()).extracting(FabricProvider::name).containsExactly("loopback");
        assertThat(found.failures()).singleElement().asString().contains(Broken.class.getName());
        assertThat(Fabrics.named("loopback", declaring)).isInstanceOf(Loopback.class);
    }

    @Test
    void anAbsentNameIsAnErrorThatNamesWhatIsHereAndWhatFailed() {
        assertThatThrownBy(() -> Fabrics.named("verbs", declaring)).isInstanceOf(FabricNotFoundException.class)
                .hasMessageStartingWith("no fabric named verbs is here; found: loopback; could not load ")
                .hasMessageContaining(Broken.class.getName());
    }

    @Test
    void optionsKeepWhatTheyAreNotToldToChange() {
        FabricOptions options = FabricOptions.DEFAULT.listening("10.0.0.1").withSeed(7)
                .withDeviceProfile(DeviceProfile.READ);

        assertThat(options).isEqualTo(new FabricOptions("10.0.0.1", 7, DeviceProfile.READ));
        assertThat(FabricOptions.DEFAULT).isEqualTo(new FabricOptions(null, 1, DeviceProfile.READ_WRITE));
    }

    @Test
    void deviceProfilesAreNamedAsUsersWriteThem() {
        assertThat(DeviceProfile.named("none")).isEqualTo(DeviceProfile.NONE);
        assertThat(DeviceProfile.named("read")).isEqualTo(DeviceProfile.READ);
        assertThat(DeviceProfile.named("read-write")).isEqualTo(DeviceProfile.READ_WRITE);
        assertThatThrownBy(() -> DeviceProfile.named("READ_WRITE")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no device profile READ_WRITE; there are none, read, read-write");
    }

    @Test
    void aFabricTakesOnlyADeviceWithReadAndWriteUnlessItSaysOtherwise() {
        assertThat(new Loopback().deviceProfiles()).containsExactly(DeviceProfile.READ_WRITE);
    }
}
