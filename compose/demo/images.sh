#!/usr/bin/env bash
# images.sh builds the demo stacks' images on this machine, with no
# registry and no Docker builder, and points compose/demo/.env at them:
#
#   sweep-demoapp:<12 hex of sha256 of the binary>   static Go binary only
#   sweep-demo-postgres:<12 hex of sha256 of the rootfs>
#                       PostgreSQL 15 from Debian's packages, busybox, and an
#                       entrypoint compatible with the official postgres image
#   sweep-demo-pgbouncer:<12 hex of sha256 of the rootfs>
#                       PgBouncer from Debian's package (1.18 on bookworm),
#                       busybox, and an entrypoint that writes pgbouncer.ini
#                       from the environment (pgbouncer-entrypoint.sh)
#   sweep-example-node:<12 hex of sha256 of the rootfs>
#                       the Node.js example (examples/node): Debian
#                       bookworm's nodejs (18) and node-pg, downloaded with
#                       apt-get download at the Debian archive's version (a
#                       host may have another nodejs installed), busybox,
#                       and examples/node/server.js
#   sweep-example-php:<12 hex of sha256 of the rootfs>
#                       the PHP example (examples/php): Debian's
#                       php8.2-fpm, php8.2-pgsql and nginx (nginx-light's
#                       binary), downloaded like node's, busybox, and the
#                       example's index.php, configs and entrypoint
#   sweep-example-jvm:<12 hex of sha256 of the rootfs>
#                       the JVM example (examples/jvm): Debian's OpenJDK 17
#                       headless JRE, Jetty 9.4, HikariCP, slf4j and the
#                       PostgreSQL JDBC driver, downloaded like node's,
#                       busybox, and examples/jvm/App.java compiled by that
#                       JRE's own javac (its jdk.compiler module), so the
#                       host needs no JDK
#   sweep-example-orders:<12 hex of sha256 of the binary>
#                       the order service example (examples/orders): its
#                       static Go binary only, like the demo app's
#   sweep-drive:<12 hex of sha256 of the binary>
#                       the static sweep binary only, whose hidden `sweep
#                       drive` runs the built-in load driver as a one-shot
#                       swarm service (package load/remote); not part of the
#                       demo stack, but moved to the swarm fixture's nodes
#                       with the demo's images
#   sweep-k6:<12 hex of sha256 of the binary>
#                       the k6 on this machine's PATH (which must be a static
#                       binary; this script builds no k6), laid out as
#                       grafana/k6 is: /usr/bin/k6, user 12345, /tmp; the
#                       image of the k6 load Job on the Kubernetes fixture
#                       (--k6-image) when no registry's grafana/k6 is at
#                       hand; only when asked for (images.sh k6)
#
# Usage: images.sh [app|pg|pgbouncer|drive|node|php|jvm|orders|k6]...
# (no arguments: the demo's four, app pg pgbouncer drive)
# Tags follow content, so a run with nothing changed rebuilds nothing; the
# two rootfs images also carry a label with the hash of their inputs (this
# script, the entrypoints, the installed package versions), so when those
# did not change not even the rootfs is assembled again.
# A caller that already has an image (e.g. postgres:15 from a registry) sets
# SWEEP_DEMO_PG_IMAGE, SWEEP_DEMO_APP_IMAGE, SWEEP_DEMO_PGBOUNCER_IMAGE or
# SWEEP_DEMO_DRIVE_IMAGE (SWEEP_EXAMPLE_NODE_IMAGE, SWEEP_EXAMPLE_PHP_IMAGE,
# SWEEP_EXAMPLE_JVM_IMAGE, SWEEP_EXAMPLE_ORDERS_IMAGE, SWEEP_DEMO_K6_IMAGE,
# e.g. grafana/k6) and that one is used as is. SWEEP_IMAGES_ENV names the
# .env file written (default compose/demo/.env; the examples' make targets
# write their own).
# Needs: bash, docker, go, and Debian's postgresql-15, pgbouncer and
# busybox-static, which it installs with apt-get when missing (as root; on a
# host with systemd, installing pgbouncer also enables its service); for
# node also the shared libraries Debian's libnode108 links (libuv1, libicu72,
# libc-ares2, libnghttp2-14, libbrotli1, libssl3), installed the same way;
# for jvm the ones the JVM links (libstdc++6, libgcc-s1, zlib1g).
# Prints the chosen images' .env lines on stdout, progress on stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "$here/../.." && pwd)"
# this script as bash read it, for inputs_key: an edit while it runs must
# not label an image built by the old text with the new text's hash
self_sum="$(sha256sum <"$here/images.sh")"
pg_major=15
pg_bin="/usr/lib/postgresql/$pg_major/bin"
pg_lib="/usr/lib/postgresql/$pg_major/lib"
pg_share="/usr/share/postgresql/$pg_major"
# the pgbouncer user inside its image
pgbouncer_uid=998
# Debian's multiarch library folder, e.g. x86_64-linux-gnu
multiarch="$(basename "$(dirname "$(ls /usr/lib/*-linux-gnu*/libc.so.6 | head -1)")")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

