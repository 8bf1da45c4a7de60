package org.rpcrdma4j.efa.device.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * EFA RDM endpoints on {@link EfaSrdDevice}s whose NIC does not name the GID of a sender it has no address handle
 * for (an EFA NIC read without the extended completion queue): the first packets of a peer the receiver has never
 * heard of carry the raw-address header, and the endpoint names the sender from it, as libfabric's provider does.
 */
class EndpointOnSrdDeviceTest {

    private final FakeSrdNetwork network = new FakeSrdNetwork(1);
    private long now;

    @Test
    void aPeerTheReceiverNeverHeardOfIsNamedFromItsPacketsAndAnswered() throws VerbsException {
        final FakeSrdNetwork.Caps full = FakeSrdNetwork.Caps.full();
        final FakeSrdNetwork.Caps noSourceGids = new FakeSrdNetwork.Caps(full.mtu(), full.sendDepth(),
                full.recvDepth(), full.maxRdmaSize(), true, false, false);
        final EfaSrdDevice serverDevice = EfaSrdDevice.open(network.nic(gid(1), noSourceGids),
                EfaSrdDeviceConfig.on("server"));
        final EfaSrdDevice clientDevice = EfaSrdDevice.open(network.nic(gid(2), noSourceGids),
                EfaSrdDeviceConfig.on("client"));
        final EfaEndpoint server = new EfaEndpoint(serverDevice, EndpointConfig.DEFAULT);
        final EfaEndpoint client = new EfaEndpoint(clientDevice, EndpointConfig.DEFAULT);
        final List<CompletionEntry> atServer = new ArrayList<>();
        final List<CompletionEntry> atClient = new ArrayList<>();
        final ByteBuffer call = ByteBuffer.allocate(64);
        assertThat(server.recv(EfaEndpoint.ADDR_UNSPEC, call, 1)).isTrue();

        final long toServer = client.insert(server.address());
        assertThat(client.send(toServer, ascii("hello"), 2)).isTrue();
        turn(server, client, atServer, atClient);

        assertThat(atServer).singleElement().satisfies(entry -> {
            assertThat(entry.ok()).isTrue();
            assertThat(entry.length()).isEqualTo(5);
        });
        assertThat(atClient).extracting(CompletionEntry::context).containsExactly(2L);
        assertThat(serverDevice.count(SrdCounter.RECEIVES_UNNAMED)).as("the NIC named no GID").isPositive();
        final long toClient = atServer.get(0).source();
        assertThat(toClient).as("the endpoint named the sender").isNotEqualTo(EfaEndpoint.ADDR_UNSPEC);

        final ByteBuffer reply = ByteBuffer.allocate(64);
        assertThat(client.recv(toServer, reply, 3)).isTrue();
        assertThat(server.send(toClient, ascii("world"), 4)).isTrue();
        atServer.clear();
        atClient.clear();
        turn(server, client, atServer, atClient);

        assertThat(atServer).extracting(CompletionEntry::context).containsExactly(4L);
        assertThat(atClient).extracting(CompletionEntry::context).containsExactly(3L);
        assertThat(new String(reply.array(), 0, 5, StandardCharsets.US_ASCII)).isEqualTo("world");
    }

    private void turn(EfaEndpoint server, EfaEndpoint client, List<CompletionEntry> atServer,
                      List<CompletionEntry> atClient) {
        for (int i = 0; i < 100; i++) {
            now += 1_000_000;
            network.progress();
            server.progress(now);
            client.progress(now);
            server.poll(atServer::add, Integer.MAX_VALUE);
            client.poll(atClient::add, Integer.MAX_VALUE);
        }
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static Gid gid(int n) {
        return new Gid(0xfe80_0000_0000_0000L, n);
    }
}
