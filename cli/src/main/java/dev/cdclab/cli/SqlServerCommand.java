package dev.cdclab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cdclab.capture.CaptureConfig;
import dev.cdclab.capture.CaptureSource;
import dev.cdclab.capture.ConnectRestClient;
import dev.cdclab.capture.SqlServerCapture;
import dev.cdclab.capture.SqlServerScript;
import dev.cdclab.config.Durations;
import dev.cdclab.config.SourceKind;
import dev.cdclab.load.dialect.SqlServerDialect;
import dev.cdclab.load.workload.Workload;
import dev.cdclab.load.workload.WorkloadOptions;
import dev.cdclab.load.workload.Workloads;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cdc-lab sqlserver}: SQL Server's side of capture, for a DBA to read and run. */
@Command(
        name = "sqlserver",
        mixinStandardHelpOptions = true,
        description = "SQL Server change data capture: the setup script, and schema changes.",
        subcommands = {SqlServerCommand.Script.class, SqlServerCommand.SwitchInstance.class})
final class SqlServerCommand {

    /** The capture settings the subcommands share. */
    static final class CaptureKnobs {
        @Option(
                names = "--database",
                defaultValue = "cdclab",
                description = "Database (default: ${DEFAULT-VALUE}).")
        String database;

        @Option(names = "--maxtrans", description = "Capture job @maxtrans (default 500).")
        Integer maxtrans;

        @Option(names = "--maxscans", description = "Capture job @maxscans (default 10).")
        Integer maxscans;

        @Option(
                names = "--pollinginterval",
                paramLabel = "SECONDS",
                description = "Capture job @pollinginterval in seconds (default 5).")
        Integer pollinginterval;

        @Option(
                names = "--captured-columns",
                paramLabel = "COLUMNS",
                description =
                        "Columns to capture ('a,b,c' for every table, or 'table:a,b;other:c');"
                                + " include the key columns.")
        String capturedColumns;

        @Option(
                names = "--supports-net-changes",
                description = "@supports_net_changes = 1 (to reproduce the white paper's table 7).")
        boolean netChanges;

        @Option(
                names = "--filegroup",
                paramLabel = "FG",
                description = "Filegroup of the change tables, created when missing.")
        String filegroup;

        @Option(names = "--role", description = "Gating role (@role_name); default none.")
        String role;

        @Option(
                names = "--partitions",
                defaultValue = "1",
                description = "Partitions of <prefix>.changes: one heartbeat row each.")
        int partitions;

        @Option(
                names = "--topic-prefix",
                defaultValue = "cdclab",
                description = "The connector's topic.prefix (heartbeat rows are placed by it).")
        String topicPrefix;

        @Mixin StageOptions stage;

        CaptureConfig config(Map<String, String> more) {
            Map<String, String> explicit = new LinkedHashMap<>(more);
            explicit.put(CaptureConfig.SOURCE_KIND.key(), SourceKind.SQLSERVER.name());
            explicit.put(CaptureConfig.DATABASE.key(), database);
            explicit.put(CaptureConfig.PARTITIONS.key(), Integer.toString(partitions));
            explicit.put(CaptureConfig.TOPIC_PREFIX.key(), topicPrefix);
            put(explicit, CaptureConfig.SQLSERVER_MAXTRANS, maxtrans);
            put(explicit, CaptureConfig.SQLSERVER_MAXSCANS, maxscans);
            if (pollinginterval != null) {
                explicit.put(CaptureConfig.SQLSERVER_POLLINGINTERVAL.key(), pollinginterval + "s");
            }
            put(explicit, CaptureConfig.CAPTURED_COLUMNS, capturedColumns);
            if (netChanges) {
                explicit.put(CaptureConfig.SQLSERVER_NET_CHANGES.key(), "true");
            }
            put(explicit, CaptureConfig.SQLSERVER_FILEGROUP, filegroup);
            put(explicit, CaptureConfig.SQLSERVER_ROLE, role);
            return new CaptureConfig(stage.build(CaptureConfig.builder(), explicit));
        }

        private static void put(
                Map<String, String> m, dev.cdclab.config.ConfigOption<?> o, Object v) {
            if (v != null) {
                m.put(o.key(), v.toString());
            }
        }
    }

    @Command(
            name = "script",
            mixinStandardHelpOptions = true,
            description = {
                "Print the T-SQL the pipeline runs on SQL Server: with --workload, the workload's"
                        + " tables and triggers; then CDC on the database, the heartbeat table,"
                        + " CDC on each table, and the capture and cleanup jobs' settings, applied"
                        + " by stopping and starting the capture job. Nothing is run.",
                "Run it as a sysadmin with SQL Server Agent running."
            })
    static final class Script implements Callable<Integer> {
        @Mixin CaptureKnobs knobs;

        @Option(
                names = "--workload",
                description =
                        "A workload whose tables to create and capture: ${COMPLETION-CANDIDATES}.",
                completionCandidates = RunCommand.WorkloadNames.class)
        String workload;

