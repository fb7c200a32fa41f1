package dev.cdclab.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdclab.config.ConfigException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The T-SQL that readies SQL Server for capture, against golden files, and every stored-procedure
 * call in it against the parameters Microsoft documents for that procedure.
 */
class SqlServerScriptTest {
    /**
     * The documented parameters of each CDC procedure, and which are required (learn.microsoft.com:
     * sys.sp_cdc_enable_db, sp_cdc_enable_table, sp_cdc_disable_table, sp_cdc_change_job,
     * sp_cdc_start_job, sp_cdc_stop_job).
     */
    private static final Map<String, List<String>> DOCUMENTED =
            Map.of(
                    "sys.sp_cdc_enable_db", List.of(),
                    "sys.sp_cdc_disable_db", List.of(),
                    "sys.sp_cdc_enable_table",
                            List.of(
                                    "@source_schema",
                                    "@source_name",
                                    "@role_name",
                                    "@capture_instance",
                                    "@supports_net_changes",
                                    "@index_name",
                                    "@captured_column_list",
                                    "@filegroup_name",
                                    "@allow_partition_switch"),
                    "sys.sp_cdc_disable_table",
                            List.of("@source_schema", "@source_name", "@capture_instance"),
                    "sys.sp_cdc_change_job",
                            List.of(
                                    "@job_type",
                                    "@maxtrans",
                                    "@maxscans",
                                    "@continuous",
                                    "@pollinginterval",
                                    "@retention",
                                    "@threshold"),
                    "sys.sp_cdc_start_job", List.of("@job_type"),
                    "sys.sp_cdc_stop_job", List.of("@job_type"));

    private static final Map<String, List<String>> REQUIRED =
            Map.of(
                    "sys.sp_cdc_enable_table",
                            List.of("@source_schema", "@source_name", "@role_name"),
                    "sys.sp_cdc_disable_table",
                            List.of("@source_schema", "@source_name", "@capture_instance"));

    private static final Set<String> CAPTURE_ONLY =
            Set.of("@maxtrans", "@maxscans", "@continuous", "@pollinginterval");
    private static final Set<String> CLEANUP_ONLY = Set.of("@retention", "@threshold");

    private static CaptureConfig config(Map<String, String> extra) {
        Map<String, String> raw = new HashMap<>();
        raw.put("source.kind", "sqlserver");
        raw.put("kafka.bootstrap.servers", "k:9092");
        raw.putAll(extra);
        return CaptureConfig.of(raw);
    }

    private static List<SqlServerScript.Table> tables(CaptureConfig c) {
        return List.of(
                new SqlServerScript.Table("dbo", "w1_wide", c.capturedColumns("dbo", "w1_wide")),
                new SqlServerScript.Table(
                        "dbo", "mix_order", c.capturedColumns("dbo", "mix_order")));
    }

    private static String script(CaptureConfig c) {
        return SqlServerScript.text(
                "cdclab",
                SqlServerScript.setup(SqlServerScript.Options.of(c), List.of(1, 3, 2), tables(c)));
    }

    @Test
    void theDefaultSetupIsTheGoldenOne() throws Exception {
        String text = script(config(Map.of()));
        GoldenFiles.assertMatches("sqlserver/setup-default.sql", text);
        checkCalls(text);
    }

    @Test
    void everyKnobShowsInTheScript() throws Exception {
        CaptureConfig c =
                config(
                        Map.of(
                                "sqlserver.capture.maxtrans", "5000",
                                "sqlserver.capture.maxscans", "100",
                                "sqlserver.capture.pollinginterval", "1s",
                                "sqlserver.cleanup.retention", "24h",
                                "sqlserver.cleanup.threshold", "10000",
                                "sqlserver.supports.net.changes", "true",
                                "sqlserver.filegroup", "CDC_FG",
                                "sqlserver.role.name", "cdc_reader",
                                "captured.columns", "w1_wide:id,c01,c05"));
        String text = script(c);
        GoldenFiles.assertMatches("sqlserver/setup-tuned.sql", text);
        checkCalls(text);
        assertThat(text)
                .contains(
                        "@maxtrans = 5000, @maxscans = 100, @continuous = 1, @pollinginterval = 1")
                .contains("@retention = 1440, @threshold = 10000")
                .contains("@captured_column_list = N'[id], [c01], [c05]'")
                .contains("@supports_net_changes = 1")
                .contains("@filegroup_name = N'CDC_FG'")
                .contains("ALTER DATABASE CURRENT ADD FILEGROUP [CDC_FG]");
    }

