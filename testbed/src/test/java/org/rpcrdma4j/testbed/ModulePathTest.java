package org.rpcrdma4j.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The library modules on the module path of this JDK, as a modular application would put them: their
 * descriptors resolve against oncrpc4j, Grizzly and SLF4J as those jars come from Maven Central
 * (oncrpc4j and Grizzly as automatic modules; Netty, which efa-provider's UDP device uses, with its
 * own module descriptors), each exports its API packages only, and a class of the
 * API loads from the resulting layer. The tests themselves run on the class path.
 */
class ModulePathTest {

    /** Each library module's directory or jar, then the jars of what they require. */
    private static final List<String> ENTRIES = List.of("rpcrdma-xdr", "efa-provider", "rpcrdma-transport",
            "fabric-efa", "nfs-ulb", "oncrpc4j-core", "grizzly-framework", "slf4j-api", "netty-buffer", "netty-common",
            "netty-resolver", "netty-transport", "netty-transport-classes-epoll", "netty-transport-native-unix-common");

    @Test
    void theLibraryModulesResolveOnTheModulePathAndExportTheirApiOnly() throws Exception {
        ModuleFinder finder = ModuleFinder.of(modulePath().toArray(Path[]::new));
        Configuration core = ModuleLayer.boot().configuration()
                .resolve(finder, ModuleFinder.of(), Set.of("org.rpcrdma4j.nfs"));
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(finder, ModuleFinder.of(), Set.of("org.rpcrdma4j.nfs", "org.rpcrdma4j.fabric.efa"));

        // the transport and the NFS binding need no fabric
        assertThat(core.modules()).extracting(module -> module.name()).containsExactlyInAnyOrder(
                "org.rpcrdma4j.nfs", "org.rpcrdma4j.transport", "org.rpcrdma4j.xdr",
                "org.dcache.oncrpc4j", "grizzly.framework", "org.slf4j");
        assertThat(configuration.modules()).extracting(module -> module.name()).containsExactlyInAnyOrder(
                "org.rpcrdma4j.nfs", "org.rpcrdma4j.transport", "org.rpcrdma4j.fabric.efa", "org.rpcrdma4j.efa",
                "org.rpcrdma4j.xdr", "org.dcache.oncrpc4j", "grizzly.framework", "org.slf4j", "io.netty.buffer",
                "io.netty.common", "io.netty.resolver", "io.netty.transport", "io.netty.transport.classes.epoll",
                "io.netty.transport.unix.common");
        assertThat(exports(finder, "org.rpcrdma4j.xdr")).containsExactly("org.rpcrdma4j.xdr");
        assertThat(exports(finder, "org.rpcrdma4j.efa")).containsExactlyInAnyOrder("org.rpcrdma4j.efa",
                "org.rpcrdma4j.efa.device", "org.rpcrdma4j.efa.device.sim", "org.rpcrdma4j.efa.device.udp",
                "org.rpcrdma4j.efa.wire");
        assertThat(exports(finder, "org.rpcrdma4j.transport")).containsExactlyInAnyOrder("org.rpcrdma4j.transport",
                "org.rpcrdma4j.fabric", "org.rpcrdma4j.transport.oncrpc");
        assertThat(exports(finder, "org.rpcrdma4j.fabric.efa")).containsExactly("org.rpcrdma4j.fabric.efa");
        assertThat(exports(finder, "org.rpcrdma4j.nfs")).containsExactlyInAnyOrder("org.rpcrdma4j.nfs",
                "org.rpcrdma4j.nfs.acl", "org.rpcrdma4j.nfs.v2", "org.rpcrdma4j.nfs.v3", "org.rpcrdma4j.nfs.v4");

        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                ClassLoader.getPlatformClassLoader());
        Module transport = layer.findModule("org.rpcrdma4j.transport").orElseThrow();
        assertThat(Class.forName(transport, "org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder")).isNotNull();
        assertThat(transport.isExported("org.rpcrdma4j.transport.conn")).isFalse();
        assertThat(layer.findModule("org.rpcrdma4j.efa").orElseThrow().isExported("org.rpcrdma4j.efa.endpoint"))
                .isFalse();
        // the fabric module provides its fabrics by name, as the testbed finds them
        Class<?> provider = Class.forName(transport, "org.rpcrdma4j.fabric.FabricProvider");
        assertThat(ServiceLoader.load(layer, provider).stream().map(found -> found.type().getName()))
                .containsExactly("org.rpcrdma4j.fabric.efa.SimFabricProvider", "org.rpcrdma4j.fabric.efa.UdpFabricProvider");
    }

    /** @return the class path entries named in {@link #ENTRIES}: a module's classes directory or a jar */
    private static List<Path> modulePath() {
        List<Path> path = new ArrayList<>();
        for (String name : ENTRIES) {
            Path found = null;
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path candidate = Path.of(entry);
                boolean classes = candidate.endsWith(Path.of(name, "target", "classes"));
                String file = candidate.getFileName().toString();
                // a jar is NAME-VERSION.jar: "netty-transport" must not find netty-transport-classes-epoll
                boolean jar = file.startsWith(name + "-") && file.length() > name.length() + 1
                        && Character.isDigit(file.charAt(name.length() + 1));
                if (classes || jar) {
                    found = candidate;
                    break;
                }
            }
            assertThat(found).as("%s on the class path", name).isNotNull();
            path.add(found);
        }
        return path;
    }

    private static Set<String> exports(ModuleFinder finder, String module) {
        return finder.find(module).orElseThrow().descriptor().exports().stream()
                .filter(export -> !export.isQualified()).map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
    }
}
