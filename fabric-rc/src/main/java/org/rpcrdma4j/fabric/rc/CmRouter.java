package org.rpcrdma4j.fabric.rc;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.Fabric.ConnectRequest;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the device's reports go ({@link RcDevice.Events}): the RC fabric's connections by RDMA-CM id
 * and by queue pair number, each CM event and work completion routed to its connection, the
 * requester's steps from address to route to REQ, and the CONNECT_REQUESTs handed to the acceptor,
 * which accepts or rejects each (xprtrdma's and svcrdma's CM event handlers, in their place). Counts
 * the CM events by kind, and the connections and queue pairs, for the fabric's statistics on any
 * thread. Only the fabric's turn holder calls it.
 */
final class CmRouter implements RcDevice.Events {

    private static final Logger LOG = LoggerFactory.getLogger(CmRouter.class);

    private final RcFabric fabric;
    private final RcDevice device;
    private final RcFabric.Config config;
    private final Map<Long, RcConnection> byId = new HashMap<>();
    private final Map<Integer, RcConnection> byQp = new HashMap<>();
    /** The RFC 8797 private data of requesters waiting for their route, for their REQ. */
    private final Map<Long, ConnectPrivateData> pendingRequests = new HashMap<>();
    /** RDMA-CM events received, by {@link CmEventType} ordinal. */
    private final AtomicLongArray cmEvents = new AtomicLongArray(CmEventType.values().length);
    /** The size of {@link #byId}, for statistics. */
    private volatile int connectionCount;
    private volatile int queuePairs;
    private volatile Consumer<ConnectRequest> acceptor;

    CmRouter(RcFabric fabric, RcDevice device, RcFabric.Config config) {
        this.fabric = fabric;
        this.device = device;
        this.config = config;
    }

    /** Hands requests to {@code newAcceptor} from now on, or rejects them all with {@code null}. */
    void accepting(Consumer<ConnectRequest> newAcceptor) {
        acceptor = newAcceptor;
    }

    /** @return whether an acceptor takes requests */
    boolean accepting() {
        return acceptor != null;
    }

    /**
     * A requester's connection, its id made: routed by id from now on, its private data kept for the
     * REQ once its route is resolved.
     */
    void requesting(RcConnection connection, ConnectPrivateData privateData) {
        add(connection);
        pendingRequests.put(connection.id(), privateData);
    }

    /** A connection's queue pair is made: its completions are routed from now on. */
    void routed(RcConnection connection) {
        byQp.put(connection.qpNum(), connection);
        queuePairs++;
    }

    /** An ended connection: nothing is routed to it any more. */
    void forget(RcConnection connection) {
        byId.remove(connection.id());
        byQp.remove(connection.qpNum());
        connectionCount = byId.size();
        pendingRequests.remove(connection.id());
    }

    /** A queue pair the reaper destroyed. */
    void queuePairDestroyed() {
        queuePairs--;
    }

    /** @return the connections not yet forgotten */
    List<RcConnection> connections() {
        return new ArrayList<>(byId.values());
    }

    /** @return connections not yet forgotten; any thread */
    int connectionCount() {
        return connectionCount;
    }

    /** @return queue pairs made and not yet destroyed; any thread */
    int queuePairs() {
        return queuePairs;
    }

    /** @return the CM events of a kind received so far; any thread */
    long cmEvents(CmEventType type) {
        return cmEvents.get(type.ordinal());
    }

    private void add(RcConnection connection) {
        byId.put(connection.id(), connection);
        connectionCount = byId.size();
    }

    @Override
    public void cmEvent(long id, CmEventType type, int status, byte[] privateData) {
        cmEvents.incrementAndGet(type.ordinal());
        if (type == CmEventType.CONNECT_REQUEST) {
            request(id, privateData);
            return;
        }
        RcConnection connection = byId.get(id);
        if (connection == null) {
            LOG.debug("{} (status {}) for an id with no connection", type.description(), status);
            return;
        }
        if ((type == CmEventType.ADDR_RESOLVED || type == CmEventType.ROUTE_RESOLVED)
                && connection.state() != RcConnection.State.RESOLVING) {
            return; // closed while resolving: it is ending already
        }
        switch (type) {
            case ADDR_RESOLVED -> {
                try {
                    device.resolveRoute(id, config.resolveTimeoutMillis());
                } catch (VerbsException e) {
                    connection.fail(FabricStatus.PEER_UNREACHABLE, "rdma_resolve_route failed: " + e.getMessage());
                }
            }
            case ROUTE_RESOLVED -> {
                try {
                    connection.addressesKnown();
                    connection.createQueuePair(config);
                    connection.connecting();
                    device.connect(id, CmPrivateData.encode(offered(connection, pendingRequests.remove(id))),
                            config.retryCount(), config.rnrRetryCount());
                } catch (VerbsException | RuntimeException e) {
                    connection.fail(FabricStatus.FABRIC_ERROR, "setting up the connection failed: " + e.getMessage());
                }
            }
            case ESTABLISHED -> connection.established(privateData);
            default -> {
                FabricStatus ending = RcStatus.ending(type);
                if (ending != null) {
                    connection.fail(ending, type.description() + (status == 0 ? "" : " status " + status));
                }
            }
        }
    }

