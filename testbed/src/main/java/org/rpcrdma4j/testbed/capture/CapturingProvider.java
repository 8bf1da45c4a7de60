package org.rpcrdma4j.testbed.capture;

import java.util.Set;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;

/**
 * A fabric provider whose fabrics write their RPC-over-RDMA traffic into one {@link RoceCapture}: the
 * provider's own fabrics, each behind a {@link CapturingFabric}. Everything else is the provider's.
 */
public final class CapturingProvider implements FabricProvider {

    private final FabricProvider provider;
    private final RoceCapture capture;

    /**
     * @param provider the fabric to capture
     * @param capture  where its fabrics write; its owner closes it after them
     */
    public CapturingProvider(FabricProvider provider, RoceCapture capture) {
        this.provider = provider;
        this.capture = capture;
    }

    @Override
    public String name() {
        return provider.name();
    }

    @Override
    public String description() {
        return provider.description();
    }

    @Override
    public boolean needsListenAddress() {
        return provider.needsListenAddress();
    }

    @Override
    public Set<DeviceProfile> deviceProfiles() {
        return provider.deviceProfiles();
    }

    @Override
    public Fabric open(FabricOptions options) throws Exception {
        return new CapturingFabric(provider.open(options), capture);
    }

    @Override
    public FabricAddress peer(String text) {
        return provider.peer(text);
    }

    @Override
    public String format(FabricAddress address) {
        return provider.format(address);
    }
}
