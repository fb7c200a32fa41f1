package dev.cdclab.chaos.fuzz;

import dev.cdclab.chaos.fuzz.FuzzPipeline.Fault;
import dev.cdclab.orchestration.verify.TableResult;
import dev.cdclab.orchestration.verify.VerificationResult;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code cdc-lab fuzz}: a differential test in the manner of SQLancer and Jepsen. From a seed it
 * generates tables and transactions, writes them to the source while faults hit the pipeline, and
 * at each quiet point compares the warehouse with the source through {@code verify} and through a
 * comparison of its own ({@link RowComparison}). A difference is shrunk to a smaller SQL script
 * that still shows it, replayed on tables of their own in the same pipeline.
 */
public final class FuzzRunner {
    private static final Logger LOG = LoggerFactory.getLogger(FuzzRunner.class);
    private static final Duration CATCH_UP = Duration.ofMinutes(10);

    /** Which warehouse the fuzzer writes to. */
    public enum Warehouse {
        DUCKDB,
        POSTGRESQL
    }

    /**
     * What to run.
     *
     * @param seed decides every table and statement
     * @param duration how long to write
     * @param warehouse which warehouse
     * @param faults whether to kill and restart the pipeline's parts while it writes
     * @param shrink whether to shrink a difference found to a smaller script
     * @param checkEvery how long between two comparisons
     * @param replay a script written by an earlier run to run again instead of generating one; null
     *     to generate
     */
    public record Options(
            long seed,
            Duration duration,
            Warehouse warehouse,
            boolean faults,
            boolean shrink,
            Duration checkEvery,
            Path replay) {}

    /** What a run did and found. */
    public record Result(
            long seed,
            int transactions,
            int refused,
            int statements,
            Map<String, Integer> byKind,
            Map<String, Integer> faults,
            int checks,
            long rowsCompared,
            List<String> differences,
            List<String> script,
            String settings) {

        /** True when no check found a difference. */
        public boolean passed() {
            return differences.isEmpty();
        }
    }

    private final Options options;
    private final Path work;
    private final String runId;
    private final String stageMain;
    private final PrintStream out;
    private final Random r;
    private final String prefix;
    private final FuzzTransactions gen;
    private FuzzSchema schema = new FuzzSchema();
    private final List<String> setup = new ArrayList<>();
    private final List<List<String>> committed = new ArrayList<>();
    private final Map<Fault, Integer> faults = new EnumMap<>(Fault.class);
    private int transactions;
    private int refused;
    private int checks;
    private long rowsCompared;

    private FuzzRunner(
            Options options, Path work, String runId, String stageMain, PrintStream out) {
        this.options = options;
        this.work = work;
        this.runId = runId;
        this.stageMain = stageMain;
        this.out = out;
        this.r = new Random(options.seed());
        this.prefix = "fz" + Long.toHexString(options.seed() & 0xffffffL);
        this.gen = new FuzzTransactions(r, prefix, true);
    }

    /** Runs the fuzzer and says what it found. */
    public static Result run(
            Options options, Path work, String runId, String stageMain, PrintStream out) {
        return new FuzzRunner(options, work, runId, stageMain, out).run();
    }

