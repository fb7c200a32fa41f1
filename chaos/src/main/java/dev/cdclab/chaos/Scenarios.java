package dev.cdclab.chaos;

import static dev.cdclab.chaos.ChaosLab.sleep;

import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.change.Lsn;
import dev.cdclab.chaos.Scenario.CheckFailed;
import dev.cdclab.chaos.Scenario.Expect;
import dev.cdclab.sink.WarehouseSink;
import dev.cdclab.streams.NetChangeConfig;
import dev.cdclab.wait.Poll;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.postgresql.PGConnection;

/** The scenarios {@code cdc-lab chaos} runs, each motivated by a real CDC bug. */
public final class Scenarios {
    private static final String HALT_SINK_AFTER_4_COMMITS =
            "-D" + WarehouseSink.FAULT_HALT_AFTER_COMMITS + "=4";

    private static final ChaosLab.Options DEFAULTS = ChaosLab.Options.defaults();
    private static final Map<String, Scenario> ALL = new LinkedHashMap<>();

    static {
        add(
                "connect-kill",
                "kill -9 of the Connect worker with a transaction open; another commits during"
                        + " the outage",
                DEFAULTS,
                Expect.NO_LOSS,
                Scenarios::connectKill);
        add(
                "capture-crash-multirow",
                "kill -9 of Connect while a 50,000-row COPY (rows sharing WAL records) is being"
                        + " captured",
                DEFAULTS.sql("CREATE TABLE chaos_bulk (id int PRIMARY KEY, v text)"),
                Expect.NO_LOSS,
                Scenarios::captureCrashMultiRow);
        add(
                "crash-at-commit",
                "kill -9 of Connect as transactions with a transactional logical message commit",
                DEFAULTS,
                Expect.NO_LOSS,
                Scenarios::crashAtCommit);
        add(
                "kafka-down",
                "the broker down for 15 s while the source writes: the slot never confirms past"
                        + " what Kafka acknowledged",
                DEFAULTS,
                Expect.NO_LOSS,
                Scenarios::kafkaDown);
        add(
                "sink-halt-after-commit",
                "the sink halts twice between its warehouse commit and its offset commit; deletes"
                        + " replayed stay deleted",
                DEFAULTS.sinkJvm(HALT_SINK_AFTER_4_COMMITS),
                Expect.NO_LOSS,
                Scenarios::sinkHaltAfterCommit);
        add(
                "slot-recreated",
                "the replication slot dropped and recreated while Connect is down",
                DEFAULTS,
                Expect.STOPS_LOUDLY,
                Scenarios::slotRecreated);
        add(
                "slot-invalidated",
                "the slot invalidated by max_slot_wal_keep_size while Connect is down",
                DEFAULTS.sql("CREATE TABLE chaos_filler (id bigserial PRIMARY KEY, v text)"),
                Expect.STOPS_LOUDLY,
                Scenarios::slotInvalidated);
        add(
                "idle-table-restart",
                "an idle captured table beside the busy one across a Connect restart: the slot"
                        + " advances, WAL retained stays bounded",
                DEFAULTS.sql(
                        "CREATE TABLE chaos_idle (id int PRIMARY KEY, v text)",
                        "INSERT INTO chaos_idle SELECT g, 'idle' FROM generate_series(1, 10) g"),
                Expect.NO_LOSS,
                Scenarios::idleTableRestart);
        add(
                "streams-kill-alos",
                "kill -9 of the Streams app twice during interval folds, at_least_once",
                DEFAULTS,
                Expect.NO_LOSS,
                Scenarios::streamsKill);
        add(
                "streams-kill-eos",
                "kill -9 of the Streams app twice during interval folds, exactly_once_v2",
                DEFAULTS.guarantee(NetChangeConfig.Guarantee.EXACTLY_ONCE_V2),
                Expect.NO_LOSS,
                Scenarios::streamsKill);
        add(
                "scale-out-takeover",
                "two Streams processes and two sinks share 4 partitions; one of each killed -9"
                        + " and not restarted: the others take over its partitions",
                DEFAULTS.scaledOut(2, 4),
                Expect.NO_LOSS,
                Scenarios::scaleOutTakeover);
        add(
                "scale-out-restart",
                "two Streams processes and two sinks share 4 partitions; one Streams process and"
                        + " the committing sink killed -9 and restarted, then, once the pipeline has"
                        + " recovered and both are back in their groups, the other two: no read"
                        + " shows part of a transaction",
                DEFAULTS.scaledOut(2, 4),
                Expect.NO_LOSS,
                Scenarios::scaleOutRestart);
        add(
                "cluster-leader-stop",
                "three Kafka nodes (replication factor 3, min.insync.replicas 2), two Streams"
                        + " processes and two sinks on 4 partitions: the node leading the"
                        + " net-change topic, then the one leading the change topic, stopped and"
                        + " started again under load",
                DEFAULTS.scaledOut(2, 4).kafkaNodes(3),
                Expect.NO_LOSS,
                lab -> clusterLeaderFault(lab, false));
        add(
                "cluster-leader-kill",
                "three Kafka nodes, each a process of its own, two Streams processes and two"
                        + " sinks on 4 partitions: the node leading the net-change topic, then the"
                        + " one leading the change topic, killed -9 and started again under load",
                DEFAULTS.scaledOut(2, 4).kafkaNodes(3),
                Expect.NO_LOSS,
                lab -> clusterLeaderFault(lab, true));
        add(
                "kafka-restart",
                "the broker restarted twice under load",
                DEFAULTS,
                Expect.NO_LOSS,
                Scenarios::kafkaRestart);
        add(
                "source-restart",
                "the source PostgreSQL restarted twice under load (fast shutdown, walsender"
                        + " terminated)",
                DEFAULTS,
                Expect.NO_LOSS,
                Scenarios::sourceRestart);
        add(
                "malformed-records",
                "garbage on the change topic and on the net-change topic: dead-lettered with"
                        + " their reason, the pipeline keeps running",
                DEFAULTS,
                Expect.NO_LOSS,
                Scenarios::malformedRecords);
        add(
                "toast-pk-update",
                "primary-key updates of rows with TOASTed values, and updates that leave them"
                        + " unchanged",
                DEFAULTS.sql(
                        "CREATE TABLE chaos_docs (id int PRIMARY KEY, n int, body text)",
                        "INSERT INTO chaos_docs SELECT g, 0, (SELECT string_agg(md5(random()::text"
                                + " || g || i), '') FROM generate_series(1, 250) i) FROM"
                                + " generate_series(1, 20) g"),
                Expect.NO_LOSS,
                Scenarios::toastPkUpdate);
        add(
                "truncate",
                "TRUNCATE and re-insert in one transaction, then the sink killed: the warehouse"
                        + " follows, and the replayed truncate removes nothing written after it",
                DEFAULTS.sql(
                        "CREATE TABLE chaos_trunc (id int PRIMARY KEY, v text)",
                        "INSERT INTO chaos_trunc SELECT g, 'x' FROM generate_series(1, 100) g"),
                Expect.NO_LOSS,
                Scenarios::truncate);
        add(
                "add-column-while-down",
                "ALTER TABLE ... ADD COLUMN ... DEFAULT while capture is stopped, then writes",
                DEFAULTS.sql(
                        "CREATE TABLE chaos_alter (id int PRIMARY KEY, v int)",
                        "INSERT INTO chaos_alter SELECT g, g FROM generate_series(1, 100) g"),
                Expect.NO_LOSS,
                Scenarios::addColumnWhileDown);
        add(
                "offsets-reset",
                "the connector stopped and its offsets deleted while the source moves and deletes"
                        + " rows, then resumed: it reads every table again, and the rows gone from"
                        + " the source leave the warehouse",
                DEFAULTS,
                Expect.NO_LOSS,
                Scenarios::offsetsReset);
    }

