package dev.cdclab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The endpoints file {@code up} writes and {@code verify} and {@code sql} read. */
class EndpointsTest {
    @TempDir Path dir;

    @Test
    void aPostgresWarehousesCredentialsSurviveTheFile() throws Exception {
        Endpoints e =
                new Endpoints(
                        "jdbc:postgresql://127.0.0.1:5432/cdclab",
                        "127.0.0.1",
                        5432,
                        "cdclab",
                        "postgres",
                        "source-secret",
                        "127.0.0.1:9092",
                        "http://127.0.0.1:8083",
                        "jdbc:postgresql://127.0.0.1:5433/warehouse",
                        "postgres",
                        "warehouse-secret",
                        "http://127.0.0.1:9400",
                        "admin-token");
        Path f = dir.resolve("endpoints.json");
        e.write(f);
        assertThat(Endpoints.read(f)).isEqualTo(e);
    }

    @Test
    void aFileWithoutWarehouseCredentialsReadsThemAsNull() throws Exception {
        Path f = dir.resolve("old.json");
        Files.writeString(
                f,
                "{\"source_jdbc_url\":\"jdbc:postgresql://127.0.0.1:1/x\",\"source_user\":\"u\","
                        + "\"source_password\":\"p\",\"warehouse_url\":\"jdbc:duckdb:/w.duckdb\","
                        + "\"admin_url\":\"http://127.0.0.1:1\",\"admin_token\":\"t\"}");
        Endpoints e = Endpoints.read(f);
        assertThat(e.warehouseUrl()).isEqualTo("jdbc:duckdb:/w.duckdb");
        assertThat(e.warehouseUser()).isNull();
        assertThat(e.warehousePassword()).isNull();
    }

    @Test
    void aFileWithoutTheAdminTokenSaysSo() throws Exception {
        Path f = dir.resolve("no-token.json");
        Files.writeString(
                f,
                "{\"source_jdbc_url\":\"jdbc:postgresql://127.0.0.1:1/x\",\"source_user\":\"u\","
                        + "\"source_password\":\"p\",\"warehouse_url\":\"jdbc:duckdb:/w.duckdb\","
                        + "\"admin_url\":\"http://127.0.0.1:1\"}");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Endpoints.read(f))
                .hasMessageContaining("admin_token");
    }
}