log() { echo "images.sh: $*" >&2; }

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

# short_hash prints the first 12 hex digits of the sha256 of stdin.
short_hash() { sha256sum | cut -c1-12; }

# import_rootfs DIR TAG CHANGE... tars DIR (owners numeric, fixed order and
# times) and imports it as TAG with the given Dockerfile-like changes.
import_rootfs() {
	local dir="$1" tag="$2"
	shift 2
	local args=()
	for c in "$@"; do args+=(--change "$c"); done
	tar -C "$dir" --numeric-owner --sort=name --mtime=@0 -cf - . |
		docker import "${args[@]}" - "$tag" >/dev/null
}

# build_go_image VAR REPO PKG BIN CHANGE... builds the Go package PKG as a
# static binary /BIN, imports it alone as REPO:<hash of the binary> (unless
# that tag exists) with the given Dockerfile-like changes, tags it
# REPO:latest, and sets VAR to the tag.
build_go_image() {
	local var="$1" repo="$2" pkg="$3" bin="$4" tag
	shift 4
	log "building $repo"
	mkdir -p "$work/$repo"
	(cd "$repo_dir" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' \
		-o "$work/$repo/$bin" "$pkg")
	tag="$repo:$(short_hash <"$work/$repo/$bin")"
	if have_image "$tag"; then
		log "$tag exists, not rebuilt"
	else
		import_rootfs "$work/$repo" "$tag" "$@" "LABEL org.opencontainers.image.title=$repo"
		log "imported $tag"
	fi
	docker tag "$tag" "$repo:latest"
	printf -v "$var" '%s' "$tag"
}

build_app() {
	build_go_image APP_IMAGE sweep-demoapp ./cmd/demoapp demoapp \
		'ENTRYPOINT ["/demoapp"]' 'EXPOSE 8080' 'ENV PORT=8080'
}

# build_orders builds the order service example (examples/orders): its
# static binary alone, as the demo app's.
build_orders() {
	build_go_image ORDERS_IMAGE sweep-example-orders ./examples/orders orders \
		'ENTRYPOINT ["/orders"]' 'EXPOSE 8080' 'ENV PORT=8080'
}

# build_drive builds the image of sweep's load services (package
# load/remote): the static sweep binary, whose `sweep drive` runs one phase
# of the built-in driver on a swarm node.
build_drive() {
	build_go_image DRIVE_IMAGE sweep-drive ./cmd/sweep sweep 'ENTRYPOINT ["/sweep"]' 'CMD ["drive"]'
}

# k6's user in grafana/k6, whose uid the fixture's image keeps: the load
# Job's container then writes as a user that is not root, as with the
# registry's image
k6_uid=12345

# build_k6 packages the k6 on PATH, a static binary, into an image laid
# out as grafana/k6: /usr/bin/k6 on PATH, its user, a /tmp. k6 is not
# built here: a developer brings their own.
build_k6() {
	local bin r="$work/sweep-k6" tag
	bin="$(command -v k6)" || { log "no k6 on PATH: install k6 (https://grafana.com/docs/k6/latest/set-up/install-k6/) or set SWEEP_DEMO_K6_IMAGE, e.g. to grafana/k6" && exit 1; }
	if ldd "$bin" >/dev/null 2>&1; then
		log "$bin is linked dynamically; the image holds the binary alone, so give a static k6 (as k6's releases are)" && exit 1
	fi
	log "packaging $bin ($("$bin" version 2>/dev/null | head -1))"
	mkdir -p "$r/usr/bin" "$r/tmp" "$r/home/k6" "$r/etc"
	cp -L "$bin" "$r/usr/bin/k6"
	chmod 0755 "$r/usr/bin/k6"
	chmod 1777 "$r/tmp"
	printf 'root:x:0:0:root:/root:/bin/sh\nk6:x:%s:%s:k6:/home/k6:/sbin/nologin\n' "$k6_uid" "$k6_uid" >"$r/etc/passwd"
	printf 'root:x:0:\nk6:x:%s:\n' "$k6_uid" >"$r/etc/group"
	chown "$k6_uid:$k6_uid" "$r/home/k6"
	tag="sweep-k6:$(short_hash <"$r/usr/bin/k6")"
	if have_image "$tag"; then
		log "$tag exists, not rebuilt"
	else
		import_rootfs "$r" "$tag" 'ENTRYPOINT ["k6"]' 'ENV PATH=/usr/bin:/bin' "USER $k6_uid" 'WORKDIR /home/k6' \
			'LABEL org.opencontainers.image.title=sweep-k6'
		log "imported $tag"
	fi
	K6_IMAGE="$tag"
}

# ensure_packages PKG... installs the Debian packages an image is made of,
# refreshing the package lists only when a plain install fails.
ensure_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
		{ apt-get update >&2 && apt-get install -y --no-install-recommends "${missing[@]}" >&2; }
}

