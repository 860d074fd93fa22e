# node.sh: one dockerd per node, sourced by fixture.sh.
#
# Node I's dockerd runs inside namespace sweepswarm-node<I> (entered with
# nsenter, not `ip netns exec`, which remounts /sys and leaves it no
# cgroups), under `taskset -c <its CPUs>`, which its containers inherit.
# Everything it owns is under $DIR/node<I>: config, data-root, exec-root,
# pidfile, socket, log. Its containers' cgroups sit under
# /sweepswarm-node<I> (--cgroup-parent); the daemon itself, its containerd
# and shims under /sweepswarm-node<I>/dockerd in one hierarchy (pids on
# cgroup v1), so whatever outlives the daemon is found by cgroup, provably
# the fixture's, never by process name.

node_dir() { echo "$DIR/node$1"; }
node_host() { echo "unix://$(node_dir "$1")/docker.sock"; }
ndocker() {
	local i="$1"
	shift
	docker -H "$(node_host "$i")" "$@"
}

# cg_track prints the hierarchy that holds the daemon's tracking cgroup:
# the unified one on cgroup v2, pids on v1, nothing when neither exists.
cg_track() {
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		echo /sys/fs/cgroup
	elif [ -d /sys/fs/cgroup/pids ]; then
		echo /sys/fs/cgroup/pids
	fi
}

# node_cgroups prints every cgroup directory of the fixture's nodes, in
# every hierarchy.
node_cgroups() {
	find /sys/fs/cgroup -maxdepth 2 -type d -name "$PREFIX-node*" 2>/dev/null || true
}

# write_config I writes node I's daemon.json, only when it differs.
write_config() {
	local d
	d="$(node_dir "$1")"
	mkdir -p "$d"
	cat >"$d/daemon.json.new" <<-EOF
		{
		  "data-root": "$d/data",
		  "exec-root": "$d/exec",
		  "pidfile": "$d/dockerd.pid",
		  "hosts": ["$(node_host "$1")"],
		  "storage-driver": "vfs",
		  "exec-opts": ["native.cgroupdriver=cgroupfs"],
		  "cgroup-parent": "/$PREFIX-node$1",
		  "deprecated-key-path": "$d/key.json",
		  "userland-proxy": false,
		  "log-driver": "json-file",
		  "log-opts": {"max-size": "10m", "max-file": "2"}
		}
	EOF
	if cmp -s "$d/daemon.json.new" "$d/daemon.json"; then
		rm "$d/daemon.json.new"
	else
		mv "$d/daemon.json.new" "$d/daemon.json"
	fi
}

