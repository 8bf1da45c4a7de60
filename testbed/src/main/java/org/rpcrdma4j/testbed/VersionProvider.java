package org.rpcrdma4j.testbed;

import picocli.CommandLine.IVersionProvider;

/** Reports the version recorded in the jar manifest (or "development" when run from classes). */
final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        String version = Main.class.getPackage().getImplementationVersion();
        return new String[] {"testbed " + (version == null ? "development" : version)};
    }
}
