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
        Found found = find();
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

    /** @return the providers on the class or module path that load in this JVM, in the order found */
    public static List<FabricProvider> available() {
        return find().providers;
    }

    private record Found(List<FabricProvider> providers, List<String> failures) {
    }

    /** Keeps going past a provider that fails to load: the others may still serve. */
    private static Found find() {
        List<FabricProvider> providers = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        Iterator<FabricProvider> it = ServiceLoader.load(FabricProvider.class, Fabrics.class.getClassLoader())
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
        return new Found(providers, failures);
    }
}