# copy_libs ROOT FILE... copies the shared libraries (and the loader) that
# the programs and modules FILE... need, as ldd on this machine resolves
# them, into ROOT. ldd runs once over all of them: it is the slow step.
copy_libs() {
	local root="$1" deps
	shift
	# libraries already in ROOT (a package unpacked there) stay as they are
	deps="$(ldd "$@" 2>/dev/null |
		awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(/ {print $1}' |
		grep -v "^$root/" | sort -u)"
	grep -v '/ld-linux' <<<"$deps" | xargs cp -L -t "$root/usr/lib/$multiarch"
	grep '/ld-linux' <<<"$deps" | xargs cp -L -t "$root/usr/lib64"
}

# add_busybox ROOT APPLET... installs the static busybox and links the
# applets to it.
add_busybox() {
	local r="$1" a
	shift
	cp /bin/busybox "$r/usr/bin/busybox"
	for a in "$@"; do ln -s busybox "$r/usr/bin/$a"; done
}

# base_layout ROOT makes the folders, links and files both rootfs share.
base_layout() {
	local r="$1"
	mkdir -p "$r"/{etc,tmp,usr/bin,usr/sbin,usr/lib64,"usr/lib/$multiarch",usr/local/bin}
	ln -s usr/bin "$r/bin"
	ln -s usr/lib "$r/lib"
	ln -s usr/lib64 "$r/lib64"
	printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$r/etc/nsswitch.conf"
	chmod 1777 "$r/tmp"
}

