#!/usr/bin/env bash
# Builds the two container images cdc-lab's Testcontainers-based runs need,
# WITHOUT any image registry, from Debian packages and Maven Central artifacts:
#
#   cdc-lab-local/postgres:15            stands in for the official postgres image
#   cdc-lab-local/kafka:<kafka.version>  stands in for apache/kafka (version from pom.xml)
#
# How: one `debootstrap --variant=minbase` of Debian bookworm with everything both
# images need (cached as a tarball), then per image: unpack it, purge what only
# the other image needs, add the image's own files, and `docker import` it.
#
# Usage: scripts/build-local-images.sh [--only postgres|kafka] [--rebuild] [--refresh-rootfs]
#   --only NAME       build just that image (default: both)
#   --rebuild         rebuild images that already exist locally (default: skip them)
#   --refresh-rootfs  debootstrap again even if the cached root file system exists
#
# Progress goes to stderr. stdout gets only environment assignments, so that
#   export $(scripts/build-local-images.sh)
# points the Testcontainers runs at the local images.
#
# Needs: root, a running Docker daemon, debootstrap, and (for Kafka) Maven;
# network access to deb.debian.org and Maven Central only.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/.." && pwd)"
images_dir="$script_dir/images"

log() { printf '[build-local-images] %s\n' "$*" >&2; }
die() {
	printf 'build-local-images: error: %s\n' "$*" >&2
	exit 1
}
usage() {
	cat >&2 <<-'EOF'
		Usage: scripts/build-local-images.sh [--only postgres|kafka] [--rebuild] [--refresh-rootfs]
		  --only NAME       build just that image (default: both)
		  --rebuild         rebuild images that already exist locally (default: skip them)
		  --refresh-rootfs  debootstrap again even if the cached root file system exists
	EOF
}

# ---------------------------------------------------------------- arguments
rebuild=false
refresh_rootfs=false
only=""
while (($#)); do
	case "$1" in
		--rebuild) rebuild=true ;;
		--refresh-rootfs) refresh_rootfs=true ;;
		--only)
			[[ $# -ge 2 ]] || die "--only needs an argument: postgres or kafka"
			only="$2"
			shift
			;;
		--only=*) only="${1#--only=}" ;;
		-h | --help)
			usage
			exit 0
			;;
		*)
			usage
			die "unknown argument: $1"
			;;
	esac
	shift
done
case "$only" in
	"" | postgres | kafka) ;;
	*) die "--only takes postgres or kafka, not '$only'" ;;
esac

# ---------------------------------------------------------------- prerequisites
[[ "$(id -u)" == 0 ]] || die "must be run as root (debootstrap, chroot and docker import need it)"
command -v debootstrap >/dev/null 2>&1 ||
	die "debootstrap is missing; install it with: apt-get install debootstrap docker.io"
command -v docker >/dev/null 2>&1 ||
	die "docker is missing; install it with: apt-get install debootstrap docker.io"
docker info >/dev/null 2>&1 ||
	die "'docker info' failed: is the Docker daemon running? (e.g. dockerd >/tmp/dockerd.log 2>&1 &)"

kafka_version="$(sed -n 's:.*<kafka\.version>[[:space:]]*\([^<[:space:]]*\)[[:space:]]*</kafka\.version>.*:\1:p' \
	"$repo_root/pom.xml" | head -n 1)"
[[ -n "$kafka_version" ]] || die "no <kafka.version> property found in $repo_root/pom.xml"

postgres_image="cdc-lab-local/postgres:15"
kafka_image="cdc-lab-local/kafka:$kafka_version"

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# Which images to build this time.
build_postgres=false
build_kafka=false
if [[ "$only" != kafka ]]; then
	if $rebuild || ! image_exists "$postgres_image"; then build_postgres=true; else
		log "$postgres_image exists; skipping (--rebuild to build it again)"
	fi
fi
if [[ "$only" != postgres ]]; then
	if $rebuild || ! image_exists "$kafka_image"; then build_kafka=true; else
		log "$kafka_image exists; skipping (--rebuild to build it again)"
	fi
fi
if $build_kafka; then
	command -v mvn >/dev/null 2>&1 || die "mvn is missing (needed for the Kafka jars); install it with: apt-get install maven"
fi

