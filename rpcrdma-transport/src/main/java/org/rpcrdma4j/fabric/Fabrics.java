package org.rpcrdma4j.fabric;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** Finds the fabric modules present, by name, through {@link ServiceLoader}. */
public final class Fabrics {

    private Fabrics() {
    }

    /**
     * @param name a fabric's name, such as {@code sim} or {@code verbs}
     * @return its provider
     * @throws FabricNotFoundException if no module provides it; the message names the fabrics found and
     *                                 those that failed to load, with why (such as a fabric built for a
     *                                 newer Java)
     */
    public static FabricProvider named(String name) throws FabricNotFoundException {
        return named(name, Fabrics.class.getClassLoader());
    }

    /**
     * @param name   a fabric's name
     * @param loader where to look for fabric modules, such as an application's plug-in class loader
     * @return its provider
     * @throws FabricNotFoundException as {@link #named(String)}
     */
    public static FabricProvider named(String name, ClassLoader loader) throws FabricNotFoundException {
        Found found = found(loader);
        for (FabricProvider provider : found.providers) {
            if (provider.name().equals(name)) {
                return provider;
            }
        }
        StringBuilder message = new StringBuilder("no fabric named ").append(name).append(" is here; found: ");
        message.append(found.providers.isEmpty() ? "none"
                : String.join(", ", found.providers.stream().map(FabricProvider::name).toList()));
        for (String failure : found.failures) {
            message.append("; could not load ").append(failure);
        }
        throw new FabricNotFoundException(message.toString());
    }

    /**
     * The fabric modules on the class or module path.
     *
     * @param providers those that load in this JVM, in the order found
     * @param failures  why each of the others did not load, one line each
     */
    public record Found(List<FabricProvider> providers, List<String> failures) {
    }

    /** @return what {@link ServiceLoader} finds where this class was loaded from */
    public static Found found() {
        return found(Fabrics.class.getClassLoader());
    }

    /**
     * @param loader where to look
     * @return what {@link ServiceLoader} finds there, going on past a provider that fails to load
     */
    public static Found found(ClassLoader loader) {
        List<FabricProvider> providers = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        Iterator<FabricProvider> it = ServiceLoader.load(FabricProvider.class, loader)
                .iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                providers.add(it.next());
            } catch (ServiceConfigurationError e) {
                Throwable cause = e.getCause();
                failures.add(cause instanceof UnsupportedClassVersionError ? e.getMessage() + " (it needs a newer "
                        + "Java than " + Runtime.version().feature() + ")" : e.getMessage());
            }
        }
        return new Found(List.copyOf(providers), List.copyOf(failures));
    }
}
