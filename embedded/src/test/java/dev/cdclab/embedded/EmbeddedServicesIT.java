package dev.cdclab.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The embedded PostgreSQL, broker and Connect worker are real and stay out of each other's way. */
@Timeout(180)
class EmbeddedServicesIT {

    @Test
    void postgresIsDurableByDefaultAndAsksForThePassword() throws Exception {
        try (PostgresServer pg = PostgresServer.builder().start();
                Connection c = pg.connect();
                Statement s = c.createStatement()) {
            for (String setting : List.of("fsync", "synchronous_commit", "full_page_writes")) {
                try (ResultSet rs = s.executeQuery("SHOW " + setting)) {
                    rs.next();
                    assertThat(rs.getString(1)).as(setting).isEqualTo("on");
                }
            }
            try (ResultSet rs = s.executeQuery("SHOW wal_level")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("logical");
            }
            Properties wrong = new Properties();
            wrong.setProperty("user", pg.user());
            wrong.setProperty("password", "not-" + pg.password());
            assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl(), wrong).close())
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("password authentication failed");
        }
    }

    @Test
    void postgresOnATakenPortSaysSo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> PostgresServer.builder().port(port).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("port " + port + " is already in use");
        }
    }

    @Test
    void twoBrokersRunSideBySideAndStampAppendTime() throws Exception {
        try (KafkaBroker a = KafkaBroker.builder().start();
                KafkaBroker b = KafkaBroker.builder().start()) {
            assertThat(a.bootstrapServers()).isNotEqualTo(b.bootstrapServers());
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", a.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get();
            }
            Properties pp = new Properties();
            pp.put("bootstrap.servers", a.bootstrapServers());
            try (KafkaProducer<String, String> p =
                    new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
                p.send(new ProducerRecord<>("t", null, 1L, "k", "v")).get();
            }
            Properties cp = new Properties();
            cp.put("bootstrap.servers", a.bootstrapServers());
            cp.put("group.id", "g");
            cp.put("auto.offset.reset", "earliest");
            try (KafkaConsumer<String, String> c =
                    new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
                c.subscribe(List.of("t"));
                var records = c.poll(Duration.ofSeconds(20));
                assertThat(records.count()).isEqualTo(1);
                var r = records.iterator().next();
                assertThat(r.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
                assertThat(r.timestamp()).isGreaterThan(1L);
            }
        }
    }

    @Test
    void connectWorkerAnswersOnItsRestApi() throws Exception {
        try (KafkaBroker k = KafkaBroker.builder().start();
                ConnectWorker w =
                        ConnectWorker.builder()
                                .bootstrapServers(k.bootstrapServers())
                                .groupId("it")
                                .start()) {
            var http = java.net.http.HttpClient.newHttpClient();
            var r =
                    http.send(
                            java.net.http.HttpRequest.newBuilder(
                                            java.net.URI.create(w.restUrl() + "/"))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("kafka_cluster_id");
        }
    }
}
