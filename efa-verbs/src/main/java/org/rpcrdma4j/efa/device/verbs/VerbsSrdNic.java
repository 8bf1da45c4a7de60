package org.rpcrdma4j.efa.device.verbs;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.AddressHandle;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.EfaDeviceAttributes;
import org.rpcrdma4j.verbs.EfaDirectVerbs;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.PortAttributes;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SrdQueuePair;
import org.rpcrdma4j.verbs.SrdQueuePairConfig;
import org.rpcrdma4j.verbs.VerbsContext;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SrdNic} on libibverbs and libefa: the named EFA device, one protection domain, one completion
 * queue for both sides of one SRD queue pair ({@code efadv_create_qp_ex}), brought to RTS with a Q-Key
 * drawn here below the privileged range (as libfabric's EFA provider draws it) and, on a device with
 * {@code EFADV_DEVICE_ATTR_CAPS_RNR_RETRY}, the configured RNR retries. Sends and RDMA go through the
 * extended work-request verbs, one request per batch; receives through {@code ibv_post_recv}; a
 * completion's status is libefa's {@code vendor_err} (the device's own {@code efa_io_comp_status}).
 *
 * <p><b>Untested on hardware.</b> These machines have no EFA device and libefa answers EOPNOTSUPP on any
 * other, so none of this has run: what it does was read from rdma-core 44's efadv.h, verbs.h and
 * providers/efa (verbs.c: {@code slid} is the sender's AH number or 0xFFFF, {@code vendor_err} the
 * completion's status). Not bound, so not used: {@code efadv_create_cq} and {@code efadv_wc_read_sgid},
 * which name a sender this side has no address handle for; here such a sender is not named
 * ({@link SrdNic.Attributes#sourceGids()} is false). rdma-core 44 has no RDMA Write on EFA.
 */
final class VerbsSrdNic implements SrdNic {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsSrdNic.class);
    private static final int ENOMEM = 12;
    /** Q-Keys from 0x80000000 up are privileged. */
    private static final int QKEY_MASK = 0x7FFF_FFFF;

    private final VerbsContext context;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final SrdQueuePair qp;
    private final Attributes attributes;
    private final int port;
    private final Map<Integer, AddressHandle> handles = new HashMap<>();
    private final Map<Registration, MemoryRegion> regions = new HashMap<>();
    private final WorkCompletions completions = new WorkCompletions(32);
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);

    private VerbsSrdNic(VerbsContext context, ProtectionDomain pd, CompletionQueue cq, SrdQueuePair qp,
                        Attributes attributes, int port) {
        this.context = context;
        this.pd = pd;
        this.cq = cq;
        this.qp = qp;
        this.attributes = attributes;
        this.port = port;
    }

    /**
     * Opens the configured EFA device and brings up its SRD queue pair.
     *
     * @throws VerbsException if a library or the device is missing, it is no EFA device, or it refuses a
     *     queue or the queue pair
     */
    static VerbsSrdNic open(EfaSrdDeviceConfig config) throws VerbsException {
        EfaDirectVerbs.load();
        final List<AutoCloseable> made = new ArrayList<>();
        try {
            final VerbsContext context = VerbsContext.open(config.deviceName());
            made.add(context);
            final EfaDeviceAttributes efa = EfaDirectVerbs.queryDevice(context);
            final PortAttributes portAttributes = context.queryPort(config.port());
            final Gid gid = Gid.of(context.queryGid(config.port(), 0).raw());
            final ProtectionDomain pd = context.allocateProtectionDomain();
            made.add(pd);
            final int sendDepth = Math.min(config.sendQueueDepth(), efa.maxSendRequests());
            final int recvDepth = Math.min(config.recvQueueDepth(), efa.maxReceiveRequests());
            // One queue for both sides, sized to everything that can be outstanding: it never overflows.
            final CompletionQueue cq = context.createCompletionQueue(sendDepth + recvDepth, null, 0);
            made.add(cq);
            final boolean rdmaRead = efa.rdmaRead() && efa.maxRdmaSize() > 0;
            final SrdQueuePair qp = EfaDirectVerbs.createSrdQueuePair(pd, new SrdQueuePairConfig(
                    new QueuePairConfig(cq, cq, sendDepth, recvDepth, 1, 1, 0, true), rdmaRead, false));
            made.add(qp);
            final int qkey = new SecureRandom().nextInt() & QKEY_MASK;
            if (efa.rnrRetry()) {
                qp.activate(config.port(), qkey, config.rnrRetry());
            } else {
                qp.activate(config.port(), qkey);
            }
            final QueuePairConfig granted = qp.granted().queues();
            final int mtu = (int) Math.min(portAttributes.maxMessageSize(), Integer.MAX_VALUE);
            final Attributes attributes = new Attributes(gid, qp.qpNum(), qkey, mtu, granted.maxSendRequests(),
                    granted.maxReceiveRequests(), rdmaRead ? efa.maxRdmaSize() : 0, rdmaRead, false, efa.rnrRetry(),
                    false);
            return new VerbsSrdNic(context, pd, cq, qp, attributes, config.port());
        } catch (VerbsException | RuntimeException e) {
            closeAll(made);
            throw e;
        }
    }

    private static void closeAll(List<AutoCloseable> made) {
        for (int i = made.size() - 1; i >= 0; i--) {
            try {
                made.get(i).close();
            } catch (Exception e) {
                LOG.warn("releasing {} failed", made.get(i), e);
            }
        }
    }

    @Override
    public Attributes attributes() {
        return attributes;
    }

    @Override
    public int createAddressHandle(Gid gid) throws VerbsException {
        final AddressHandle ah = pd.createAddressHandle(new org.rpcrdma4j.verbs.Gid(gid.toBytes()), port);
        final int ahn;
        try {
            ahn = EfaDirectVerbs.addressHandleNumber(ah);
        } catch (VerbsException | RuntimeException e) {
            ah.close();
            throw e;
        }
        handles.put(ahn, ah);
        return ahn;
    }

    @Override
    public void destroyAddressHandle(int ahn) throws VerbsException {
        final AddressHandle ah = handles.remove(ahn);
        if (ah != null) {
            ah.close();
        }
    }

    @Override
    public Registration register(ByteBuffer memory, boolean remoteRead, boolean remoteWrite) throws VerbsException {
        final List<Access> rights = new ArrayList<>(List.of(Access.LOCAL_WRITE));
        if (remoteRead) {
            rights.add(Access.REMOTE_READ);
        }
        if (remoteWrite) {
            rights.add(Access.REMOTE_WRITE);
        }
        final MemoryRegion region;
        try {
            region = pd.register(MemorySegment.ofBuffer(memory), rights.toArray(Access[]::new));
        } catch (VerbsException e) {
            if (e.errno() == ENOMEM) {
                return null;
            }
            throw e;
        }
        final Registration registration = new Registration(region.address(), region.length(), region.lkey(),
                region.rkey());
        regions.put(registration, region);
        return registration;
    }

    @Override
    public void deregister(Registration registration) throws VerbsException {
        final MemoryRegion region = regions.remove(registration);
        if (region != null) {
            region.close();
        }
    }

    @Override
    public boolean postSend(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey)
            throws VerbsException {
        return post(Opcode.SEND, wrId, ahn, qpn, qkey, address, length, lkey, 0, 0);
    }

    @Override
    public boolean postRead(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey,
                            long remoteAddress, int rkey) throws VerbsException {
        return post(Opcode.RDMA_READ, wrId, ahn, qpn, qkey, address, length, lkey, remoteAddress, rkey);
    }

    @Override
    public boolean postWrite(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey,
                             long remoteAddress, int rkey) throws VerbsException {
        return post(Opcode.RDMA_WRITE, wrId, ahn, qpn, qkey, address, length, lkey, remoteAddress, rkey);
    }

    /** One request in a batch of its own: the operation, then its destination and its one scatter/gather entry. */
    private boolean post(Opcode opcode, long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey,
                         long remoteAddress, int rkey) throws VerbsException {
        final AddressHandle ah = handle(ahn);
        qp.start();
        try {
            switch (opcode) {
                case SEND -> qp.send(wrId, true);
                case RDMA_READ -> qp.rdmaRead(wrId, true, rkey, remoteAddress);
                case RDMA_WRITE -> qp.rdmaWrite(wrId, true, rkey, remoteAddress);
                default -> throw new IllegalArgumentException("not a send-queue request: " + opcode);
            }
            qp.setDestination(ah, qpn, qkey);
            qp.setSge(lkey, address, length);
        } catch (RuntimeException e) {
            qp.abort();
            throw e;
        }
        return qp.complete();
    }

    @Override
    public boolean postReceive(long wrId, long address, int length, int lkey) throws VerbsException {
        return qp.tryPost(receive.reset(wrId).add(address, length, lkey));
    }

    @Override
    public int poll(Completions sink) throws VerbsException {
        int handed = 0;
        while (true) {
            final int n = cq.poll(completions);
            for (int i = 0; i < n; i++) {
                final boolean ok = completions.succeeded(i);
                // libefa sets vendor_err on every failure; a failure without one is no status of EFA's (-1).
                final int status = ok ? 0 : completions.vendorError(i) == 0 ? -1 : completions.vendorError(i);
                sink.completion(completions.wrId(i), status, ok ? completions.byteLength(i) : 0,
                        completions.sourceQpNum(i), completions.slid(i), null);
            }
            handed += n;
            if (n < completions.capacity()) {
                return handed;
            }
        }
    }

    private AddressHandle handle(int ahn) {
        final AddressHandle ah = handles.get(ahn);
        if (ah == null) {
            throw new IllegalArgumentException("no address handle numbered " + ahn + " on this NIC");
        }
        return ah;
    }

    @Override
    public void close() {
        final List<AutoCloseable> made = new ArrayList<>();
        made.add(context);
        made.add(pd);
        made.add(cq);
        made.addAll(handles.values());
        made.addAll(regions.values());
        made.add(qp);
        handles.clear();
        regions.clear();
        closeAll(made);
    }
}