    @Test
    void aOneShotJobHasNoPollingInterval() throws Exception {
        String text = script(config(Map.of("sqlserver.capture.continuous", "false")));
        checkCalls(text);
        assertThat(text).contains("@continuous = 0;").doesNotContain("@pollinginterval");
    }

    @Test
    void aSchemaChangeEnablesASecondInstanceThenDisablesTheFirst() throws Exception {
        CaptureConfig c = config(Map.of());
        SqlServerScript.Table t = new SqlServerScript.Table("dbo", "orders", null);
        String next = SqlServerScript.nextCaptureInstance(t.defaultCaptureInstance());
        String text =
                SqlServerScript.text(
                        "cdclab",
                        List.of(
                                SqlServerScript.enableTable(SqlServerScript.Options.of(c), t, next),
                                SqlServerScript.disableTable(t, t.defaultCaptureInstance())));
        GoldenFiles.assertMatches("sqlserver/switch-capture-instance.sql", text);
        checkCalls(text);
        assertThat(next).isEqualTo("dbo_orders_v2");
        assertThat(SqlServerScript.nextCaptureInstance("dbo_orders_v2")).isEqualTo("dbo_orders_v3");
    }

    @Test
    void namesAreQuotedSoTheyCannotEndAStatement() {
        assertThat(SqlServerScript.bracket("a]b; DROP TABLE x --"))
                .isEqualTo("[a]]b; DROP TABLE x --]");
        assertThat(SqlServerScript.literal("o'clock")).isEqualTo("N'o''clock'");
    }

    @Test
    void badSqlServerOptionsAreRejectedWithTheirKey() {
        assertThatThrownBy(() -> config(Map.of("sqlserver.capture.pollinginterval", "1500ms")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sqlserver.capture.pollinginterval");
        assertThatThrownBy(() -> config(Map.of("sqlserver.filegroup", "x; DROP")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sqlserver.filegroup");
        assertThatThrownBy(() -> config(Map.of("captured.columns", "a,b c")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("captured.columns");
        assertThatThrownBy(
                        () ->
                                CaptureConfig.of(
                                        Map.of(
                                                "source.kind",
                                                "postgres",
                                                "sqlserver.role.name",
                                                "r")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sqlserver only");
    }

    /** Every EXEC of a CDC procedure names documented parameters only, the required ones all. */
    private static void checkCalls(String text) {
        Matcher m = Pattern.compile("EXEC (sys\\.sp_cdc_\\w+)([^;]*);").matcher(text);
        int calls = 0;
        while (m.find()) {
            calls++;
            String proc = m.group(1);
            assertThat(DOCUMENTED).as("a documented procedure").containsKey(proc);
            Set<String> params = new LinkedHashSet<>();
            Matcher p = Pattern.compile("(@\\w+)\\s*=").matcher(m.group(2));
            while (p.find()) {
                params.add(p.group(1));
            }
            assertThat(DOCUMENTED.get(proc)).as(proc + " parameters").containsAll(params);
            assertThat(params)
                    .as(proc + " required parameters")
                    .containsAll(REQUIRED.getOrDefault(proc, List.of()));
            if (proc.equals("sys.sp_cdc_change_job")) {
                boolean capture = m.group(2).contains("@job_type = N'capture'");
                boolean cleanup = m.group(2).contains("@job_type = N'cleanup'");
                assertThat(capture || cleanup).as("job type named").isTrue();
                if (capture) {
                    assertThat(params).doesNotContainAnyElementsOf(CLEANUP_ONLY);
                } else {
                    assertThat(params).doesNotContainAnyElementsOf(CAPTURE_ONLY);
                }
            }
        }
        assertThat(calls).isPositive();
    }
}
