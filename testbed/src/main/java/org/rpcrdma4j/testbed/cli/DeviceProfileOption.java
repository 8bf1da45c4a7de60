package org.rpcrdma4j.testbed.cli;

import java.util.Arrays;
import java.util.Iterator;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --device-profile none|read|read-write}, the same on every command that opens fabrics to serve on: the
 * RDMA their devices may do ({@link DeviceProfile}), for the fabrics that can build a device that does less.
 */
final class DeviceProfileOption {

    @Option(names = "--device-profile", paramLabel = "PROFILE", converter = Converter.class,
            completionCandidates = Labels.class,
            description = "What the fabric's devices may do: none (no RDMA), read (RDMA read only) or read-write "
                    + "(default); the EFA endpoint emulates what they lack. For the sim and udp fabrics only.")
    private DeviceProfile profile = DeviceProfile.READ_WRITE;

    /**
     * @param options  what the command opens its fabrics with
     * @param provider the fabric the command runs on
     * @param spec     the command, for the error of a fabric that takes no such profile
     * @return the options with this device profile
     * @throws ParameterException if the fabric cannot build its devices with this profile
     */
    FabricOptions applyTo(FabricOptions options, FabricProvider provider, CommandSpec spec) {
        if (!provider.deviceProfiles().contains(profile)) {
            throw new ParameterException(spec.commandLine(), "--device-profile " + profile.label() + ": the "
                    + provider.name() + " fabric's devices do RDMA read and write; the sim and udp fabrics take a "
                    + "profile");
        }
        return options.withDeviceProfile(profile);
    }

    /** Profiles by their labels. */
    static final class Converter implements ITypeConverter<DeviceProfile> {
        @Override
        public DeviceProfile convert(String label) {
            try {
                return DeviceProfile.named(label);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** The labels, for the help text. */
    static final class Labels implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(DeviceProfile.values()).map(DeviceProfile::label).iterator();
        }
    }
}