# dockerd_pid I prints the PID in node I's pidfile when that process is
# alive and is the dockerd started with node I's config; nothing otherwise.
dockerd_pid() {
	local d pid
	d="$(node_dir "$1")"
	pid="$(cat "$d/dockerd.pid" 2>/dev/null)" || return 0
	[[ "$pid" =~ ^[0-9]+$ ]] || return 0
	{ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "--config-file $d/daemon.json " && echo "$pid"
	return 0
}

# start_dockerd I CPUS starts node I's dockerd in the background, in its
# own session, unless it runs already. It refuses when the namespace holds
# processes outside the fixture's cgroups (another state dir's daemon);
# what a crashed daemon of its own left (containerd shims) the new daemon
# takes over. Every inherited descriptor but stdio is closed first: a
# caller's lock (flock /tmp/sweep-docker.lock make swarm-up) would
# otherwise stay held for as long as the fixture is up.
start_dockerd() {
	local i="$1" cpus="$2" d ns track cg pids
	d="$(node_dir "$i")" ns="$(node_ns "$i")"
	[ -n "$(dockerd_pid "$i")" ] && return 0
	pids="$(ip netns pids "$ns" | { grep -vxF -f <(cgroup_pids; echo none) || true; } | paste -sd' ')"
	[ -z "$pids" ] || die "namespace $ns holds processes $pids that this fixture ($d) did not start; a fixture with another SWEEP_SWARM_DIR? stop it with its swarm-down"
	track="$(cg_track)" cg=""
	if [ -n "$track" ]; then
		cg="$track/$PREFIX-node$i/dockerd"
		mkdir -p "$cg"
	fi
	env -i PATH="$PATH" HOME="$d" setsid bash -c \
		'for f in /proc/$$/fd/*; do f="${f##*/}"; [ "$f" -le 2 ] || eval "exec $f>&-"; done 2>/dev/null
		[ -z "$1" ] || echo $$ >"$1/cgroup.procs"; exec nsenter --net="$2" taskset -c "$3" dockerd --config-file "$4"' \
		_ "$cg" "/var/run/netns/$ns" "$cpus" "$d/daemon.json" </dev/null >>"$d/dockerd.log" 2>&1 9>&- &
	echo "$!" >"$d/launch.pid"
	say "node$i: started dockerd on cpus $cpus"
}

# wait_dockerd I waits up to 60 s until node I's engine answers.
wait_dockerd() {
	local i="$1" d launched t
	d="$(node_dir "$i")"
	launched="$(cat "$d/launch.pid" 2>/dev/null || true)"
	for ((t = 0; t < 600; t++)); do
		if [ -n "$(dockerd_pid "$i")" ] && ndocker "$i" version >/dev/null 2>&1; then
			return 0
		fi
		if [ -n "$launched" ] && ! alive "$launched" && [ -z "$(dockerd_pid "$i")" ]; then
			tail -20 "$d/dockerd.log" >&2
			die "node$i: dockerd exited (log: $d/dockerd.log)"
		fi
		sleep 0.1
	done
	die "node$i: dockerd did not answer within 60 s (log: $d/dockerd.log)"
}

# alive PID is true while the process exists and is not a zombie.
alive() {
	local st
	st="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# cgroup_pids prints the processes left in the fixture's cgroups.
cgroup_pids() {
	local c
	for c in $(node_cgroups); do
		find "$c" -name cgroup.procs -exec cat {} + 2>/dev/null
	done | sort -un
}

# wait_gone SECONDS PID... waits until the processes exited; prints those
# still alive after SECONDS.
wait_gone() {
	local secs="$1" t p left
	shift
	for ((t = 0; t <= secs * 10; t++)); do
		left=""
		for p in "$@"; do alive "$p" && left+="$p "; done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "$left"
}

# stop_nodes stops every node's dockerd by its pidfile (all at once, so
# the swarm shuts down in parallel), waits for them, then ends whatever is
# left in the fixture's cgroups (containerd, shims, containers).
stop_nodes() {
	local d i pid pids=() left
	for d in "$DIR"/node*; do
		[ -d "$d" ] || continue
		i="${d##*/node}"
		pid="$(dockerd_pid "$i")"
		[ -n "$pid" ] || continue
		kill -TERM "$pid" && pids+=("$pid") && say "node$i: stopping dockerd $pid"
	done
	if [ ${#pids[@]} -gt 0 ]; then
		left="$(wait_gone 60 "${pids[@]}")"
		[ -z "$left" ] || { say "dockerd $left still up after 60 s: killing"; kill -KILL $left 2>/dev/null || true; }
	fi
	mapfile -t pids < <(cgroup_pids)
	[ ${#pids[@]} -eq 0 ] && return 0
	say "ending ${#pids[@]} leftover processes of the fixture's cgroups: ${pids[*]}"
	kill -TERM "${pids[@]}" 2>/dev/null || true
	left="$(wait_gone 10 "${pids[@]}")"
	[ -z "$left" ] || kill -KILL $left 2>/dev/null || true
	left="$(wait_gone 5 $left)"
	[ -z "$left" ] || die "processes $left outlived SIGKILL"
}

# unmount_leftovers unmounts everything mounted under $DIR (dockerd leaves
# netns bind mounts behind), deepest first.
unmount_leftovers() {
	local m
	for m in $(findmnt -rn -o TARGET | { grep -F "$DIR/" || true; } | awk '{print length, $0}' | sort -rn | cut -d' ' -f2-); do
		umount "$m" 2>/dev/null || umount -l "$m"
		say "unmounted $m"
	done
}

# remove_cgroups removes the fixture's cgroups, children first. The
# kernel may refuse (EBUSY) for a moment after a cgroup's last process
# exited, so it tries for up to 5 s before it gives up.
remove_cgroups() {
	local -a cgs
	local t n
	mapfile -t cgs < <(node_cgroups)
	n=${#cgs[@]}
	[ "$n" -eq 0 ] && return 0
	for ((t = 1; ; t++)); do
		find "${cgs[@]}" -depth -type d -exec rmdir {} + 2>/dev/null && break
		mapfile -t cgs < <(node_cgroups)
		[ ${#cgs[@]} -eq 0 ] && break
		[ "$t" -lt 50 ] || find "${cgs[@]}" -depth -type d -exec rmdir {} +
		sleep 0.1
	done
	say "removed cgroups $PREFIX-node* from $n hierarchy directories$([ "$t" -eq 1 ] || echo " (at try $t: the kernel held some a moment longer)")"
}
