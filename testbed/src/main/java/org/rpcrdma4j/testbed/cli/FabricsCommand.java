package org.rpcrdma4j.testbed.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.Fabrics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code testbed fabrics}: the fabric modules this JVM finds, the names {@code --fabric} takes. */
@Command(
        name = "fabrics",
        mixinStandardHelpOptions = true,
        description = {
            "List the fabrics found on the class path, one per line: the name --fabric takes and what it is, "
                    + "then any that failed to load and why. The testbed's jar has sim and udp; verbs and rc-sim "
                    + "need JDK 22+ and the fabric-rc and verbs jars next to it."
        })
public final class FabricsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Fabrics.Found found = Fabrics.found();
        for (FabricProvider provider : found.providers()) {
            out.printf("%-8s %s%n", provider.name(), provider.description());
        }
        for (String failure : found.failures()) {
            out.println("(could not load " + failure + ")");
        }
        out.flush();
        return 0;
    }
}