    private Result run() {
        // the setup: an enum type, tables, and rows the initial snapshot reads
        setup.add(FuzzType.ENUM_DDL);
        int tables = 2 + r.nextInt(3);
        for (int i = 0; i < tables; i++) {
            setup.addAll(schema.newTable(r, prefix, 2 + r.nextInt(8)));
        }
        FuzzTransactions seedRows = new FuzzTransactions(r, prefix, false);
        for (int i = 0; i < 3; i++) {
            for (var st : seedRows.next(schema)) {
                setup.add(st.sql());
            }
        }
        List<List<String>> replayed = List.of();
        if (options.replay() != null) {
            replayed = readScript(options.replay());
        }
        int partitions = r.nextInt(3) == 0 ? 2 : 1;
        int instances =
                options.warehouse() == Warehouse.POSTGRESQL && partitions == 2
                        ? 1 + r.nextInt(2)
                        : 1;
        Duration interval = r.nextInt(4) == 0 ? Duration.ofMillis(200) : Duration.ZERO;
        String settings =
                String.format(
                        Locale.ROOT,
                        "%s warehouse, %d partition(s), %d Streams process(es) and sink(s),"
                                + " interval %s, faults %s",
                        options.warehouse().name().toLowerCase(Locale.ROOT),
                        partitions,
                        instances,
                        interval.isZero()
                                ? "0 (a window per transaction)"
                                : interval.toMillis() + "ms",
                        options.faults() ? "on" : "off");
        out.println("fuzz seed " + options.seed() + ": " + settings);
        List<String> differences = new ArrayList<>();
        List<String> script = List.of();
        try (FuzzPipeline p =
                FuzzPipeline.start(
                        work,
                        runId,
                        stageMain,
                        options.warehouse(),
                        partitions,
                        instances,
                        interval,
                        src -> {
                            try (Connection c = src.connect();
                                    Statement s = c.createStatement()) {
                                for (String sql : setup) {
                                    s.execute(sql);
                                }
                            }
                        })) {
            for (List<String> tx : replayed) {
                try {
                    p.sourceSql(tx);
                    committed.add(tx);
                    transactions++;
                } catch (SQLException e) {
                    refused++;
                }
            }
            long end =
                    System.nanoTime()
                            + (options.replay() == null ? options.duration().toNanos() : 0);
            long nextCheck = System.nanoTime() + options.checkEvery().toNanos();
            while (System.nanoTime() < end && differences.isEmpty()) {
                write(p);
                if (options.faults() && r.nextInt(40) == 0) {
                    Fault f = Fault.values()[r.nextInt(Fault.values().length)];
                    p.inject(f, r);
                    faults.merge(f, 1, Integer::sum);
                }
                if (System.nanoTime() >= nextCheck) {
                    differences.addAll(check(p));
                    nextCheck = System.nanoTime() + options.checkEvery().toNanos();
                }
            }
            if (differences.isEmpty()) {
                differences.addAll(check(p));
            }
            if (!differences.isEmpty()) {
                out.println("DIFFERENT after " + transactions + " transactions:");
                differences.forEach(d -> out.println("  " + d));
                Path whole = writeScript("script.sql", scriptOf(committed));
                out.println("the whole script: " + whole + " (run it again with --replay)");
                script = options.shrink() ? shrink(p) : scriptOf(committed);
                if (options.shrink()) {
                    writeScript("shrunk.sql", script);
                }
                out.println("script (" + script.size() + " statements):");
                script.forEach(s -> out.println("  " + s + ";"));
            }
        } catch (RuntimeException | SQLException e) {
            LOG.error("fuzz seed {} stopped", options.seed(), e);
            differences.add("the pipeline stopped: " + oneLine(e));
            out.println("STOPPED after " + transactions + " transactions: " + oneLine(e));
            script = scriptOf(committed);
            Path whole = writeScript("script.sql", script);
            out.println("the whole script: " + whole + " (run it again with --replay)");
        }
        Map<String, Integer> byKind = new LinkedHashMap<>();
        gen.counts().forEach((k, v) -> byKind.put(k.name().toLowerCase(Locale.ROOT), v));
        Map<String, Integer> f = new LinkedHashMap<>();
        faults.forEach((k, v) -> f.put(k.name().toLowerCase(Locale.ROOT), v));
        return new Result(
                options.seed(),
                transactions,
                refused,
                byKind.values().stream().mapToInt(Integer::intValue).sum(),
                byKind,
                f,
                checks,
                rowsCompared,
                differences,
                script,
                settings);
    }

    /** Writes one generated transaction; the source refusing it rolls the belief back too. */
    private void write(FuzzPipeline p) throws SQLException {
        FuzzSchema before = schema.copy();
        List<FuzzTransactions.Statement> tx = gen.next(schema);
        if (tx.isEmpty()) {
            return;
        }
        List<String> sql = tx.stream().map(FuzzTransactions.Statement::sql).toList();
        try {
            p.sourceSql(sql);
            committed.add(sql);
            transactions++;
        } catch (SQLException e) {
            schema = before;
            refused++;
            LOG.debug("the source refused a transaction: {}", oneLine(e));
        }
    }

    /** Waits until the warehouse caught up, then compares it with the source both ways. */
    private List<String> check(FuzzPipeline p) throws SQLException {
        long t0 = System.nanoTime();
        p.awaitCaughtUp(CATCH_UP);
        List<String> found =
                p.withWarehouse(
                        () -> {
                            List<String> diffs = new ArrayList<>();
                            VerificationResult v = p.verify();
                            for (TableResult t : v.tables()) {
                                if (t.skipped() == null && !t.matches()) {
                                    diffs.add("verify: " + t.table() + ": " + t.differences());
                                }
                            }
                            RowComparison rows = new RowComparison(p.kind() == Warehouse.DUCKDB);
                            try (Connection src = p.source();
                                    Connection wh = p.warehouse()) {
                                for (String table : tables(src, prefix)) {
                                    rowsCompared += count(src, table);
                                    for (String d : rows.compare(src, wh, table, 5)) {
                                        diffs.add("rows: " + d);
                                    }
                                }
                            }
                            return diffs;
                        });
        checks++;
        out.printf(
                Locale.ROOT,
                "check %d: %d transactions (%d refused by the source), %d tables, %s, %.1f s%n",
                checks,
                transactions,
                refused,
                schema.tables.size(),
                found.isEmpty() ? "equal" : found.size() + " difference(s)",
                (System.nanoTime() - t0) / 1e9);
        return found;
    }