    private Scenarios() {}

    private static void add(
            String name,
            String description,
            ChaosLab.Options options,
            Expect expect,
            Scenario.Injection injection) {
        ALL.put(name, new Scenario(name, description, options, expect, injection));
    }

    /** Every scenario, in order. */
    public static List<Scenario> all() {
        return List.copyOf(ALL.values());
    }

    /**
     * The named scenarios.
     *
     * @throws IllegalArgumentException naming one that does not exist
     */
    public static List<Scenario> named(List<String> names) {
        return names.stream()
                .map(
                        n -> {
                            Scenario s = ALL.get(n.trim());
                            if (s == null) {
                                throw new IllegalArgumentException(
                                        "unknown scenario '"
                                                + n.trim()
                                                + "'; scenarios: "
                                                + String.join(", ", ALL.keySet()));
                            }
                            return s;
                        })
                .toList();
    }

    // ---- the scenarios -----------------------------------------------------------------------

    private static void connectKill(ChaosLab lab) throws Exception {
        awaitCommittedOffsets(lab);
        try (Connection open = lab.source()) {
            open.setAutoCommit(false);
            try (Statement s = open.createStatement()) {
                s.execute(
                        "INSERT INTO chaos_items (id, version, body) SELECT 1000000 + g, 1, 'open'"
                                + " FROM generate_series(1, 200) g");
            }
            lab.services().killConnect();
            lab.fault("Connect worker killed with a transaction open");
            // the writer commits transactions meanwhile; this one commits during the outage too
            sleep(2000);
            open.commit();
        }
        sleep(1000);
        lab.services().startConnect();
    }

