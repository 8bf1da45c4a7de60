package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.endpoint.ReorderWindow.Position;

class ReorderWindowTest {

    @Test
    void classifiesAroundTheExpectedId() {
        final ReorderWindow window = new ReorderWindow(4, 10);
        assertThat(window.classify(10)).isEqualTo(Position.NEXT);
        assertThat(window.classify(13)).isEqualTo(Position.AHEAD);
        assertThat(window.classify(14)).isEqualTo(Position.BEYOND);
        assertThat(window.classify(9)).isEqualTo(Position.PAST);
    }

    @Test
    void orderSurvivesTheWrapFromTwoToTheThirtyTwoMinusOneToZero() {
        final ReorderWindow window = new ReorderWindow(8, -2);  // 0xFFFFFFFE
        assertThat(window.classify(0)).as("0 is two after 0xFFFFFFFE").isEqualTo(Position.AHEAD);
        assertThat(window.classify(-3)).isEqualTo(Position.PAST);
        final ReorderWindow.Held held = new ReorderWindow.Held(ByteBuffer.allocate(1), null);
        window.hold(0, held);
        assertThat(window.advance()).isNull();            // now expects 0xFFFFFFFF
        assertThat(window.expected()).isEqualTo(-1);
        assertThat(window.advance()).containsExactly(held); // now expects 0
        assertThat(window.classify(0)).isEqualTo(Position.NEXT);
        assertThat(Integer.toUnsignedLong(window.expected())).isZero();
    }
}
