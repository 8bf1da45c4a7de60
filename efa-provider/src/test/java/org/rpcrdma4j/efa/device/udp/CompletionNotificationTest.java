package org.rpcrdma4j.efa.device.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.conformance.HangGuard;

/**
 * The UDP device's completion notification, what lets the endpoint's progress thread sleep: the I/O
 * thread runs an armed wake-up once when it leaves a completion to poll, and arming is refused while
 * one waits. Wake-ups are counted; nothing depends on how long anything takes.
 */
class CompletionNotificationTest {

    private UdpDevice sender;
    private UdpDevice receiver;
    private AddressHandle toReceiver;
    private final AtomicInteger wakes = new AtomicInteger();
    private final Runnable wake = wakes::incrementAndGet;

    @BeforeEach
    void open() throws IOException {
        sender = UdpDevice.open(new InetSocketAddress("127.0.0.1", 0));
        receiver = UdpDevice.open(new InetSocketAddress("127.0.0.1", 0));
        toReceiver = sender.createAddressHandle(receiver.address().gid());
    }

    @AfterEach
    void close() {
        sender.close();
        receiver.close();
    }

    private void send() {
        assertThat(receiver.postRecv(ByteBuffer.allocate(64), 1)).isTrue();
        assertThat(sender.postSend(toReceiver, receiver.address().qpn(), receiver.address().qkey(),
                ByteBuffer.allocate(8), 2)).isTrue();
    }

    /** @return what {@code device} completed, polled until there is one */
    private static Completion pollOne(UdpDevice device) {
        final List<Completion> polled = new ArrayList<>();
        final HangGuard guard = new HangGuard();
        while (device.pollCompletions(polled::add, 16) == 0) {
            guard.check(() -> "a completion of " + device);
            Thread.onSpinWait();
        }
        assertThat(polled).hasSize(1);
        return polled.get(0);
    }

    /**
     * Sends and waits for the sender's completion. The receiver sends its verdict at the end of the
     * batch that queued the receive completion, after running what was armed: once the sender has
     * the verdict, the receiver has done with that batch.
     */
    private void sendAndAwaitVerdict() {
        send();
        final Completion verdict = pollOne(sender);
        assertThat(verdict.opcode()).isEqualTo(Opcode.SEND);
        assertThat(verdict.status()).isEqualTo(CompletionStatus.OK);
    }

    @Test
    void anArmedNotificationRunsOnceWhenAReceiveCompletes() {
        assertThat(receiver.armCompletionNotification(wake)).as("nothing to poll yet: armed").isTrue();
        sendAndAwaitVerdict();
        assertThat(wakes).as("run by the batch that queued the receive").hasValue(1);
        assertThat(pollOne(receiver).opcode()).isEqualTo(Opcode.RECV);

        sendAndAwaitVerdict();
        assertThat(pollOne(receiver).opcode()).isEqualTo(Opcode.RECV);
        assertThat(wakes).as("one-shot: not run again until armed again").hasValue(1);

        assertThat(receiver.armCompletionNotification(wake)).isTrue();
        sendAndAwaitVerdict();
        assertThat(wakes).hasValue(2);
    }

    @Test
    void armingIsRefusedWhileACompletionWaitsToBePolled() {
        sendAndAwaitVerdict();

        assertThat(receiver.armCompletionNotification(wake)).as("a receive waits: poll instead").isFalse();
        assertThat(pollOne(receiver).opcode()).isEqualTo(Opcode.RECV);
        assertThat(receiver.armCompletionNotification(wake)).as("polled: armed").isTrue();
        assertThat(wakes).hasValue(0);
    }
}