    /**
     * @return the requester's private data with remote invalidation offered exactly when its chunks
     *     go through windows and the device takes a Send with Invalidate: a peer may then invalidate
     *     any key of its calls, and only a window's (not a registration's) may be invalidated so
     */
    private ConnectPrivateData offered(RcConnection connection, ConnectPrivateData requested) {
        boolean offer = connection.windowed() && device.remoteInvalidation();
        return new ConnectPrivateData(offer, requested.maxSendSize(), requested.maxRecvSize());
    }

    @Override
    public void completion(int qpNum, long wrId, WcStatus status, int byteLength, long invalidated) {
        RcConnection connection = byQp.get(qpNum);
        if (connection == null) {
            LOG.debug("a completion ({}) for queue pair {}, which has no connection", status.description(), qpNum);
            return;
        }
        connection.completed(wrId, status, byteLength, invalidated);
    }

    @Override
    public void queuePairFailed(int qpNum, String detail) {
        RcConnection connection = byQp.get(qpNum);
        if (connection != null) {
            connection.fail(FabricStatus.FABRIC_ERROR, detail);
        }
    }

    private void request(long id, byte[] privateData) {
        Request request = new Request(id, CmPrivateData.recognise(privateData));
        Consumer<ConnectRequest> current = fabric.running() ? acceptor : null;
        if (current != null) {
            try {
                current.accept(request);
            } catch (RuntimeException e) {
                LOG.error("the acceptor failed on a request from {}", request.peer(), e);
            }
        }
        if (!request.answered) {
            request.reject();
        }
    }

    /** A CONNECT_REQUEST: the new id, the requester's address and its data from the REQ. */
    private final class Request implements ConnectRequest {

        private final long id;
        private final FabricAddress peer;
        private final ConnectPrivateData privateData;
        private boolean answered;

        Request(long id, ConnectPrivateData privateData) {
            this.id = id;
            this.privateData = privateData;
            InetSocketAddress from = device.peerAddress(id);
            this.peer = from == null ? RcFabric.addressOf(new InetSocketAddress(0)) : RcFabric.addressOf(from);
        }

        @Override
        public FabricAddress peer() {
            return peer;
        }

        @Override
        public ConnectPrivateData privateData() {
            return privateData;
        }

        @Override
        public FabricConnection accept(ConnectPrivateData ours, List<ByteBuffer> receives,
                                       ConnectionListener listener) {
            answer();
            RcConnection connection = new RcConnection(fabric, device, id, peer, listener, false);
            connection.peerData(privateData);
            add(connection);
            receives.forEach(connection::postReceive);
            try {
                connection.addressesKnown();
                connection.createQueuePair(config);
                device.accept(id, CmPrivateData.encode(ours), config.retryCount(), config.rnrRetryCount());
            } catch (VerbsException | RuntimeException e) {
                LOG.warn("accepting {} failed: {}", peer, e.getMessage());
                try {
                    device.reject(id);
                } catch (VerbsException ignored) {
                    // the id goes with the connection; the peer times out or hears the reject
                }
                connection.fail(FabricStatus.FABRIC_ERROR, "accepting failed: " + e.getMessage());
            }
            return connection;
        }

        @Override
        public void reject() {
            answer();
            try {
                device.reject(id);
            } catch (VerbsException e) {
                LOG.debug("rdma_reject to {} failed: {}", peer, e.getMessage());
            }
            try {
                device.destroy(id);
            } catch (VerbsException e) {
                LOG.warn("destroying a rejected id failed: {}", e.getMessage());
            }
        }

        private void answer() {
            if (answered) {
                throw new IllegalStateException("answered already");
            }
            answered = true;
        }
    }
}
