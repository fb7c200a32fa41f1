package dev.cdclab.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The T-SQL that readies a SQL Server database for capture, as the white paper tunes it: CDC on the
 * database (and a filegroup for the change tables when asked), the heartbeat table, CDC on each
 * table with {@code @captured_column_list} and {@code @supports_net_changes}, the capture job's
 * {@code maxtrans}, {@code maxscans}, {@code continuous} and {@code pollinginterval} and the
 * cleanup job's retention and threshold, applied by stopping and starting the job. Each batch is
 * one JDBC execution; printed with {@code GO} between them it is the script a DBA can read and run.
 */
public final class SqlServerScript {
    private SqlServerScript() {}

    /**
     * A table to capture.
     *
     * @param schema its schema
     * @param name its name
     * @param capturedColumns the columns to capture, null for all
     */
    public record Table(String schema, String name, List<String> capturedColumns) {
        /** {@code schema_name}, SQL Server's default capture instance name. */
        public String defaultCaptureInstance() {
            return schema + "_" + name;
        }
    }

    /**
     * The settings a script is written for.
     *
     * @param supportsNetChanges {@code @supports_net_changes}
     * @param filegroup filegroup of the change tables, or null
     * @param role gating role, or null
     * @param maxtrans capture job {@code @maxtrans}
     * @param maxscans capture job {@code @maxscans}
     * @param continuous capture job {@code @continuous}
     * @param pollingIntervalSeconds capture job {@code @pollinginterval}, seconds
     * @param retentionMinutes cleanup job {@code @retention}, minutes
     * @param threshold cleanup job {@code @threshold}
     */
    public record Options(
            boolean supportsNetChanges,
            String filegroup,
            String role,
            int maxtrans,
            int maxscans,
            boolean continuous,
            long pollingIntervalSeconds,
            long retentionMinutes,
            int threshold) {

        /** The options a capture configuration sets. */
        public static Options of(CaptureConfig c) {
            return new Options(
                    c.get(CaptureConfig.SQLSERVER_NET_CHANGES),
                    c.get(CaptureConfig.SQLSERVER_FILEGROUP),
                    c.get(CaptureConfig.SQLSERVER_ROLE),
                    c.get(CaptureConfig.SQLSERVER_MAXTRANS),
                    c.get(CaptureConfig.SQLSERVER_MAXSCANS),
                    c.get(CaptureConfig.SQLSERVER_CONTINUOUS),
                    c.get(CaptureConfig.SQLSERVER_POLLINGINTERVAL).toSeconds(),
                    c.get(CaptureConfig.SQLSERVER_RETENTION).toMinutes(),
                    c.get(CaptureConfig.SQLSERVER_THRESHOLD));
        }
    }

    /** The whole setup, in the order it runs. */
    public static List<String> setup(Options o, List<Integer> heartbeatIds, List<Table> tables) {
        List<String> batches = new ArrayList<>();
        batches.add(enableDatabase());
        if (o.filegroup() != null) {
            batches.add(filegroup(o.filegroup()));
        }
        batches.addAll(heartbeatTable(heartbeatIds));
        batches.add(enableTable(o, new Table(CaptureConfig.LAB_SCHEMA, "heartbeat", null), null));
        for (Table t : tables) {
            batches.add(enableTable(o, t, null));
        }
        batches.addAll(jobs(o));
        return batches;
    }

