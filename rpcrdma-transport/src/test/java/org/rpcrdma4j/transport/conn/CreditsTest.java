package org.rpcrdma4j.transport.conn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** RFC 8166 §3.3.1 credits, one test per rule. */
class CreditsTest {

    @Test
    void requesterAssumesOneCreditUntilTheFirstReply() {
        RequesterCredits credits = new RequesterCredits(128);
        assertThat(credits.limit()).isEqualTo(1);
        credits.onSent();
        assertThat(credits.canSend()).isFalse();
        assertThatThrownBy(credits::onSent).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void requesterNeverExceedsTheGrant() {
        RequesterCredits credits = new RequesterCredits(128);
        credits.onSent();
        credits.onAnswered(2);
        credits.onSent();
        credits.onSent();
        assertThat(credits.canSend()).isFalse();
        assertThat(credits.outstanding()).isEqualTo(2);
    }

    @Test
    void requesterNeverUsesMoreThanItRequested() {
        RequesterCredits credits = new RequesterCredits(4);
        credits.onSent();
        credits.onAnswered(1000);
        assertThat(credits.limit()).isEqualTo(4);
        credits.onAnswered(-1);
        assertThat(credits.limit()).as("u32 grant").isEqualTo(4);
    }

    @Test
    void requesterTreatsAGrantOfZeroAsOne() {
        RequesterCredits credits = new RequesterCredits(8);
        credits.onSent();
        credits.onAnswered(0);
        assertThat(credits.limit()).isEqualTo(1);
        assertThat(credits.canSend()).isTrue();
    }

    @Test
    void requesterGetsBackTheCreditOfAnUnsentCall() {
        RequesterCredits credits = new RequesterCredits(8);
        credits.onSent();
        credits.onUnanswered();
        assertThat(credits.outstanding()).isZero();
        assertThat(credits.limit()).isEqualTo(1);
    }

    @Test
    void responderNeverGrantsZero() {
        assertThatThrownBy(() -> new ResponderCredits(0)).hasMessageContaining("never grants 0");
        assertThat(new ResponderCredits(64).granted()).isEqualTo(64);
    }

    @Test
    void responderPostsAReceivePerCreditPerConnection() {
        assertThat(new ResponderCredits(2).receivesFor(8)).isEqualTo(16);
    }

    @Test
    void backwardCallsAreCountedApartWithOneCreditUntilTheFirstBackwardReply() {
        BackwardCalls calls = new BackwardCalls(8);
        for (int xid = 1; xid <= 5; xid++) {
            calls.add(new BackwardCalls.Call(xid, ByteBuffer.allocate(0)));
        }
        assertThat(calls.next().xid()).isEqualTo(1);
        assertThat(calls.next()).as("one credit until the first reply (RFC 8167)").isNull();
        assertThat(calls.answered(99, 3)).as("not a backward call of ours").isFalse();
        assertThat(calls.answered(1, 3)).isTrue();
        assertThat(calls.next().xid()).isEqualTo(2);
        assertThat(calls.next().xid()).isEqualTo(3);
        assertThat(calls.next().xid()).isEqualTo(4);
        assertThat(calls.next()).as("never more than the grant").isNull();
        assertThat(calls.unanswered(3)).isTrue();
        assertThat(calls.next().xid()).isEqualTo(5);
        assertThat(calls.pending()).isEqualTo(3);
        assertThat(calls.clear()).containsExactlyInAnyOrder(2, 4, 5);
        assertThat(calls.pending()).isZero();
    }
}
