package org.rpcrdma4j.transport.conn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
