#!/usr/bin/env bash
# fixture.sh starts and stops sweep's multi-node Docker Swarm test fixture
# on this one machine: N extra dockerd processes (SWARM_NODES, default 3),
# each in a network namespace of its own and pinned to its own CPUs where
# the machine has enough, joined as one swarm (node 1 the manager).
#
# Usage: fixture.sh up|down   (as root; `make swarm-up` / `make swarm-down`)
#
# up    is idempotent: with everything up it changes nothing and prints the
#       same. It prints one line per node (id, address, CPUs, role, socket),
#       writes them to $SWEEP_SWARM_DIR/swarm.json and swarm.env, and ends
#       with `export DOCKER_HOST=unix://...` for the manager.
# down  stops exactly what up started, by its pidfiles, then removes the
#       mounts, namespaces, links, routes, cgroups and data it made.
#       Safe when nothing is up.
#
# Environment: SWEEP_SWARM_DIR (state, default /var/lib/sweep-swarm),
# SWARM_NODES, SWARM_CPUS (one taskset list per node, e.g. "0 1 0"),
# SWARM_ROLES (one role per node, "-" for none), SWARM_IMAGES (images to
# load into every node; default: the demo's, from compose/demo/.env).
# Needs root, iproute2, util-linux, mount and docker.io (dockerd).
# Only one fixture runs per machine: names and addresses are fixed.
set -Eeuo pipefail
trap 'say "failed: line $LINENO: $BASH_COMMAND"' ERR

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PREFIX=sweepswarm
DIR="${SWEEP_SWARM_DIR:-/var/lib/sweep-swarm}"
LOCK=/run/lock/$PREFIX.lock
declare -A ROLE=()

# say reports progress on stderr with the seconds since the start, so
# stdout carries only the summary and a rerun that changes nothing prints
# the same.
say() { printf 'swarm-fixture: [%5.1fs] %s\n' "$(($(date +%s%N) - START))e-9" "$*" >&2; }
START="$(date +%s%N)"
die() {
	say "$*"
	exit 1
}

# shellcheck source=net.sh
. "$HERE/net.sh"
# shellcheck source=node.sh
. "$HERE/node.sh"
# shellcheck source=cluster.sh
. "$HERE/cluster.sh"

