package org.rpcrdma4j.testbed.serve;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dcache.oncrpc4j.portmap.OncRpcPortmap;
import org.dcache.oncrpc4j.portmap.mapping;
import org.dcache.oncrpc4j.portmap.rpcb;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.InetSocketAddresses;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrBoolean;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP service's program registered with an rpcbind over UDP, as oncrpc4j's auto-publish registers
 * it (rpcbind version 4 where it answers, else portmap version 2, which oncrpc4j's embedded rpcbind
 * serves), but with a bounded wait for every answer: oncrpc4j's own registration waits for ever, so a
 * lost datagram could hang a server's shutdown. A registration or unregistration that gets no answer
 * is logged and given up; a server serves either way.
 */
final class RpcbindRegistration implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RpcbindRegistration.class);
    private static final int IPPROTO_TCP = 6;

    private final InetSocketAddress rpcbind;
    private final OncRpcProgram program;
    private final Duration timeout;
    private final String owner = System.getProperty("user.name");

    private RpcbindRegistration(InetSocketAddress rpcbind, OncRpcProgram program, Duration timeout) {
        this.rpcbind = rpcbind;
        this.program = program;
        this.timeout = timeout;
    }

    /**
     * Registers {@code program} at {@code service}, after removing what an earlier process left.
     *
     * @param rpcbind where rpcbind listens over UDP
     * @param program the program and version
     * @param service where the program listens over TCP
     * @param timeout how long to wait for each of rpcbind's answers
     * @return the registration, which {@link #close} removes
     */
    static RpcbindRegistration register(InetSocketAddress rpcbind, OncRpcProgram program, InetSocketAddress service,
                                        Duration timeout) {
        RpcbindRegistration registration = new RpcbindRegistration(rpcbind, program, timeout);
        boolean v6 = service.getAddress() instanceof Inet6Address;
        registration.ask(true, new rpcb(program.getNumber(), program.getVersion(), v6 ? "tcp6" : "tcp",
                InetSocketAddresses.uaddrOf(service), registration.owner),
                new mapping(program.getNumber(), program.getVersion(), IPPROTO_TCP, service.getPort()));
        return registration;
    }

    /** Removes the registration, waiting a bounded time for rpcbind's answer. */
    @Override
    public void close() {
        ask(false, new rpcb(program.getNumber(), program.getVersion(), "", "", owner),
                new mapping(program.getNumber(), program.getVersion(), 0, -1));
    }

    /** Sets or unsets the program: with rpcbind version 4 where it answers its NULL, else with portmap version 2. */
    private void ask(boolean set, rpcb v4, mapping v2) {
        String what = set ? "register" : "unregister";
        try (OncRpcClient client = new OncRpcClient(rpcbind.getAddress(), IpProtocolType.UDP, rpcbind.getPort())) {
            RpcTransport transport = client.connect();
            boolean done;
            if (answers(transport, OncRpcPortmap.PORTMAP_V4)) {
                done = call(transport, OncRpcPortmap.PORTMAP_V4,
                        set ? OncRpcPortmap.RPCBPROC_SET : OncRpcPortmap.RPCBPROC_UNSET, v4);
            } else {
                done = call(transport, OncRpcPortmap.PORTMAP_V2,
                        set ? OncRpcPortmap.PMAPPROC_SET : OncRpcPortmap.PMAPPROC_UNSET, v2);
            }
            if (!done) {
                LOG.info("rpcbind at {} refused to {} {}", rpcbind, what, program);
            }
        } catch (TimeoutException e) {
            LOG.warn("rpcbind at {} did not answer within {} ms; {} not done for {}", rpcbind, timeout.toMillis(),
                    what, program);
        } catch (IOException e) {
            LOG.warn("could not {} {} with rpcbind at {}: {}", what, program, rpcbind, e.getMessage());
        }
    }

    private boolean answers(RpcTransport transport, int version) {
        try {
            call(transport, version, OncRpcPortmap.PMAPPROC_NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID);
            return true;
        } catch (TimeoutException | IOException e) {
            return false;
        }
    }

    private boolean call(RpcTransport transport, int version, int procedure, XdrAble args)
            throws IOException, TimeoutException {
        XdrBoolean result = new XdrBoolean();
        call(transport, version, procedure, args, result);
        return result.booleanValue();
    }

    private void call(RpcTransport transport, int version, int procedure, XdrAble args, XdrAble result)
            throws IOException, TimeoutException {
        new RpcCall(OncRpcPortmap.PORTMAP_PROGRAMM, version, new RpcAuthTypeNone(), transport)
                .call(procedure, args, result, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
