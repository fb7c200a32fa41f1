package dev.cdclab.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class OneLineErrorTest {

    @Test
    void theFirstLineThatSaysSomething() {
        assertThat(OneLineError.firstLine("\n  port 5432 in use  \n\tat x.y(Z.java)", "-"))
                .isEqualTo("port 5432 in use");
        assertThat(OneLineError.firstLine(null, "no detail")).isEqualTo("no detail");
        assertThat(OneLineError.firstLine(" \n ", "no detail")).isEqualTo("no detail");
    }

    @Test
    void anErrorWithoutAMessageSpeaksThroughItsCause() {
        Exception e = new RuntimeException(null, new IOException("disk full\nstack"));
        assertThat(OneLineError.of(e)).isEqualTo("disk full");
        assertThat(OneLineError.of(new IllegalStateException())).isEqualTo("IllegalStateException");
    }
}