    /** {@code sys.sp_cdc_enable_db}, unless CDC is on already. */
    public static String enableDatabase() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.databases WHERE name = DB_NAME() AND"
                + " is_cdc_enabled = 1)\n    EXEC sys.sp_cdc_enable_db;";
    }

    /** The filegroup and one file in the instance's data directory, unless it exists. */
    public static String filegroup(String name) {
        String q = bracket(name);
        return "IF NOT EXISTS (SELECT 1 FROM sys.filegroups WHERE name = "
                + literal(name)
                + ")\nBEGIN\n"
                + "    ALTER DATABASE CURRENT ADD FILEGROUP "
                + q
                + ";\n"
                + "    DECLARE @dir nvarchar(4000) ="
                + " CAST(SERVERPROPERTY('InstanceDefaultDataPath') AS nvarchar(4000));\n"
                + "    DECLARE @sql nvarchar(max) = N'ALTER DATABASE CURRENT ADD FILE (NAME = N'''"
                + " + DB_NAME() + N'_"
                + name.replace("'", "''")
                + "'', FILENAME = N''' + @dir + DB_NAME() + N'_"
                + name.replace("'", "''")
                + ".ndf'') TO FILEGROUP "
                + q.replace("'", "''")
                + "';\n"
                + "    EXEC sys.sp_executesql @sql;\n"
                + "END;";
    }

    /** The heartbeat table, one row per partition of the changes topic. */
    public static List<String> heartbeatTable(List<Integer> ids) {
        String table = bracket(CaptureConfig.LAB_SCHEMA) + "." + bracket("heartbeat");
        List<String> out = new ArrayList<>();
        out.add(
                "IF SCHEMA_ID("
                        + literal(CaptureConfig.LAB_SCHEMA)
                        + ") IS NULL\n    EXEC (N'CREATE SCHEMA "
                        + bracket(CaptureConfig.LAB_SCHEMA)
                        + "');");
        out.add(
                "IF OBJECT_ID("
                        + literal(table)
                        + ", N'U') IS NULL\n    CREATE TABLE "
                        + table
                        + " (id INT NOT NULL PRIMARY KEY, ts DATETIME2(3) NOT NULL);");
        out.add(
                "DELETE FROM "
                        + table
                        + ";\nINSERT INTO "
                        + table
                        + " (id, ts) VALUES "
                        + ids.stream()
                                .map(id -> "(" + id + ", SYSUTCDATETIME())")
                                .collect(Collectors.joining(", "))
                        + ";");
        return out;
    }

    /**
     * {@code sys.sp_cdc_enable_table} for one table, unless that capture instance exists.
     *
     * @param captureInstance the instance name, or null for SQL Server's default ({@code
     *     schema_table}) when the table has no capture instance yet
     */
    public static String enableTable(Options o, Table t, String captureInstance) {
        StringBuilder b = new StringBuilder();
        if (captureInstance == null) {
            // any instance will do: a table already captured is left as it is
            b.append("IF NOT EXISTS (SELECT 1 FROM cdc.change_tables WHERE source_object_id = ")
                    .append("OBJECT_ID(")
                    .append(literal(bracket(t.schema()) + "." + bracket(t.name())))
                    .append("))");
        } else {
            b.append("IF NOT EXISTS (SELECT 1 FROM cdc.change_tables WHERE capture_instance = ")
                    .append(literal(captureInstance))
                    .append(")");
        }
        b.append("\n    EXEC sys.sp_cdc_enable_table @source_schema = ")
                .append(literal(t.schema()))
                .append(", @source_name = ")
                .append(literal(t.name()))
                .append(", @role_name = ")
                .append(o.role() == null ? "NULL" : literal(o.role()));
        if (captureInstance != null) {
            b.append(", @capture_instance = ").append(literal(captureInstance));
        }
        b.append(", @supports_net_changes = ").append(o.supportsNetChanges() ? 1 : 0);
        if (t.capturedColumns() != null) {
            b.append(", @captured_column_list = ")
                    .append(
                            literal(
                                    t.capturedColumns().stream()
                                            .map(SqlServerScript::bracket)
                                            .collect(Collectors.joining(", "))));
        }
        if (o.filegroup() != null) {
            b.append(", @filegroup_name = ").append(literal(o.filegroup()));
        }
        return b.append(';').toString();
    }

    /**
     * The capture and cleanup jobs' settings ({@code sys.sp_cdc_change_job}), then the capture job
     * stopped and started, which is when the settings take effect.
     */
    public static List<String> jobs(Options o) {
        List<String> out = new ArrayList<>();
        StringBuilder capture =
                new StringBuilder("EXEC sys.sp_cdc_change_job @job_type = N'capture'")
                        .append(", @maxtrans = ")
                        .append(o.maxtrans())
                        .append(", @maxscans = ")
                        .append(o.maxscans())
                        .append(", @continuous = ")
                        .append(o.continuous() ? 1 : 0);
        if (o.continuous()) {
            // a one-shot job has no polling interval: SQL Server sets it to 0
            capture.append(", @pollinginterval = ").append(o.pollingIntervalSeconds());
        }
        out.add(capture.append(';').toString());
        out.add(
                "EXEC sys.sp_cdc_change_job @job_type = N'cleanup', @retention = "
                        + o.retentionMinutes()
                        + ", @threshold = "
                        + o.threshold()
                        + ";");
        // stopping a job that is not running fails; that is the state wanted anyway
        out.add(
                "BEGIN TRY\n    EXEC sys.sp_cdc_stop_job @job_type = N'capture';\nEND TRY\n"
                        + "BEGIN CATCH\n    PRINT ERROR_MESSAGE();\nEND CATCH;");
        out.add("EXEC sys.sp_cdc_start_job @job_type = N'capture';");
        return out;
    }

    /** {@code sys.sp_cdc_disable_table} for one capture instance. */
    public static String disableTable(Table t, String captureInstance) {
        return "EXEC sys.sp_cdc_disable_table @source_schema = "
                + literal(t.schema())
                + ", @source_name = "
                + literal(t.name())
                + ", @capture_instance = "
                + literal(captureInstance)
                + ";";
    }

    /** The batches as one script: a header, then each batch followed by {@code GO}. */
    public static String text(String database, List<String> batches) {
        StringBuilder b = new StringBuilder();
        b.append("-- cdc-lab: SQL Server change data capture for database ")
                .append(bracket(database))
                .append("\n-- run as a member of sysadmin; SQL Server Agent must be running\n")
                .append("USE ")
                .append(bracket(database))
                .append(";\nGO\n");
        for (String batch : batches) {
            b.append(batch).append("\nGO\n");
        }
        return b.toString();
    }

    /** {@code [name]}, closing brackets doubled. */
    public static String bracket(String identifier) {
        return "[" + identifier.replace("]", "]]") + "]";
    }

    /** {@code N'text'}, quotes doubled. */
    public static String literal(String text) {
        return "N'" + text.replace("'", "''") + "'";
    }

    /** The next capture instance name for a table's schema change: {@code x} → {@code x_v2}. */
    public static String nextCaptureInstance(String current) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(.*)_v(\\d+)").matcher(current);
        String next =
                m.matches()
                        ? m.group(1) + "_v" + (Integer.parseInt(m.group(2)) + 1)
                        : current + "_v2";
        if (next.length() > 100) {
            throw new IllegalArgumentException(
                    "capture instance name "
                            + next
                            + " is longer than SQL Server's 100 characters");
        }
        return next.toLowerCase(Locale.ROOT).equals(current.toLowerCase(Locale.ROOT))
                ? current + "_v2"
                : next;
    }
}
