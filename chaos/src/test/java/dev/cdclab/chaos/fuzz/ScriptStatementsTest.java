package dev.cdclab.chaos.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScriptStatementsTest {
    @Test
    void semicolonsInsideQuotesDollarQuotesAndIdentifiersDoNotSplit() {
        String script =
                "-- cdc-lab fuzz --seed 2\n"
                        + "DO $$ BEGIN CREATE TYPE m AS ENUM ('a;b'); EXCEPTION WHEN"
                        + " duplicate_object THEN NULL; END $$;\n"
                        + "INSERT INTO \"t;1\" VALUES ('it''s; odd', 'x');\n"
                        + "BEGIN;\nCOMMIT;\n";
        assertThat(ScriptStatements.split(script))
                .containsExactly(
                        "DO $$ BEGIN CREATE TYPE m AS ENUM ('a;b'); EXCEPTION WHEN"
                                + " duplicate_object THEN NULL; END $$",
                        "INSERT INTO \"t;1\" VALUES ('it''s; odd', 'x')",
                        "BEGIN",
                        "COMMIT");
    }
}