# ---------------------------------------------------------------- shared settings
suite=bookworm
mirror=http://deb.debian.org/debian
# Everything both images need, installed by the single debootstrap. Each image
# later purges the other's top-level packages; apt's autoremove takes their
# dependencies along (see prune_base_rootfs).
#   postgresql-15            the server (+ psql, pg_ctl, initdb)
#   openjdk-17-jre-headless  Kafka's JVM
#   procps                   ps/pgrep, handy in both
#   dumb-init                PID 1 of both images, for signal handling (see below)
packages=(postgresql-15 openjdk-17-jre-headless procps dumb-init)

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/cdc-lab"
# The cache key covers everything that shapes the root file system, so changing
# the package list (or the pruning, via rootfs_format) makes a new tarball.
rootfs_format=1
cache_key="$(printf '%s\n' "$suite" "$mirror" "$rootfs_format" "${packages[@]}" | sha256sum | cut -c1-12)"
rootfs_tar="$cache_dir/rootfs-$suite-$cache_key.tar"

workdir=""
cleanup() {
	[[ -n "$workdir" && -d "$workdir" ]] || return 0
	# debootstrap mounts /proc and /sys inside its target and may leave them
	# mounted when it fails: unmount everything under workdir before deleting.
	local m
	awk -v w="$workdir" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m" || true; done
	rm -rf --one-file-system "$workdir"
}
trap cleanup EXIT

# Runs a command inside a root file system with a clean environment.
in_root() {
	local root="$1"
	shift
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C DEBIAN_FRONTEND=noninteractive \
		chroot "$root" "$@"
}

# apt-get purge, then remove every dependency nothing else needs any more
# (recommends/suggests do not keep a package). Two steps on purpose: with
# `purge --autoremove` in one go, apt kept e.g. postgresql-client-15 and perl.
purge_packages() {
	local root="$1"
	shift
	local no_keep=(-o APT::AutoRemove::RecommendsImportant=false -o APT::AutoRemove::SuggestsImportant=false)
	# (&&: this runs under `quietly`, where set -e does not apply)
	in_root "$root" apt-get purge -y "${no_keep[@]}" "$@" &&
		in_root "$root" apt-get autoremove --purge -y "${no_keep[@]}"
}

# Runs "$@" with its output in a log file; shows the end of it on failure.
quietly() {
	local logfile="$1"
	shift
	if ! "$@" >"$logfile" 2>&1; then
		tail -n 40 "$logfile" >&2
		die "failed: $* (last lines of its output above)"
	fi
}

seconds_since() { echo $((SECONDS - $1)); }