# assemble_pg_rootfs ROOT lays out the smallest tree PostgreSQL, initdb,
# pg_ctl, pg_isready and the entrypoint need.
assemble_pg_rootfs() {
	local r="$1"
	base_layout "$r"
	mkdir -p "$r/usr/share/zoneinfo/Etc" "$r$pg_bin" "$r$pg_lib" "$r$pg_share" \
		"$r/var/run/postgresql" "$r/var/lib/postgresql/data"
	cp "$pg_bin"/{postgres,initdb,pg_ctl,pg_isready} "$r$pg_bin/"
	# server modules (plpgsql, snowball, encodings...); JIT needs LLVM, left out
	find "$pg_lib" -maxdepth 1 -name '*.so' ! -name 'llvmjit*.so' -exec cp {} "$r$pg_lib/" \;
	tar -C "$pg_share" --exclude=./man -cf - . | tar -C "$r$pg_share" -xf -
	cp /usr/share/zoneinfo/Etc/{UTC,GMT} "$r/usr/share/zoneinfo/Etc/"
	ln -s Etc/UTC "$r/usr/share/zoneinfo/UTC"
	ln -s Etc/GMT "$r/usr/share/zoneinfo/GMT"
	copy_libs "$r" "$r$pg_bin"/* "$r$pg_lib"/*.so
	add_busybox "$r" sh cat chmod chown echo env grep id ls mkdir mktemp printf ps rm sleep su test
	# initdb asks "locale -a" for collations; the image has only C and POSIX
	printf '#!/bin/sh\necho C\necho POSIX\n' >"$r/usr/bin/locale"
	chmod 0755 "$r/usr/bin/locale"
	printf 'root:x:0:0:root:/root:/bin/sh\npostgres:x:999:999:PostgreSQL:/var/lib/postgresql:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\npostgres:x:999:\n' >"$r/etc/group"
	install -m 0755 "$here/pg-entrypoint.sh" "$r/usr/local/bin/docker-entrypoint.sh"
	chown -R 999:999 "$r/var/run/postgresql" "$r/var/lib/postgresql"
	chmod 2775 "$r/var/run/postgresql"
	chmod 700 "$r/var/lib/postgresql/data"
}

# rootfs_hash ROOT hashes every file's content, every link's target and
# every entry's mode and owner, so the tag changes with any input.
rootfs_hash() {
	(cd "$1" && find . -printf '%p %m %U:%G %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | short_hash
}

# inputs_key FILE... hashes what a rootfs is assembled from: this script,
# the given files and the version of every installed Debian package. Files
# changed behind dpkg's back are not seen.
inputs_key() {
	{ echo "$self_sum" && cat "$@" && dpkg-query -W -f='${Package} ${Version} ${Architecture}\n'; } | short_hash
}

# cached_image REPO KEY prints REPO:TAG of an image of REPO imported from
# inputs KEY, or nothing. It spares assembling and hashing a rootfs (tens
# of seconds for PostgreSQL) when nothing changed.
cached_image() {
	docker image ls --filter "label=sweep.demo.inputs=$2" --format '{{.Repository}}:{{.Tag}}' "$1" |
		{ grep -v ':<none>$' || true; } | head -1
}

# build_rootfs_image VAR REPO KEY ASSEMBLE CHANGE... sets VAR to an image of
# REPO built from inputs KEY: a cached one, or one whose rootfs ASSEMBLE
# lays out, tagged by that rootfs's hash and imported with CHANGE....
build_rootfs_image() {
	local var="$1" repo="$2" key="$3" assemble="$4" tag
	shift 4
	tag="$(cached_image "$repo" "$key")"
	if [ -n "$tag" ]; then
		log "$tag is up to date"
	else
		log "assembling the $repo rootfs"
		"$assemble" "$work/$repo"
		tag="$repo:$(rootfs_hash "$work/$repo")"
		# imported even when the tag exists: the inputs label moves to it
		import_rootfs "$work/$repo" "$tag" "$@" "LABEL sweep.demo.inputs=$key" \
			"LABEL org.opencontainers.image.title=$repo"
		log "imported $tag"
	fi
	printf -v "$var" '%s' "$tag"
}

build_pg() {
	ensure_packages "postgresql-$pg_major" busybox-static
	build_rootfs_image PG_IMAGE sweep-demo-postgres "$(inputs_key "$here/pg-entrypoint.sh")" \
		assemble_pg_rootfs \
		'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' 'CMD ["postgres"]' \
		"ENV PATH=$pg_bin:/usr/local/bin:/usr/bin:/bin" 'ENV PGDATA=/var/lib/postgresql/data' \
		'ENV TZ=UTC' 'EXPOSE 5432'
}

# assemble_pgbouncer_rootfs ROOT lays out PgBouncer, its libraries, the
# entrypoint; it runs as the pgbouncer user.
assemble_pgbouncer_rootfs() {
	local r="$1"
	base_layout "$r"
	mkdir -p "$r/etc/pgbouncer"
	cp /usr/sbin/pgbouncer "$r/usr/sbin/"
	copy_libs "$r" /usr/sbin/pgbouncer
	add_busybox "$r" sh cat chown echo grep id ls mkdir nc printf ps sed sleep timeout
	printf 'root:x:0:0:root:/root:/bin/sh\npgbouncer:x:%s:%s:PgBouncer:/etc/pgbouncer:/bin/sh\n' \
		"$pgbouncer_uid" "$pgbouncer_uid" >"$r/etc/passwd"
	printf 'root:x:0:\npgbouncer:x:%s:\n' "$pgbouncer_uid" >"$r/etc/group"
	install -m 0755 "$here/pgbouncer-entrypoint.sh" "$r/usr/local/bin/docker-entrypoint.sh"
	chown -R "$pgbouncer_uid:$pgbouncer_uid" "$r/etc/pgbouncer"
	chmod 700 "$r/etc/pgbouncer"
}

build_pgbouncer() {
	ensure_packages pgbouncer busybox-static
	build_rootfs_image PGBOUNCER_IMAGE sweep-demo-pgbouncer \
		"$(inputs_key "$here/pgbouncer-entrypoint.sh")" \
		assemble_pgbouncer_rootfs \
		'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
		'ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/bin' "USER $pgbouncer_uid" 'EXPOSE 6432'
}

# Debian bookworm's Node.js and pg with the Node packages they need (pg
# bundles its own pg-pool, pg-protocol and pg-types). node-libpq (pg's
# optional native binding) is left out: the example uses the JavaScript
# client.
node_debs=(nodejs libnode108 node-acorn node-cjs-module-lexer node-undici node-pg node-async
	node-readable-stream node-split2 node-xtend node-core-util-is node-inherits node-isarray
	node-process-nextick-args node-safe-buffer node-string-decoder node-util-deprecate)
# the node user inside its image
node_uid=1000

# debian_versions PKG... prints PKG=VERSION lines, VERSION being the
# newest a Debian archive offers (not a third-party repository's).
debian_versions() {
	local p v
	for p in "$@"; do
		v="$(apt-cache madison "$p" | awk -F'|' '$3 ~ /debian[.]org/ {gsub(/ /, "", $2); print $2; exit}')"
		[ -n "$v" ] || { log "no Debian version of $p; run apt-get update" && exit 1; }
		echo "$p=$v"
	done
}

# assemble_node_rootfs ROOT unpacks the downloaded packages (node_pins)
# and lays out the libraries node links, busybox and the example's server.
assemble_node_rootfs() {
	local r="$1"
	base_layout "$r"
	unpack_debs "$r" "${node_pins[@]}"
	rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/lintian" "$r/usr/bin/acorn"
	LD_LIBRARY_PATH="$r/usr/lib/$multiarch" copy_libs "$r" "$r/usr/bin/node"
	add_busybox "$r" sh cat grep ls nc printf ps sleep
	mkdir -p "$r/app"
	install -m 0644 "$repo_dir/examples/node/server.js" "$r/app/server.js"
	printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:%s:%s:node:/app:/bin/sh\n' "$node_uid" "$node_uid" >"$r/etc/passwd"
	printf 'root:x:0:\nnode:x:%s:\n' "$node_uid" >"$r/etc/group"
}

build_node() {
	ensure_packages libuv1 libicu72 libc-ares2 libnghttp2-14 libbrotli1 libssl3 busybox-static
	mapfile -t node_pins < <(debian_versions "${node_debs[@]}")
	printf '%s\n' "${node_pins[@]}" >"$work/node-pins"
	build_rootfs_image NODE_IMAGE sweep-example-node \
		"$(inputs_key "$repo_dir/examples/node/server.js" "$work/node-pins")" \
		assemble_node_rootfs \
		'ENTRYPOINT ["/usr/bin/node", "/app/server.js"]' 'ENV PATH=/usr/bin:/bin' 'ENV PORT=8080' \
		'ENV NODE_ENV=production' "USER $node_uid" 'WORKDIR /app' 'EXPOSE 8080'
}

# Debian's PHP-FPM with pgsql and OPcache, and nginx (nginx-light is
# bookworm's transitional name for it); their ini files are the
# example's own (examples/php/php.ini), not the packages' conf.d.
php_debs=(php8.2-fpm php8.2-common php8.2-pgsql php8.2-opcache nginx nginx-common)
# www-data inside the PHP image
php_uid=33

# unpack_debs ROOT PIN... downloads the packages PIN... (NAME=VERSION) and
# unpacks them into ROOT.
unpack_debs() {
	local r="$1" d
	shift
	rm -rf "$work/debs" && mkdir -p "$work/debs" && chmod 0755 "$work" "$work/debs"
	log "downloading $# Debian packages"
	(cd "$work/debs" && apt-get download "$@" >&2)
	for d in "$work"/debs/*.deb; do dpkg-deb -x "$d" "$r"; done
}

# assemble_php_rootfs ROOT lays out PHP-FPM, nginx, their libraries,
# busybox and the example's files under /app.
assemble_php_rootfs() {
	local r="$1" f
	base_layout "$r"
	unpack_debs "$r" "${php_pins[@]}"
	rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/lintian" "$r/etc/php/8.2/fpm/pool.d" \
		"$r/etc/nginx/sites-enabled" "$r/etc/nginx/sites-available"
	copy_libs "$r" "$r/usr/sbin/php-fpm8.2" "$r/usr/sbin/nginx" "$r"/usr/lib/php/*/{pgsql,opcache}.so
	add_busybox "$r" sh cat grep ls nc printf ps sleep
	mkdir -p "$r/app" "$r/var/log/nginx" "$r/var/lib/nginx" "$r/usr/share/zoneinfo/Etc"
	cp /usr/share/zoneinfo/Etc/UTC "$r/usr/share/zoneinfo/Etc/"
	ln -s Etc/UTC "$r/usr/share/zoneinfo/UTC"
	for f in index.php php.ini php-fpm.conf nginx.conf; do
		install -m 0644 "$repo_dir/examples/php/$f" "$r/app/$f"
	done
	install -m 0755 "$repo_dir/examples/php/entrypoint.sh" "$r/app/entrypoint.sh"
	printf 'root:x:0:0:root:/root:/bin/sh\nwww-data:x:%s:%s:www-data:/app:/bin/sh\n' "$php_uid" "$php_uid" >"$r/etc/passwd"
	printf 'root:x:0:\nwww-data:x:%s:\n' "$php_uid" >"$r/etc/group"
	chown -R "$php_uid:$php_uid" "$r/var/log/nginx" "$r/var/lib/nginx"
}

