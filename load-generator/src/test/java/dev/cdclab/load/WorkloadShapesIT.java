package dev.cdclab.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.cdclab.embedded.PostgresServer;
import dev.cdclab.load.dialect.PostgresDialect;
import dev.cdclab.load.run.LoadRunner;
import dev.cdclab.load.run.LoadStats;
import dev.cdclab.load.workload.Op;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each workload, run against a real PostgreSQL, leaves the shape it promises. */
@Timeout(300)
class WorkloadShapesIT {
    private static final long PREFILL = 2_000;
    private static PostgresServer pg;

    @BeforeAll
    static void start() {
        pg = PostgresServer.builder().durable(false).start();
    }

    @AfterAll
    static void stop() {
        pg.close();
    }

    private static LoadStats run(String name, long transactions, int txSize) throws Exception {
        return run(name, transactions, txSize, PREFILL, 2);
    }

    private static LoadStats run(
            String name, long transactions, int txSize, long prefill, int threads)
            throws Exception {
        Workload w =
                Workloads.create(
                        name,
                        new PostgresDialect(),
                        new WorkloadOptions(9, prefill, txSize, -1, 100));
        try (Connection c = pg.connect()) {
            w.createSchema(c);
            assertThat(w.prefill(c, n -> {})).isEqualTo(w.prefillRows());
        }
        LoadRunner r =
                new LoadRunner(
                        w,
                        pg::connect,
                        new LoadRunner.Options(threads, 0, Duration.ofMinutes(2), transactions));
        LoadStats s = r.run();
        assertThat(s.errors()).as(name + " errors: " + r.firstError()).isZero();
        assertThat(s.transactions()).isEqualTo(transactions);
        return s;
    }

    private static long query(String sql) throws Exception {
        try (Connection c = pg.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void w1InsertsOneRowPerTransactionAndNeverWakesTheTrigger() throws Exception {
        LoadStats s = run("W1", 300, -1);
        assertThat(s.rows().get(Op.INSERT)).isEqualTo(300);
        assertThat(query("SELECT count(*) FROM wide")).isEqualTo(PREFILL + 300);
        assertThat(query("SELECT count(*) FROM wide WHERE c02 = 'filled by trigger'")).isZero();
        assertThat(
                        query(
                                "SELECT count(*) FROM information_schema.columns WHERE table_name = 'wide'"))
                .isEqualTo(82);
    }

    @Test
    void w4GivesOneInsertAndOneTriggerUpdatePerTransaction() throws Exception {
        LoadStats s = run("W4", 300, -1);
        assertThat(s.rows().get(Op.INSERT)).isEqualTo(300);
        assertThat(s.triggeredChanges()).isEqualTo(300);
        assertThat(s.sourceChanges()).isEqualTo(600);
        assertThat(query("SELECT count(*) FROM wide WHERE c02 = 'filled by trigger'"))
                .isEqualTo(300);
    }

    @Test
    void w2FillsTheNarrowTable() throws Exception {
        run("W2", 200, -1);
        assertThat(query("SELECT count(*) FROM narrow")).isEqualTo(PREFILL + 200);
        assertThat(
                        query(
                                "SELECT count(*) FROM information_schema.columns WHERE table_name = 'narrow'"))
                .isEqualTo(21);
    }

    @Test
    void w3UpdatesExactlyOneRowPerTransaction() throws Exception {
        LoadStats s = run("W3", 300, -1);
        assertThat(s.rows().get(Op.UPDATE)).isEqualTo(300);
    }

    @Test
    void w5MixesSelectsInsertsAndUpdates() throws Exception {
        LoadStats s = run("W5", 600, -1);
        assertThat(s.rows().get(Op.SELECT)).isPositive();
        assertThat(s.rows().get(Op.INSERT)).isPositive();
        assertThat(s.rows().get(Op.UPDATE)).isPositive();
        assertThat(s.transactionsByType().get("select") / 600.0).isCloseTo(0.4, within(0.08));
    }

    @Test
    void w6UpdatesTenToTwoThousandRowsPerTransaction() throws Exception {
        LoadStats s = run("W6", 40, -1);
        assertThat(s.rows().get(Op.UPDATE)).isBetween(40L * 10, 40L * 2000);
        assertThat(s.sourceChanges() / 40.0)
                .as("mean rows per transaction")
                .isBetween(300.0, 1_700.0);
    }

    @Test
    void w7InsertsAThousandRowsPerTransaction() throws Exception {
        LoadStats s = run("W7", 5, -1);
        assertThat(s.rows().get(Op.INSERT)).isEqualTo(5_000);
        assertThat(query("SELECT count(*) FROM wide")).isEqualTo(PREFILL + 5_000);
    }

    @Test
    void r1KeepsItsProportionsAndKilobyteRows() throws Exception {
        LoadStats s = run("R1", 2_000, -1);
        assertThat(s.transactionsByType().get("insert") / 2000.0).isCloseTo(0.30, within(0.04));
        assertThat(s.transactionsByType().get("update") / 2000.0).isCloseTo(0.60, within(0.04));
        assertThat(s.transactionsByType().get("delete") / 2000.0).isCloseTo(0.10, within(0.03));
        assertThat(query("SELECT avg(pg_column_size(r.*))::bigint FROM r1_rows r"))
                .isBetween(950L, 1_150L);
    }

    @Test
    void transfersKeepTheTotalAndNeverDeadlockOnFewAccounts() throws Exception {
        // eight sessions on five accounts: every transfer waits on another's row locks
        LoadStats s = run("transfer", 2_000, -1, 5, 8);
        assertThat(s.rows().get(Op.UPDATE)).isEqualTo(4_000);
        assertThat(query("SELECT (sum(balance) * 100)::bigint FROM transfer_account"))
                .isEqualTo(5 * 100_000L);
        assertThat(query("SELECT count(DISTINCT balance) FROM transfer_account"))
                .as("money moved")
                .isGreaterThan(1);
    }

    @Test
    void t1CommitsTxSizeRowsAtOnceAndT1SingleOneByOne() throws Exception {
        LoadStats big = run("T1", 1, 5_000);
        assertThat(big.rows().get(Op.INSERT)).isEqualTo(5_000);
        assertThat(query("SELECT count(*) FROM t1_objects")).isEqualTo(5_000);
        LoadStats single = run("T1-single", 500, -1);
        assertThat(single.rows().get(Op.INSERT)).isEqualTo(500);
        assertThat(query("SELECT count(*) FROM t1_objects")).isEqualTo(500);
    }
}