        @Option(
                names = "--tables",
                paramLabel = "TABLES",
                description = "Tables to capture (schema.table,...), instead of a workload's.")
        String tables;

        @Override
        public Integer call() throws Exception {
            if ((workload == null) == (tables == null)) {
                throw new IllegalArgumentException("name either --workload or --tables");
            }
            Map<String, String> extra = new LinkedHashMap<>();
            if (tables != null) {
                extra.put(CaptureConfig.TABLES.key(), tables);
            }
            CaptureConfig c = knobs.config(extra);
            List<String> batches = new ArrayList<>();
            List<SqlServerScript.Table> captured = new ArrayList<>();
            if (workload != null) {
                Workload wl =
                        Workloads.create(
                                workload,
                                new SqlServerDialect(),
                                new WorkloadOptions(42, -1, -1, -1, 100));
                wl.createSchema(recorder(batches));
                for (String t : wl.tables()) {
                    captured.add(new SqlServerScript.Table("dbo", t, c.capturedColumns("dbo", t)));
                }
            } else {
                captured.addAll(((SqlServerCapture) CaptureSource.of(c)).namedTables());
            }
            SqlServerCapture capture = (SqlServerCapture) CaptureSource.of(c);
            batches.addAll(
                    SqlServerScript.setup(
                            SqlServerScript.Options.of(c), capture.heartbeatRowIds(), captured));
            System.out.print(SqlServerScript.text(c.get(CaptureConfig.DATABASE), batches));
            return 0;
        }

        /** A connection that only keeps the statements it is given. */
        private static Connection recorder(List<String> sql) {
            Statement st =
                    (Statement)
                            Proxy.newProxyInstance(
                                    Statement.class.getClassLoader(),
                                    new Class<?>[] {Statement.class},
                                    (p, m, a) -> {
                                        if (m.getName().equals("execute")) {
                                            sql.add(a[0] + ";");
                                            return false;
                                        }
                                        return null;
                                    });
            return (Connection)
                    Proxy.newProxyInstance(
                            Connection.class.getClassLoader(),
                            new Class<?>[] {Connection.class},
                            (p, m, a) -> m.getName().equals("createStatement") ? st : null);
        }
    }

    @Command(
            name = "switch-capture-instance",
            mixinStandardHelpOptions = true,
            description = {
                "A schema change without losing a row, as the white paper and Debezium describe"
                        + " it: after ALTER TABLE, create a second capture instance for the table,"
                        + " wait until the connector's committed position has passed where it"
                        + " starts, then disable the old one.",
                "The password comes from CDCLAB_SOURCE_PASSWORD."
            })
    static final class SwitchInstance implements Callable<Integer> {
        @Option(names = "--table", required = true, description = "schema.table")
        String table;

        @Option(
                names = "--source-host",
                defaultValue = "127.0.0.1",
                description = "SQL Server host (default: ${DEFAULT-VALUE}).")
        String host;

        @Option(names = "--source-port", defaultValue = "1433", description = "SQL Server port.")
        int port;

        @Option(names = "--source-user", defaultValue = "sa", description = "SQL Server user.")
        String user;

        @Option(
                names = "--connect-url",
                required = true,
                description = "REST URL of the Connect cluster the connector runs on.")
        String connectUrl;

        @Option(names = "--connector", required = true, description = "The connector's name.")
        String connector;

        @Option(
                names = "--timeout",
                defaultValue = "5m",
                converter = Commands.DurationConverter.class,
                description =
                        "How long to wait for the connector to pass the switch (default: ${DEFAULT-VALUE}).")
        Duration timeout;

        @Mixin CaptureKnobs knobs;

        @Override
        public Integer call() {
            PrintStream out = System.out;
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put(CaptureConfig.HOST.key(), host);
            extra.put(CaptureConfig.PORT.key(), Integer.toString(port));
            extra.put(CaptureConfig.USER.key(), user);
            SqlServerCapture capture = (SqlServerCapture) CaptureSource.of(knobs.config(extra));
            ConnectRestClient rest = new ConnectRestClient(connectUrl);
            SqlServerCapture.Switch s =
                    capture.switchCaptureInstance(
                            table, () -> committedCommitLsn(rest, connector), timeout);
            out.printf(
                    "capture instance of %s switched from %s to %s (starts at %s), within %s%n",
                    table,
                    s.oldInstance(),
                    s.newInstance(),
                    s.newStartLsn(),
                    Durations.format(timeout));
            return 0;
        }
    }

    /** The connector's committed {@code commit_lsn}, or null while it has none. */
    static String committedCommitLsn(ConnectRestClient rest, String connector) {
        for (JsonNode offset : rest.offsets(connector)) {
            JsonNode lsn = offset.get("commit_lsn");
            if (lsn != null && lsn.isTextual() && !"NULL".equals(lsn.asText())) {
                return lsn.asText();
            }
        }
        return null;
    }
}