build_php() {
	ensure_packages libargon2-1 libsodium23 libxml2 libpq5 libapparmor1 libicu72 busybox-static
	mapfile -t php_pins < <(debian_versions "${php_debs[@]}")
	printf '%s\n' "${php_pins[@]}" >"$work/php-pins"
	build_rootfs_image PHP_IMAGE sweep-example-php \
		"$(inputs_key "$repo_dir"/examples/php/{index.php,php.ini,php-fpm.conf,nginx.conf,entrypoint.sh} "$work/php-pins")" \
		assemble_php_rootfs \
		'ENTRYPOINT ["/app/entrypoint.sh"]' 'ENV PATH=/usr/sbin:/usr/bin:/bin' "USER $php_uid" \
		'WORKDIR /app' 'EXPOSE 8080'
}

# Debian's headless OpenJDK 17 and the jars of the JVM example: Jetty 9.4
# (libjetty9-java) with the servlet API it implements, HikariCP with
# slf4j (its logging; slf4j-simple prints to stderr) and the PostgreSQL
# JDBC driver (which bundles its SCRAM client).
jvm_debs=(openjdk-17-jre-headless libjetty9-java libservlet-api-java libhikaricp-java libslf4j-java
	libpostgresql-jdbc-java)
jvm_home="/usr/lib/jvm/java-17-openjdk-$(dpkg --print-architecture)"
# the classpath, from /usr/share/java
jvm_jars=(jetty9-server jetty9-http jetty9-io jetty9-util servlet-api HikariCP slf4j-api slf4j-simple postgresql)
# the JRE's libraries that link what the image leaves out (fonts, JPEG,
# sound, colour management, smart cards); a headless service loads none
jvm_unused_libs=(libfontmanager libjavajpeg libjsound liblcms libj2pcsc)
# the app user inside the JVM image
jvm_uid=1000

