#!/usr/bin/env bash
# images.sh builds the demo stack's two images on this machine, with no
# registry and no Docker builder, and points compose/demo/.env at them:
#
#   sweep-demoapp:<12 hex of sha256 of the binary>   static Go binary only
#   sweep-demo-postgres:<12 hex of sha256 of the rootfs>
#                       PostgreSQL 15 from Debian's packages, busybox, and an
#                       entrypoint compatible with the official postgres image
#
# Tags follow content, so a run with nothing changed rebuilds nothing.
# A caller that already has an image (e.g. postgres:15 from a registry) sets
# SWEEP_DEMO_PG_IMAGE or SWEEP_DEMO_APP_IMAGE and that one is used as is.
# Needs: bash, docker, go, and (for PostgreSQL) Debian's postgresql-15 and
# busybox-static, which it installs with apt-get when missing (as root).
# Prints the two tags on stdout, progress on stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
pg_major=15
pg_bin="/usr/lib/postgresql/$pg_major/bin"
pg_lib="/usr/lib/postgresql/$pg_major/lib"
pg_share="/usr/share/postgresql/$pg_major"
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

build_app() {
	log "building demoapp"
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' \
		-o "$work/app/demoapp" ./cmd/demoapp)
	local tag
	tag="sweep-demoapp:$(short_hash <"$work/app/demoapp")"
	if have_image "$tag"; then
		log "$tag exists, not rebuilt"
	else
		import_rootfs "$work/app" "$tag" 'ENTRYPOINT ["/demoapp"]' 'EXPOSE 8080' \
			'ENV PORT=8080' 'LABEL org.opencontainers.image.title=sweep-demoapp'
		log "imported $tag"
	fi
	docker tag "$tag" sweep-demoapp:latest
	APP_IMAGE="$tag"
}

# ensure_packages installs the Debian packages the PostgreSQL image is made
# of, refreshing the package lists only when a plain install fails.
ensure_packages() {
	local missing=()
	for p in "postgresql-$pg_major" busybox-static; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
		{ apt-get update >&2 && apt-get install -y --no-install-recommends "${missing[@]}" >&2; }
}

# copy_libs ROOT copies the shared libraries (and the loader) that the
# server programs and modules under ROOT need, as ldd on this machine
# resolves them. ldd runs once over all of them: it is the slow step.
copy_libs() {
	local root="$1" deps
	deps="$(ldd "$root$pg_bin"/* "$root$pg_lib"/*.so 2>/dev/null |
		awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(/ {print $1}' | sort -u)"
	grep -v '/ld-linux' <<<"$deps" | xargs cp -L -t "$root/usr/lib/$multiarch"
	grep '/ld-linux' <<<"$deps" | xargs cp -L -t "$root/usr/lib64"
}

# assemble_pg_rootfs ROOT lays out the smallest tree PostgreSQL, initdb,
# pg_ctl, pg_isready and the entrypoint need.
assemble_pg_rootfs() {
	local r="$1"
	mkdir -p "$r"/{etc,tmp,usr/bin,usr/lib64,"usr/lib/$multiarch",usr/local/bin,usr/share/zoneinfo/Etc} \
		"$r$pg_bin" "$r$pg_lib" "$r$pg_share" "$r/var/run/postgresql" "$r/var/lib/postgresql/data"
	ln -s usr/bin "$r/bin"
	ln -s usr/lib "$r/lib"
	ln -s usr/lib64 "$r/lib64"
	cp "$pg_bin"/{postgres,initdb,pg_ctl,pg_isready} "$r$pg_bin/"
	# server modules (plpgsql, snowball, encodings...); JIT needs LLVM, left out
	find "$pg_lib" -maxdepth 1 -name '*.so' ! -name 'llvmjit*.so' -exec cp {} "$r$pg_lib/" \;
	tar -C "$pg_share" --exclude=./man -cf - . | tar -C "$r$pg_share" -xf -
	cp /usr/share/zoneinfo/Etc/{UTC,GMT} "$r/usr/share/zoneinfo/Etc/"
	ln -s Etc/UTC "$r/usr/share/zoneinfo/UTC"
	ln -s Etc/GMT "$r/usr/share/zoneinfo/GMT"
	copy_libs "$r"
	cp /bin/busybox "$r/usr/bin/busybox"
	for a in sh cat chmod chown echo env grep id ls mkdir mktemp printf ps rm sleep su test; do
		ln -s busybox "$r/usr/bin/$a"
	done
	# initdb asks "locale -a" for collations; the image has only C and POSIX
	printf '#!/bin/sh\necho C\necho POSIX\n' >"$r/usr/bin/locale"
	chmod 0755 "$r/usr/bin/locale"
	printf 'root:x:0:0:root:/root:/bin/sh\npostgres:x:999:999:PostgreSQL:/var/lib/postgresql:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\npostgres:x:999:\n' >"$r/etc/group"
	printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$r/etc/nsswitch.conf"
	install -m 0755 "$here/pg-entrypoint.sh" "$r/usr/local/bin/docker-entrypoint.sh"
	chmod 1777 "$r/tmp"
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

build_pg() {
	ensure_packages
	log "assembling the PostgreSQL rootfs"
	assemble_pg_rootfs "$work/pg"
	local tag
	tag="sweep-demo-postgres:$(rootfs_hash "$work/pg")"
	if have_image "$tag"; then
		log "$tag exists, not rebuilt"
	else
		import_rootfs "$work/pg" "$tag" \
			'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' 'CMD ["postgres"]' \
			"ENV PATH=$pg_bin:/usr/local/bin:/usr/bin:/bin" 'ENV PGDATA=/var/lib/postgresql/data' \
			'ENV TZ=UTC' 'EXPOSE 5432' \
			'LABEL org.opencontainers.image.title=sweep-demo-postgres'
		log "imported $tag"
	fi
	PG_IMAGE="$tag"
}

# write_env sets the two image variables in .env, keeping any other lines.
write_env() {
	local env="$here/.env" tmp="$work/env"
	{
		[ -f "$env" ] && grep -v -E '^(SWEEP_DEMO_APP_IMAGE|SWEEP_DEMO_PG_IMAGE)=' "$env" || true
		echo "SWEEP_DEMO_APP_IMAGE=$APP_IMAGE"
		echo "SWEEP_DEMO_PG_IMAGE=$PG_IMAGE"
	} >"$tmp"
	mv "$tmp" "$env"
	log "wrote $env"
}

main() {
	APP_IMAGE="${SWEEP_DEMO_APP_IMAGE:-}"
	PG_IMAGE="${SWEEP_DEMO_PG_IMAGE:-}"
	[ -n "$APP_IMAGE" ] || build_app
	[ -n "$PG_IMAGE" ] || build_pg
	write_env
	echo "SWEEP_DEMO_APP_IMAGE=$APP_IMAGE"
	echo "SWEEP_DEMO_PG_IMAGE=$PG_IMAGE"
}

main "$@"
