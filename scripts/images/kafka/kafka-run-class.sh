#!/usr/bin/env bash
# /opt/kafka/bin/kafka-run-class.sh of the cdc-lab-local/kafka image: runs one of
# Kafka's tool classes with the image's jars, logging warnings to stderr, e.g.
#   kafka-run-class.sh org.apache.kafka.tools.TopicCommand --bootstrap-server localhost:9092 --list
# (The official image's bin/kafka-*.sh scripts are not reproduced one by one.)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 CLASS [ARGS...]" >&2; exit 2; }
# shellcheck disable=SC2086 # KAFKA_OPTS is a word list on purpose
exec java -Xmx256m ${KAFKA_OPTS:-} \
	-Dlog4j2.configurationFile=/opt/kafka/config/tools-log4j2.properties \
	-cp '/opt/kafka/libs/*' "$@"
