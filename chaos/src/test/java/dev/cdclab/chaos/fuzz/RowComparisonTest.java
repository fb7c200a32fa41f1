package dev.cdclab.chaos.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RowComparisonTest {
    @Test
    void aTimestampBeforeChristReadsAlikeFromBothWarehouses() {
        RowComparison duck = new RowComparison(true);
        RowComparison pg = new RowComparison(false);
        String t = "timestamp without time zone";
        assertThat(duck.canonical("0044-03-15 (BC) 00:00:00.500000", t))
                .isEqualTo(pg.canonical("0044-03-15 00:00:00.5 BC", t))
                .isEqualTo("0044-03-15 00:00:00.5 BC");
        assertThat(duck.canonical("2024-01-01 10:00:00.120000", t))
                .isEqualTo(pg.canonical("2024-01-01 10:00:00.12", t));
        assertThat(duck.canonical("0044-03-15 (BC)", "date")).isEqualTo("0044-03-15 BC");
    }
}