# relative_links ROOT makes ROOT's absolute symbolic links whose target is
# in ROOT (the JRE's links to its configuration in /etc) relative, so they
# resolve within ROOT on this host as well as in the image.
relative_links() {
	local r="$1" l t
	while IFS= read -r -d '' l; do
		t="$(readlink "$l")"
		[ -e "$r$t" ] || continue
		ln -sfn "$(realpath -s --relative-to="$(dirname "$l")" "$r$t")" "$l"
	done < <(find "$r" -type l -lname '/*' -print0)
}

# assemble_jvm_rootfs ROOT unpacks the downloaded packages (jvm_pins), lays
# out the libraries the JVM links and busybox, and compiles the example's
# App.java into /app/classes with the JRE just unpacked: Debian's JRE
# carries the jdk.compiler module, so its java runs javac.
assemble_jvm_rootfs() {
	local r="$1" cp j
	base_layout "$r"
	unpack_debs "$r" "${jvm_pins[@]}"
	rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/lintian" "$r/usr/share/maven-repo" \
		"$r/usr/lib/debug" "$r$jvm_home/docs" "$r$jvm_home/man" "$r$jvm_home/lib/src.zip"
	for j in "${jvm_unused_libs[@]}"; do rm -f "$r$jvm_home/lib/$j.so"; done
	relative_links "$r"
	LD_LIBRARY_PATH="$r$jvm_home/lib:$r$jvm_home/lib/server" \
		copy_libs "$r" "$r$jvm_home/bin/java" "$r$jvm_home"/lib/*.so "$r$jvm_home"/lib/server/*.so
	add_busybox "$r" sh cat grep ls nc printf ps sleep
	cp="$(printf "$r/usr/share/java/%s.jar:" "${jvm_jars[@]}")"
	mkdir -p "$r/app/classes"
	log "compiling examples/jvm/App.java"
	"$r$jvm_home/bin/java" -m jdk.compiler/com.sun.tools.javac.Main --release 17 -Xlint:all \
		-encoding UTF-8 -cp "${cp%:}" -d "$r/app/classes" "$repo_dir/examples/jvm/App.java" >&2
	printf 'root:x:0:0:root:/root:/bin/sh\napp:x:%s:%s:app:/app:/bin/sh\n' "$jvm_uid" "$jvm_uid" >"$r/etc/passwd"
	printf 'root:x:0:\napp:x:%s:\n' "$jvm_uid" >"$r/etc/group"
}

build_jvm() {
	local cp
	ensure_packages libstdc++6 libgcc-s1 zlib1g busybox-static
	mapfile -t jvm_pins < <(debian_versions "${jvm_debs[@]}")
	printf '%s\n' "${jvm_pins[@]}" >"$work/jvm-pins"
	cp="/app/classes$(printf ":/usr/share/java/%s.jar" "${jvm_jars[@]}")"
	build_rootfs_image JVM_IMAGE sweep-example-jvm \
		"$(inputs_key "$repo_dir/examples/jvm/App.java" "$work/jvm-pins")" \
		assemble_jvm_rootfs \
		"ENTRYPOINT [\"$jvm_home/bin/java\", \"-cp\", \"$cp\", \"App\"]" \
		"ENV PATH=$jvm_home/bin:/usr/bin:/bin" 'ENV PORT=8080' 'ENV TZ=UTC' "USER $jvm_uid" \
		'WORKDIR /app' 'EXPOSE 8080'
}

# write_env sets the variables of the images built in .env, keeping any
# other lines.
write_env() {
	local env="${SWEEP_IMAGES_ENV:-$here/.env}" tmp="$work/env" keys
	keys="$(cut -d= -f1 <<<"$1" | paste -sd'|')"
	{
		[ -f "$env" ] && grep -v -E "^($keys)=" "$env" || true
		echo "$1"
	} >"$tmp"
	mv "$tmp" "$env"
	log "wrote $env"
}

# env_line NAME prints the .env line of image NAME.
env_line() {
	case "$1" in
	app) echo "SWEEP_DEMO_APP_IMAGE=$APP_IMAGE" ;;
	pg) echo "SWEEP_DEMO_PG_IMAGE=$PG_IMAGE" ;;
	pgbouncer) echo "SWEEP_DEMO_PGBOUNCER_IMAGE=$PGBOUNCER_IMAGE" ;;
	drive) echo "SWEEP_DEMO_DRIVE_IMAGE=$DRIVE_IMAGE" ;;
	node) echo "SWEEP_EXAMPLE_NODE_IMAGE=$NODE_IMAGE" ;;
	php) echo "SWEEP_EXAMPLE_PHP_IMAGE=$PHP_IMAGE" ;;
	jvm) echo "SWEEP_EXAMPLE_JVM_IMAGE=$JVM_IMAGE" ;;
	orders) echo "SWEEP_EXAMPLE_ORDERS_IMAGE=$ORDERS_IMAGE" ;;
	k6) echo "SWEEP_DEMO_K6_IMAGE=$K6_IMAGE" ;;
	esac
}

# main builds the images named in its arguments (app, pg, pgbouncer, drive,
# node, php, jvm, orders, k6; the demo's four without arguments), prints their variables and writes them to .env.
main() {
	local lines="" name
	APP_IMAGE="${SWEEP_DEMO_APP_IMAGE:-}"
	PG_IMAGE="${SWEEP_DEMO_PG_IMAGE:-}"
	PGBOUNCER_IMAGE="${SWEEP_DEMO_PGBOUNCER_IMAGE:-}"
	DRIVE_IMAGE="${SWEEP_DEMO_DRIVE_IMAGE:-}"
	NODE_IMAGE="${SWEEP_EXAMPLE_NODE_IMAGE:-}"
	PHP_IMAGE="${SWEEP_EXAMPLE_PHP_IMAGE:-}"
	JVM_IMAGE="${SWEEP_EXAMPLE_JVM_IMAGE:-}"
	ORDERS_IMAGE="${SWEEP_EXAMPLE_ORDERS_IMAGE:-}"
	K6_IMAGE="${SWEEP_DEMO_K6_IMAGE:-}"
	[ $# -gt 0 ] || set -- app pg pgbouncer drive
	for name in "$@"; do
		case "$name" in
		app) [ -n "$APP_IMAGE" ] || build_app ;;
		pg) [ -n "$PG_IMAGE" ] || build_pg ;;
		pgbouncer) [ -n "$PGBOUNCER_IMAGE" ] || build_pgbouncer ;;
		drive) [ -n "$DRIVE_IMAGE" ] || build_drive ;;
		node) [ -n "$NODE_IMAGE" ] || build_node ;;
		php) [ -n "$PHP_IMAGE" ] || build_php ;;
		jvm) [ -n "$JVM_IMAGE" ] || build_jvm ;;
		orders) [ -n "$ORDERS_IMAGE" ] || build_orders ;;
		k6) [ -n "$K6_IMAGE" ] || build_k6 ;;
		*) log "unknown image $name, want app, pg, pgbouncer, drive, node, php, jvm, orders or k6" && exit 2 ;;
		esac
		lines+="$(env_line "$name")"$'\n'
	done
	write_env "${lines%$'\n'}"
	printf '%s' "$lines"
}

main "$@"