# ---------------------------------------------------------------- base root file system
prune_base_rootfs() {
	local root="$1"

	# Mark everything that is not part of the minimal base system (priority
	# required/important) as automatically installed, and the packages above as
	# manual: then `apt-get purge --autoremove X` in one image removes X and all
	# the dependencies only X needed.
	local extra
	# shellcheck disable=SC2016 # ${Package} is dpkg-query's syntax, not the shell's
	extra="$(in_root "$root" dpkg-query -W -f='${Package} ${Priority}\n' |
		awk '$2 != "required" && $2 != "important" { print $1 }')"
	# shellcheck disable=SC2086 # one package name per word
	in_root "$root" apt-mark auto $extra >/dev/null
	in_root "$root" apt-mark manual "${packages[@]}" >/dev/null

	# The Debian package creates a cluster "main" (/var/lib/postgresql/15/main,
	# /etc/postgresql/15/main); the image makes its own in $PGDATA instead.
	rm -rf "$root/var/lib/postgresql/15" "$root/etc/postgresql/15" "$root"/var/log/postgresql/*

	# Size: no package cache or lists (the images never run apt install), no
	# docs except copyright files, no man pages or message translations.
	in_root "$root" apt-get clean
	rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/debconf/*-old
	find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
	find "$root/usr/share/doc" -mindepth 1 -depth -type d -empty -delete
	rm -rf "$root"/usr/share/{man,info,lintian,linda}/* "$root"/usr/share/locale/*

	# debootstrap copied this machine's resolv.conf/hostname; Docker supplies
	# its own at run time, so leave nothing of this machine in the images.
	: >"$root/etc/resolv.conf"
	echo localhost >"$root/etc/hostname"
	find "$root/var/log" -type f -delete
	rm -rf "$root"/tmp/* "$root"/var/tmp/*
}

ensure_rootfs_tarball() {
	if [[ -f "$rootfs_tar" ]] && ! $refresh_rootfs; then
		log "using cached root file system $rootfs_tar"
		return
	fi
	local t0=$SECONDS root="$workdir/debootstrap"
	log "debootstrap $suite ($mirror) with: ${packages[*]} (about a minute) ..."
	quietly "$workdir/debootstrap.log" \
		debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" \
		"$suite" "$root" "$mirror"
	log "pruning the root file system ..."
	prune_base_rootfs "$root"
	mkdir -p "$cache_dir"
	# Write under a temporary name and rename, so an interrupted run never
	# leaves a truncated tarball that a later run would trust.
	tar --numeric-owner -C "$root" -cf "$rootfs_tar.partial" .
	mv -f "$rootfs_tar.partial" "$rootfs_tar"
	rm -rf --one-file-system "$root"
	# Older tarballs (other cache keys) are of no further use.
	find "$cache_dir" -maxdepth 1 -name "rootfs-$suite-*.tar" ! -path "$rootfs_tar" -delete
	log "root file system cached as $rootfs_tar ($(du -h "$rootfs_tar" | cut -f1), $(seconds_since "$t0") s)"
}

unpack_rootfs() {
	local root="$1"
	mkdir -p "$root"
	tar --numeric-owner -C "$root" -xpf "$rootfs_tar"
}

# Streams a root file system into `docker import` as IMAGE, with the given
# --change options; removes the image it replaces if nothing else uses it.
import_image() {
	local root="$1" image="$2"
	shift 2
	local old_id=""
	old_id="$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)"
	rm -rf "$root"/tmp/* "$root"/var/tmp/* "$root"/var/log/apt "$root"/var/log/dpkg.log \
		"$root"/var/cache/debconf/*-old "$root"/var/cache/apt/*.bin
	log "docker import $image ..."
	tar --numeric-owner -C "$root" -c . | docker import "$@" - "$image" >/dev/null
	if [[ -n "$old_id" && "$old_id" != "$(docker image inspect -f '{{.Id}}' "$image")" ]]; then
		docker rmi "$old_id" >/dev/null 2>&1 || true
	fi
	log "built $image ($(docker image inspect -f '{{.Size}}' "$image" | numfmt --to=iec))"
}

# ---------------------------------------------------------------- PostgreSQL image
build_postgres_image() {
	local t0=$SECONDS root="$workdir/postgres"
	log "building $postgres_image ..."
	unpack_rootfs "$root"

	quietly "$workdir/postgres-purge.log" purge_packages "$root" openjdk-17-jre-headless
	# JIT support is LLVM (~150 MB with libz3 and the bitcode files). Without
	# llvmjit.so, PostgreSQL just runs without JIT (it checks for the file and
	# quietly disables JIT). --force-depends: postgresql-15 declares libllvm14.
	quietly "$workdir/postgres-llvm.log" \
		in_root "$root" dpkg --purge --force-depends libllvm14 libz3-4
	rm -rf "$root"/usr/lib/postgresql/15/lib/llvmjit* "$root"/usr/lib/postgresql/15/lib/bitcode

	install -m 0755 "$images_dir/postgres/docker-entrypoint.sh" "$root/usr/local/bin/docker-entrypoint.sh"
	mkdir -p "$root/var/lib/postgresql/data" "$root/run/postgresql" "$root/docker-entrypoint-initdb.d"
	in_root "$root" chown -R postgres:postgres /var/lib/postgresql /run/postgresql
	chmod 03775 "$root/run/postgresql"
	chmod 00700 "$root/var/lib/postgresql/data"

	# Same interface as the official image: docker-entrypoint.sh + CMD postgres,
	# PGDATA, port 5432. The official image has STOPSIGNAL SIGINT (PostgreSQL's
	# fast shutdown; SIGTERM is a "smart" shutdown that waits for every client
	# to disconnect), but this Docker (20.10) rejects STOPSIGNAL in
	# `docker import --change`. So dumb-init is PID 1 and turns the SIGTERM of
	# `docker stop` into SIGINT for its single child (the entrypoint, which
	# execs postgres).
	import_image "$root" "$postgres_image" \
		--change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'ENV PG_MAJOR=15' \
		--change 'ENV PGDATA=/var/lib/postgresql/data' \
		--change 'ENV LANG=C.UTF-8' \
		--change 'ENTRYPOINT ["/usr/bin/dumb-init", "--single-child", "--rewrite", "15:2", "--", "docker-entrypoint.sh"]' \
		--change 'CMD ["postgres"]' \
		--change 'EXPOSE 5432' \
		--change 'LABEL org.opencontainers.image.description="PostgreSQL 15 (Debian bookworm) built locally by cdc-lab scripts/build-local-images.sh"'
	rm -rf --one-file-system "$root"
	log "$postgres_image done in $(seconds_since "$t0") s"
}

# ---------------------------------------------------------------- Kafka image
build_kafka_image() {
	local t0=$SECONDS root="$workdir/kafka"
	log "building $kafka_image ..."
	unpack_rootfs "$root"

	quietly "$workdir/kafka-purge.log" purge_packages "$root" postgresql-15
	rm -rf "$root/var/lib/postgresql" "$root/etc/postgresql" "$root/etc/postgresql-common" "$root/var/log/postgresql"

	log "fetching Kafka $kafka_version jars with Maven ..."
	mkdir -p "$root/opt/kafka/libs"
	# The output goes to a log file (shown if it fails): stdout is for the
	# environment lines only, and even `mvn -q` prints colour codes there.
	quietly "$workdir/mvn.log" \
		mvn -B -ntp -f "$images_dir/kafka/pom.xml" dependency:copy-dependencies \
		-Dkafka.version="$kafka_version" \
		-DoutputDirectory="$root/opt/kafka/libs" \
		-DincludeScope=runtime
	[[ -f "$root/opt/kafka/libs/kafka_2.13-$kafka_version.jar" ]] ||
		die "kafka_2.13-$kafka_version.jar missing after mvn dependency:copy-dependencies"

	install -D -m 0755 "$images_dir/kafka/run" "$root/etc/kafka/docker/run"
	install -D -m 0644 "$images_dir/kafka/server.properties" "$root/etc/kafka/docker/server.properties"
	install -D -m 0644 "$images_dir/kafka/log4j2.properties" "$root/etc/kafka/docker/log4j2.properties"
	install -D -m 0644 "$images_dir/kafka/tools-log4j2.properties" "$root/opt/kafka/config/tools-log4j2.properties"
	install -D -m 0755 "$images_dir/kafka/kafka-run-class.sh" "$root/opt/kafka/bin/kafka-run-class.sh"

	# Like apache/kafka: the broker runs as "appuser" (uid 1000), which owns the
	# directories it writes.
	in_root "$root" useradd --uid 1000 --user-group --create-home --shell /bin/bash appuser
	mkdir -p "$root"/var/lib/kafka/data "$root"/etc/kafka/secrets "$root"/mnt/shared/config "$root"/var/log/kafka
	in_root "$root" chown -R appuser:appuser /var/lib/kafka /etc/kafka /mnt/shared/config /opt/kafka/config /var/log/kafka

	# dumb-init as PID 1 (it forwards signals to the child's whole process
	# group): Testcontainers starts the container with
	# `sh -c 'while ...; /tmp/testcontainers_start.sh'`, and a plain sh as PID 1
	# ignores SIGTERM, so `docker stop` would always wait for its 10 s timeout.
	# Testcontainers sets only the command, so that runs under dumb-init as is.
	import_image "$root" "$kafka_image" \
		--change 'ENV PATH=/opt/kafka/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'ENV LANG=C.UTF-8' \
		--change 'USER appuser' \
		--change 'WORKDIR /opt/kafka' \
		--change 'ENTRYPOINT ["/usr/bin/dumb-init", "--"]' \
		--change 'CMD ["/etc/kafka/docker/run"]' \
		--change 'EXPOSE 9092' \
		--change "LABEL org.opencontainers.image.description=\"Apache Kafka $kafka_version (Maven Central jars, Debian OpenJDK 17) built locally by cdc-lab scripts/build-local-images.sh\""
	rm -rf --one-file-system "$root"
	log "$kafka_image done in $(seconds_since "$t0") s"
}

# ---------------------------------------------------------------- main
start=$SECONDS
if $build_postgres || $build_kafka; then
	mkdir -p "$cache_dir"
	# One build at a time per cache directory (two runs would fight over it).
	exec 9>"$cache_dir/.lock"
	flock 9
	workdir="$(mktemp -d /var/tmp/cdc-lab-images.XXXXXX)"
	ensure_rootfs_tarball
	if $build_postgres; then build_postgres_image; fi
	if $build_kafka; then build_kafka_image; fi
	log "all done in $(seconds_since "$start") s"
fi

# The environment a caller exports (see the header).
echo "TESTCONTAINERS_RYUK_DISABLED=true"
echo "TESTCONTAINERS_CHECKS_DISABLE=true"
echo "TESTCONTAINERS_HOST_OVERRIDE=localhost"
if image_exists "$postgres_image"; then echo "CDCLAB_POSTGRES_IMAGE=$postgres_image"; fi
if image_exists "$kafka_image"; then echo "CDCLAB_KAFKA_IMAGE=$kafka_image"; fi
