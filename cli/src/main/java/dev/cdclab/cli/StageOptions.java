package dev.cdclab.cli;

import dev.cdclab.config.Configuration;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --config FILE}, {@code -D key=value} and {@code --admin-port} for the stand-alone stage
 * commands.
 */
final class StageOptions {
    @Option(
            names = "--admin-port",
            defaultValue = "0",
            description =
                    "Port of this process's /metrics (Prometheus) and /status on 127.0.0.1; 0 = a"
                            + " free one, printed (default: ${DEFAULT-VALUE}).")
    int adminPort;

    @Option(
            names = "--admin-token-file",
            paramLabel = "FILE",
            description =
                    "The token this process's admin endpoint asks its clients for, from a file"
                            + " (else CDCLAB_ADMIN_TOKEN, else a new one, printed).")
    Path adminTokenFile;

    /** The admin endpoint's token: from --admin-token-file, CDCLAB_ADMIN_TOKEN, or a new one. */
    dev.cdclab.orchestration.admin.AdminToken adminToken() {
        return dev.cdclab.orchestration.admin.AdminToken.fromFileOrEnvironmentOrNew(adminTokenFile);
    }

    /** Whether the token was given (so it is not printed). */
    boolean adminTokenGiven() {
        return adminTokenFile != null
                || System.getenv(dev.cdclab.orchestration.admin.AdminToken.ENV) != null;
    }

    @Option(
            names = {"-c", "--config"},
            paramLabel = "FILE",
            description = "Properties file with this stage's settings (see 'cdc-lab config').")
    Path configFile;

    @Option(
            names = {"-D", "--set"},
            paramLabel = "KEY=VALUE",
            description = "One setting; overrides the file.")
    Map<String, String> settings = new LinkedHashMap<>();

    /** Applies the file, then the -D settings, then the given explicit values. */
    Configuration build(Configuration.Builder b, Map<String, String> explicit) {
        if (configFile != null) {
            b.load(configFile);
        }
        b.setAll(settings);
        explicit.forEach(
                (k, v) -> {
                    if (v != null) {
                        b.set(k, v);
                    }
                });
        return b.build();
    }
}