# preflight checks what every command needs and takes the machine's
# fixture lock (released when the script exits).
preflight() {
	[ "$(id -u)" -eq 0 ] || die "needs root: it makes network namespaces, links, cgroups and dockerd processes (run as root, e.g. sudo make swarm-up)"
	local t missing=() pkgs=()
	declare -A pkg=([ip]=iproute2 [nsenter]=util-linux [taskset]=util-linux [setsid]=util-linux
		[flock]=util-linux [findmnt]=util-linux [mountpoint]=util-linux [umount]=mount [dockerd]=docker.io [docker]=docker.io)
	for t in ip nsenter taskset setsid flock findmnt mountpoint umount dockerd docker; do
		command -v "$t" >/dev/null && continue
		missing+=("$t")
		[[ " ${pkgs[*]} " == *" ${pkg[$t]} "* ]] || pkgs+=("${pkg[$t]}")
	done
	[ ${#missing[@]} -eq 0 ] || die "missing ${missing[*]}: install them with apt-get install -y ${pkgs[*]}"
	[[ "$DIR" =~ ^/[A-Za-z0-9._/-]+$ ]] || die "SWEEP_SWARM_DIR must be an absolute path without spaces: $DIR"
	[ ${#DIR} -le 60 ] || die "SWEEP_SWARM_DIR is too long for the nodes' unix sockets (at most 60 characters): $DIR"
	# the main engine, whatever DOCKER_HOST said: not a node of this fixture
	[[ "${DOCKER_HOST:-}" != *"$DIR/"* ]] || unset DOCKER_HOST
	mkdir -p "${LOCK%/*}"
	exec 9>"$LOCK"
	flock 9
}

# allowed_cpus prints the CPUs this process may run on, one a line.
allowed_cpus() {
	local r
	for r in $(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status | tr ',' ' '); do
		seq "${r%-*}" "${r#*-}"
	done
}

# check_count N fails when the fixture is up, or was partly made, with
# another number of nodes: CPUs are shared out for a given count, so the
# count changes only through swarm-down.
check_count() {
	local ns up
	up="$(sed -n 's/^SWEEP_SWARM_NODES=//p' "$DIR/swarm.env" 2>/dev/null)" || true
	[ -z "$up" ] || [ "$up" -eq "$1" ] || die "the fixture is up with $up nodes, not SWARM_NODES=$1: run make swarm-down first to change the count"
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^$PREFIX-node[0-9]+$" || true); do
		[ "${ns#"$PREFIX"-node}" -le "$1" ] || die "the fixture has $ns but SWARM_NODES=$1: run make swarm-down first to change the count"
	done
}

# check_lists N fails unless SWARM_CPUS and SWARM_ROLES, when set, have
# one word per node.
check_lists() {
	local v words
	for v in SWARM_CPUS SWARM_ROLES; do
		[ -n "${!v:-}" ] || continue
		read -ra words <<<"${!v}"
		[ ${#words[@]} -eq "$1" ] || die "$v has ${#words[@]} words for $1 nodes: ${!v}"
	done
}

# node_cpus I N prints node I's CPU list: word I of SWARM_CPUS, or one CPU
# each with the workers served first, so the manager is the node that
# shares when there are more nodes than CPUs.
node_cpus() {
	local i="$1" n="$2" cpus
	if [ -n "${SWARM_CPUS:-}" ]; then
		read -ra cpus <<<"$SWARM_CPUS"
		echo "${cpus[i - 1]}"
		return
	fi
	mapfile -t cpus < <(allowed_cpus)
	echo "${cpus[((i + n - 2) % n) % ${#cpus[@]}]}"
}

# node_role I N prints node I's role label: word I of SWARM_ROLES ("-" for
# none); by default the manager drives the load, then db, then app.
node_role() {
	local i="$1" n="$2" roles
	if [ -n "${SWARM_ROLES:-}" ]; then
		read -ra roles <<<"$SWARM_ROLES"
	elif [ "$n" -eq 2 ]; then
		roles=(db app)
	elif [ "$n" -ge 3 ]; then
		roles=(load db app)
	else
		roles=()
	fi
	[ "${roles[i - 1]:--}" = - ] || echo "${roles[i - 1]}"
}

cmd_up() {
	local n="${SWARM_NODES:-3}" i ns img_pid
	if ! [[ "$n" =~ ^[1-9][0-9]?$ ]] || [ "$n" -gt 32 ]; then die "SWARM_NODES must be 1..32, not $n"; fi
	check_count "$n"
	check_lists "$n"
	check_ranges "$n"
	mkdir -p "$DIR"
	touch "$DIR/.sweep-swarm"
	net_up_hub
	for ((i = 1; i <= n; i++)); do net_up_node "$i"; done
	for ((i = 1; i <= n; i++)); do
		write_config "$i"
		start_dockerd "$i" "$(node_cpus "$i" "$n")"
	done
	for ((i = 1; i <= n; i++)); do wait_dockerd "$i"; done
	sync_images "$n" &
	img_pid=$!
	swarm_form "$n"
	for ((i = 1; i <= n; i++)); do ROLE[$i]="$(node_role "$i" "$n")"; done
	label_nodes "$n"
	wait "$img_pid" || die "loading images into the nodes failed"
	write_state "$n"
	print_summary "$n"
}

# write_state N writes swarm.json and swarm.env (temp + rename, only when
# they change): what tests and scripts read to find the nodes.
write_state() {
	local n="$1" i sep="" json env
	json="{\"dir\":\"$DIR\",\"manager\":\"$(node_host 1)\",\"nodes\":["
	env="SWEEP_SWARM_DIR=$DIR"$'\n'"SWEEP_SWARM_MANAGER=$(node_host 1)"$'\n'"SWEEP_SWARM_NODES=$n"$'\n'
	for ((i = 1; i <= n; i++)); do
		json+="$sep{\"index\":$i,\"id\":\"$(node_id "$i")\",\"addr\":\"$(node_addr "$i")\",\"host\":\"$(node_host "$i")\","
		json+="\"netns\":\"$(node_ns "$i")\",\"cpus\":\"${NODE_CPUS[$i]}\",\"role\":\"${ROLE[$i]}\",\"manager\":$([ "$i" -eq 1 ] && echo true || echo false)}"
		env+="SWEEP_SWARM_NODE${i}_ID=$(node_id "$i")"$'\n'"SWEEP_SWARM_NODE${i}_ADDR=$(node_addr "$i")"$'\n'
		env+="SWEEP_SWARM_NODE${i}_HOST=$(node_host "$i")"$'\n'"SWEEP_SWARM_NODE${i}_CPUS=${NODE_CPUS[$i]}"$'\n'
		env+="SWEEP_SWARM_NODE${i}_ROLE=${ROLE[$i]}"$'\n'
		sep=,
	done
	replace_file "$DIR/swarm.json" "$json]}"$'\n'
	replace_file "$DIR/swarm.env" "$env"
}

# replace_file PATH CONTENT writes CONTENT to PATH atomically unless PATH
# holds it already.
replace_file() {
	[ "$(cat "$1" 2>/dev/null)"$'\n' = "$2" ] && return 0
	printf '%s' "$2" >"$1.new"
	mv "$1.new" "$1"
}

# print_summary N prints the nodes, how they share CPUs, and the export
# line for the manager, last.
print_summary() {
	local n="$1" i kind cpus shared
	declare -A on=()
	for ((i = 1; i <= n; i++)); do
		kind=worker
		[ "$i" -eq 1 ] && kind=manager
		cpus="${NODE_CPUS[$i]}"
		on[$cpus]+="node$i "
		printf 'node%s %-7s id=%s addr=%s cpus=%s role=%s host=%s\n' "$i" "$kind" "$(node_id "$i")" \
			"$(node_addr "$i")" "$cpus" "${ROLE[$i]}" "$(node_host "$i")"
	done
	shared=""
	for cpus in $(printf '%s\n' "${!on[@]}" | sort); do
		[ "$(wc -w <<<"${on[$cpus]}")" -gt 1 ] && shared+="; ${on[$cpus]% } share cpus $cpus"
	done
	echo "cpus: $(allowed_cpus | wc -l) on this machine for $n nodes${shared:-; each node has its own}"
	echo "state: $DIR/swarm.json $DIR/swarm.env"
	echo "export DOCKER_HOST=$(node_host 1)"
}

cmd_down() {
	rm -f "$DIR/swarm.json" "$DIR/swarm.env"
	stop_nodes
	unmount_leftovers
	net_down
	remove_cgroups
	if [ -f "$DIR/.sweep-swarm" ]; then
		rm -rf --one-file-system "$DIR"/node[0-9]* "$DIR/images.tar" "$DIR/run-netns" "$DIR/.sweep-swarm"
		rmdir "$DIR" 2>/dev/null || say "left $DIR: it holds files the fixture did not make"
	fi
	check_down
	echo "swarm fixture down"
}

# check_down fails when anything of the fixture is left.
check_down() {
	local left=""
	[ -z "$(cgroup_pids)" ] || left+=" processes $(cgroup_pids | paste -sd' ')"
	[ -z "$(node_cgroups)" ] || left+=" cgroups $(node_cgroups | paste -sd' ')"
	! findmnt -rn -o TARGET | grep -qF "$DIR/" || left+=" mounts under $DIR"
	! ip netns list | grep -q "^$PREFIX-" || left+=" namespaces"
	! ip -o link show | grep -q ": $PREFIX-r[0-9]*[:@]" || left+=" links"
	[ -z "$left" ] || die "left behind:$left"
}

main() {
	case "${1:-}" in
	up) preflight && cmd_up ;;
	down) preflight && cmd_down ;;
	*)
		echo "usage: $0 up|down" >&2
		exit 2
		;;
	esac
}

main "$@"