    private static void captureCrashMultiRow(ChaosLab lab) throws Exception {
        awaitCommittedOffsets(lab);
        long before = lab.endOffset(lab.changeTopic());
        StringBuilder rows = new StringBuilder();
        for (int i = 1; i <= 50_000; i++) {
            rows.append(i).append('\t').append("row ").append(i).append('\n');
        }
        try (Connection c = lab.source()) {
            c.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyIn(
                            "COPY chaos_bulk (id, v) FROM STDIN",
                            new StringReader(rows.toString()));
        }
        Poll poll = Poll.within(Duration.ofSeconds(60)).every(Duration.ofMillis(20));
        while (lab.endOffset(lab.changeTopic()) - before < 5_000) {
            if (poll.expired()) {
                throw new CheckFailed("the COPY was not being captured within 60 s");
            }
            poll.pause();
        }
        long delivered = lab.endOffset(lab.changeTopic()) - before;
        lab.services().killConnect();
        lab.fault("Connect killed after " + delivered + " of the COPY's 50,000 change events");
        if (delivered >= 50_000) {
            throw new CheckFailed("the whole COPY was delivered before the kill; nothing tested");
        }
        poll.pause();
        lab.services().startConnect();
    }

    private static void crashAtCommit(ChaosLab lab) throws Exception {
        awaitCommittedOffsets(lab);
        for (int round = 0; round < 2; round++) {
            try (Connection c = lab.source()) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    int base = 2_000_000 + round * 1000;
                    s.execute(
                            "INSERT INTO chaos_items (id, version, body) SELECT "
                                    + base
                                    + " + g, 1, 'tx' FROM generate_series(1, 100) g");
                    s.execute("SELECT pg_logical_emit_message(true, 'cdclab-chaos', 'mid')");
                    s.execute(
                            "UPDATE chaos_items SET version = version + 1 WHERE id > "
                                    + base
                                    + " AND id <= "
                                    + (base + 50));
                }
                c.commit();
            }
            lab.services().killConnect();
            lab.fault("Connect killed as a transaction with a logical message committed");
            sleep(1000);
            lab.services().startConnect();
            sleep(3000);
        }
    }

    private static void kafkaDown(ChaosLab lab) throws Exception {
        awaitCommittedOffsets(lab);
        long acknowledged = committedLsn(lab);
        lab.services().stopKafka();
        lab.fault("Kafka broker stopped for 15 s");
        long worst = -1;
        Poll outage = Poll.within(Duration.ofSeconds(15)).every(Duration.ofMillis(500));
        while (!outage.expired()) {
            worst = Math.max(worst, confirmedFlush(lab));
            outage.pause();
        }
        lab.services().resumeKafka();
        if (worst > acknowledged) {
            throw new CheckFailed(
                    "the slot confirmed "
                            + Lsn.format(worst)
                            + " while Kafka was down, past the committed "
                            + Lsn.format(acknowledged));
        }
    }

    private static void sinkHaltAfterCommit(ChaosLab lab) throws Exception {
        for (int halt = 1; halt <= 2; halt++) {
            awaitExit(lab.sinkProcess(), Duration.ofSeconds(60));
            lab.fault("sink halted between a warehouse commit and its offset commit");
            sleep(1000);
            if (halt == 1) {
                lab.restartSink(HALT_SINK_AFTER_4_COMMITS);
            } else {
                lab.restartSink();
            }
        }
    }

    private static void slotRecreated(ChaosLab lab) throws Exception {
        awaitCommittedOffsets(lab);
        lab.services().killConnect();
        lab.fault("Connect killed");
        String slot = lab.slot();
        awaitSlotInactive(lab, slot);
        try (Connection c = lab.source();
                Statement s = c.createStatement()) {
            // in one statement: faster than the health check's once a second
            s.execute(
                    "SELECT pg_drop_replication_slot('"
                            + slot
                            + "'), pg_create_logical_replication_slot('"
                            + slot
                            + "', 'pgoutput')");
        }
        lab.fault("slot dropped and recreated");
        sleep(2000);
        lab.services().startConnect();
    }

    private static void slotInvalidated(ChaosLab lab) throws Exception {
        try (Connection c = lab.source();
                Statement s = c.createStatement()) {
            s.execute("ALTER SYSTEM SET max_slot_wal_keep_size = '64MB'");
            s.execute("SELECT pg_reload_conf()");
        }
        awaitCommittedOffsets(lab);
        lab.services().killConnect();
        lab.fault("Connect killed");
        String slot = lab.slot();
        awaitSlotInactive(lab, slot);
        Poll poll = Poll.within(Duration.ofSeconds(120));
        try (Connection c = lab.source();
                Statement s = c.createStatement()) {
            while (!"lost".equals(walStatus(c, slot))) {
                if (poll.expired()) {
                    throw new CheckFailed("the slot was not invalidated within 120 s");
                }
                s.execute(
                        "INSERT INTO chaos_filler (v) SELECT repeat(md5(g::text), 30) FROM"
                                + " generate_series(1, 20000) g");
                s.execute("SELECT pg_switch_wal()");
                s.execute("CHECKPOINT");
            }
        }
        lab.fault("slot invalidated");
        lab.services().startConnect();
    }

    private static void idleTableRestart(ChaosLab lab) throws Exception {
        sleep(3000);
        awaitCommittedOffsets(lab);
        lab.services().killConnect();
        lab.fault("Connect killed");
        sleep(1000);
        lab.services().startConnect();
        long atRestart = currentLsn(lab);
        Poll poll = Poll.within(Duration.ofSeconds(60)).every(Duration.ofMillis(500));
        while (confirmedFlush(lab) <= atRestart) {
            if (poll.expired()) {
                throw new CheckFailed("the slot did not advance within 60 s of the restart");
            }
            poll.pause();
        }
        long retained = retainedWal(lab);
        if (retained > 64L * 1024 * 1024) {
            throw new CheckFailed("the slot retains " + retained / (1024 * 1024) + " MiB of WAL");
        }
    }

    private static void streamsKill(ChaosLab lab) throws Exception {
        for (int i = 0; i < 2; i++) {
            // mid-interval: intervals are 500 ms, so a kill lands inside a fold
            sleep(3000 + 170L * i);
            lab.streamsProcess().kill();
            lab.fault("Streams app killed");
            sleep(1000);
            lab.streamsProcess().start();
        }
    }

    private static void scaleOutTakeover(ChaosLab lab) throws Exception {
        sleep(3000);
        lab.streamsProcess(1).kill();
        lab.fault("Streams process 2 of 2 killed, not restarted");
        sleep(1000);
        lab.sinkProcess(1).kill();
        lab.fault("sink 2 of 2 killed, not restarted");
    }

    private static void scaleOutRestart(ChaosLab lab) throws Exception {
        for (int i = 0; i < 2; i++) {
            sleep(3000 + 170L * i);
            Set<String> members = lab.groupMembers();
            // the first sink started alone and took the committer lock; after it, the other
            lab.sinkProcess(i).kill();
            lab.streamsProcess(i).kill();
            lab.fault("sink " + (i + 1) + " of 2 and Streams process " + (i + 1) + " killed");
            sleep(1000);
            lab.streamsProcess(i).start();
            lab.sinkProcess(i).start();
            if (i == 0) {
                // each round's recovery on its own: a second kill while the first restart is
                // still starting would take down both instances of a stage at once
                lab.awaitRecovery();
                lab.awaitRejoined(members);
            }
        }
    }

    private static void clusterLeaderFault(ChaosLab lab, boolean kill) throws Exception {
        String[] topics = {lab.netChangeTopic(), lab.changeTopic()};
        for (String topic : topics) {
            sleep(3000);
            int leader = lab.services().kafkaLeader(topic, 0);
            if (kill) {
                lab.services().killKafkaNode(leader);
            } else {
                lab.services().stopKafkaNode(leader);
            }
            lab.fault(
                    "Kafka node "
                            + leader
                            + ", leader of "
                            + topic
                            + "-0, "
                            + (kill ? "killed -9" : "stopped"));
            // killed, a node's partitions move once the controller has fenced it (its session,
            // 9 s, expires): it stays down past that
            sleep(kill ? 12_000 : 5000);
            lab.services().resumeKafka();
        }
    }

    private static void kafkaRestart(ChaosLab lab) throws Exception {
        for (int i = 0; i < 2; i++) {
            sleep(3000);
            lab.services().stopKafka();
            lab.fault("Kafka broker restarted");
            lab.services().resumeKafka();
        }
    }

    private static void sourceRestart(ChaosLab lab) throws Exception {
        for (int i = 0; i < 2; i++) {
            sleep(3000);
            lab.services().restartSource();
            lab.fault("source restarted (fast shutdown)");
        }
    }

    private static void malformedRecords(ChaosLab lab) throws Exception {
        lab.produce(
                lab.changeTopic(),
                "{\"not\":\"a key\"".getBytes(StandardCharsets.UTF_8),
                "not json at all {".getBytes(StandardCharsets.UTF_8));
        lab.fault("malformed record on the change topic");
        lab.produce(
                lab.netChangeTopic(),
                "public.chaos_items/{\"id\":1}".getBytes(StandardCharsets.UTF_8),
                new byte[] {0, 1, 2, 3});
        lab.fault("malformed record on the net-change topic");
        String streamsDlq = lab.pipeline().netChangeConfig().deadLetterTopic();
        String sinkDlq = lab.pipeline().sinkConfig().deadLetterTopic();
        Poll poll = Poll.within(Duration.ofSeconds(60)).every(Duration.ofMillis(500));
        while (lab.recordsOn(streamsDlq) < 1 || lab.recordsOn(sinkDlq) < 1) {
            if (poll.expired()) {
                throw new CheckFailed(
                        "dead letters after 60 s: streams "
                                + lab.recordsOn(streamsDlq)
                                + ", sink "
                                + lab.recordsOn(sinkDlq));
            }
            poll.pause();
        }
    }

    private static void toastPkUpdate(ChaosLab lab) throws Exception {
        try (Connection c = lab.source();
                Statement s = c.createStatement()) {
            s.execute("UPDATE chaos_docs SET n = n + 1 WHERE id <= 10");
            s.execute("UPDATE chaos_docs SET id = id + 1000 WHERE id IN (11, 12)");
            s.execute("UPDATE chaos_docs SET id = id + 2000, n = n + 1 WHERE id = 13");
            s.execute("UPDATE chaos_docs SET n = n + 1 WHERE id = 1011");
            // a key moved twice, and a key moved after its value changed, each in one transaction
            c.setAutoCommit(false);
            s.execute("UPDATE chaos_docs SET id = 1015 WHERE id = 15");
            s.execute("UPDATE chaos_docs SET id = 2015 WHERE id = 1015");
            c.commit();
            s.execute("UPDATE chaos_docs SET body = body || 'changed' WHERE id = 16");
            s.execute("UPDATE chaos_docs SET id = 1016 WHERE id = 16");
            c.commit();
        }
        lab.fault("TOAST-bearing rows updated (key changed, value unchanged)");
    }

    private static void truncate(ChaosLab lab) throws Exception {
        try (Connection c = lab.source();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("TRUNCATE chaos_trunc");
            s.execute("INSERT INTO chaos_trunc SELECT g, 'again' FROM generate_series(1, 50) g");
            c.commit();
            c.setAutoCommit(true);
            s.execute("INSERT INTO chaos_trunc VALUES (51, 'after')");
        }
        lab.fault("TRUNCATE chaos_trunc and re-insert, in one transaction");
        sleep(1500);
        lab.sinkProcess().kill();
        lab.fault("sink killed: it replays the truncate");
        lab.restartSink();
    }

    private static void addColumnWhileDown(ChaosLab lab) throws Exception {
        awaitCommittedOffsets(lab);
        lab.services().killConnect();
        lab.fault("Connect killed");
        try (Connection c = lab.source();
                Statement s = c.createStatement()) {
            s.execute("ALTER TABLE chaos_alter ADD COLUMN extra int NOT NULL DEFAULT 7");
            s.execute("UPDATE chaos_alter SET v = v + 1 WHERE id <= 10");
            s.execute("INSERT INTO chaos_alter (id, v, extra) VALUES (101, 101, 8)");
        }
        lab.fault("column added with a default while capture was down");
        lab.services().startConnect();
    }

    private static void offsetsReset(ChaosLab lab) throws Exception {
        awaitCommittedOffsets(lab);
        ConnectRestClient rest = connectRest(lab);
        String connector = connectorName(lab);
        rest.stop(connector);
        Poll poll = Poll.within(Duration.ofSeconds(60)).every(Duration.ofMillis(100));
        while (!"STOPPED".equals(rest.status(connector).connector())) {
            if (poll.expired()) {
                throw new CheckFailed("connector not stopped within 60 s");
            }
            poll.pause();
        }
        rest.resetOffsets(connector);
        lab.fault("connector stopped and its offsets deleted");
        // the writer moves accounts to new keys meanwhile: the old keys are deleted
        sleep(2000);
        rest.resume(connector);
    }

    // ---- helpers -----------------------------------------------------------------------------

    /**
     * Waits for the connector's first offset commit, so that the scenario kills a connector that
     * resumes from a position. Killed before it, the connector starts over with a new snapshot
     * ({@code SnapshotAgainIT} tests that; docs/limits.md says what it does not cover).
     */
    private static void awaitCommittedOffsets(ChaosLab lab) {
        Poll poll = Poll.within(Duration.ofSeconds(60)).every(Duration.ofMillis(200));
        while (committedLsn(lab) < 0) {
            if (poll.expired()) {
                throw new CheckFailed("no committed offsets within 60 s");
            }
            poll.pause();
        }
    }

    /** The highest LSN in the connector's committed offsets; -1 before its first commit. */
    private static long committedLsn(ChaosLab lab) {
        long lsn = -1;
        for (var o : connectRest(lab).offsets(connectorName(lab))) {
            for (String f : new String[] {"lsn", "lsn_commit", "lsn_proc"}) {
                lsn = Math.max(lsn, o.path(f).asLong(-1));
            }
        }
        return lsn;
    }

    private static ConnectRestClient connectRest(ChaosLab lab) {
        return new ConnectRestClient(lab.pipeline().infrastructure().connectUrl());
    }

    private static String connectorName(ChaosLab lab) {
        return lab.pipeline().captureConfig().get(dev.cdclab.capture.CaptureConfig.CONNECTOR_NAME);
    }

    private static void awaitExit(dev.cdclab.orchestration.infra.ChildJvm p, Duration timeout) {
        Poll poll = Poll.within(timeout).every(Duration.ofMillis(100));
        while (p.alive()) {
            if (poll.expired()) {
                throw new CheckFailed(
                        p.name() + " did not halt within " + timeout.toSeconds() + " s");
            }
            poll.pause();
        }
    }

    private static void awaitSlotInactive(ChaosLab lab, String slot) throws SQLException {
        Poll poll = Poll.within(Duration.ofSeconds(30)).every(Duration.ofMillis(200));
        try (Connection c = lab.source();
                Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs =
                        s.executeQuery(
                                "SELECT active FROM pg_replication_slots WHERE slot_name = '"
                                        + slot
                                        + "'")) {
                    if (!rs.next() || !rs.getBoolean(1)) {
                        return;
                    }
                }
                if (poll.expired()) {
                    throw new CheckFailed("slot " + slot + " still active 30 s after the kill");
                }
                poll.pause();
            }
        }
    }

    private static String walStatus(Connection c, String slot) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT wal_status FROM pg_replication_slots WHERE slot_name = '"
                                        + slot
                                        + "'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static long confirmedFlush(ChaosLab lab) throws SQLException {
        return lsnQuery(
                lab,
                "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
                        + lab.slot()
                        + "'");
    }

    private static long currentLsn(ChaosLab lab) throws SQLException {
        return lsnQuery(lab, "SELECT pg_current_wal_lsn()::text");
    }

    private static long retainedWal(ChaosLab lab) throws SQLException {
        try (Connection c = lab.source();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint"
                                        + " FROM pg_replication_slots WHERE slot_name = '"
                                        + lab.slot()
                                        + "'")) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    private static long lsnQuery(ChaosLab lab, String sql) throws SQLException {
        try (Connection c = lab.source();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() && rs.getString(1) != null ? Lsn.parse(rs.getString(1)) : -1;
        }
    }
}