    private static long count(Connection c, String table) {
        try (Statement s = c.createStatement();
                var rs =
                        s.executeQuery(
                                "SELECT count(*) FROM public.\""
                                        + table.replace("\"", "\"\"")
                                        + "\"")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            return 0;
        }
    }

    private List<String> scriptOf(List<List<String>> txs) {
        List<String> out = new ArrayList<>(setup);
        for (List<String> tx : txs) {
            out.add("BEGIN");
            out.addAll(tx);
            out.add("COMMIT");
        }
        return out;
    }

    /**
     * The smallest script found that still shows a difference: the setup and a subset of the
     * committed transactions, replayed on tables of their own (another prefix) in the running
     * pipeline, without faults.
     */
    private List<String> shrink(FuzzPipeline p) {
        if (options.faults() && !replayDiffers(p, committed, prefix + "s0")) {
            // no subset can show it: the difference needs the faults' timing
            out.println(
                    "replayed without faults, the whole script lands equal: the difference came"
                            + " with the faults "
                            + faults
                            + "; not shrunk");
            return scriptOf(committed);
        }
        out.println("shrinking " + committed.size() + " transactions ...");
        int[] attempt = {0};
        List<List<String>> min =
                Shrinker.minimize(
                        committed,
                        candidate -> {
                            attempt[0]++;
                            String own = prefix + "s" + attempt[0];
                            boolean differs = replayDiffers(p, candidate, own);
                            LOG.info(
                                    "shrink attempt {}: {} transactions, {}",
                                    attempt[0],
                                    candidate.size(),
                                    differs ? "differs" : "equal");
                            return differs;
                        },
                        60);
        out.println("shrunk to " + min.size() + " transaction(s) in " + attempt[0] + " replays");
        return scriptOf(min);
    }

    /** Whether the transactions, replayed on tables named with {@code own}, show a difference. */
    private boolean replayDiffers(FuzzPipeline p, List<List<String>> txs, String own) {
        try {
            try (Connection c = p.source();
                    Statement s = c.createStatement()) {
                for (String sql : setup) {
                    s.execute(sql.replace(prefix + "_t", own + "_t"));
                }
            }
            for (List<String> tx : txs) {
                try {
                    p.sourceSql(
                            tx.stream()
                                    .map(sql -> sql.replace(prefix + "_t", own + "_t"))
                                    .toList());
                } catch (SQLException refusedAtSource) {
                    // without the transactions left out, this one may fail: so be it
                }
            }
            p.awaitCaughtUp(CATCH_UP);
            return p.withWarehouse(
                    () -> {
                        for (TableResult t : p.verify().tables()) {
                            if (t.table().contains(own + "_t")
                                    && t.skipped() == null
                                    && !t.matches()) {
                                return true;
                            }
                        }
                        RowComparison rows = new RowComparison(p.kind() == Warehouse.DUCKDB);
                        try (Connection src = p.source();
                                Connection wh = p.warehouse()) {
                            for (String table : tables(src, own)) {
                                if (!rows.compare(src, wh, table, 1).isEmpty()) {
                                    return true;
                                }
                            }
                        }
                        return false;
                    });
        } catch (SQLException | RuntimeException e) {
            LOG.info("shrink replay failed: {}", oneLine(e));
            return false;
        }
    }

    /** The source's tables named with {@code own}, partitions left out. */
    private static List<String> tables(Connection src, String own) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = src.createStatement();
                var rs =
                        s.executeQuery(
                                "SELECT relname FROM pg_class WHERE relname LIKE '"
                                        + own
                                        + "\\_t%' AND relkind IN ('r', 'p') AND NOT"
                                        + " relispartition AND relnamespace = 'public'::regnamespace"
                                        + " ORDER BY relname")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private Path writeScript(String name, List<String> script) {
        Path file = work.resolve(name);
        try {
            Files.createDirectories(work);
            Files.writeString(
                    file,
                    "-- cdc-lab fuzz --seed "
                            + options.seed()
                            + "\n"
                            + String.join(";\n", script)
                            + ";\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /**
     * A script as {@link #writeScript} wrote it: the statements before the first {@code BEGIN}
     * become the setup, each {@code BEGIN} ... {@code COMMIT} a transaction.
     */
    private List<List<String>> readScript(Path file) {
        List<String> statements;
        try {
            statements = ScriptStatements.split(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        setup.clear();
        List<List<String>> txs = new ArrayList<>();
        List<String> tx = null;
        for (String st : statements) {
            if (st.equalsIgnoreCase("BEGIN")) {
                tx = new ArrayList<>();
            } else if (st.equalsIgnoreCase("COMMIT")) {
                if (tx != null) {
                    txs.add(tx);
                }
                tx = null;
            } else if (tx != null) {
                tx.add(st);
            } else if (txs.isEmpty()) {
                setup.add(st);
            }
        }
        return txs;
    }

    private static String oneLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
