# Sourced by guest scripts (tests/vm/t/30-perftest.sh, bench/guest.sh):
# perftest over RDMA-CM (-R) from RPCRDMA_DEV_A (rxe0 or siw0: client, from
# RPCRDMA_ADDR_A) to RPCRDMA_DEV_B (rxe1 or siw1: server, RPCRDMA_ADDR_B).
#
# Debian's perftest (4.5-0.17) ignores --source_ip in -R mode on both
# sides: its server listens on the wildcard address and its client resolves
# B without a source, which the local table would send over lo, keeping the
# connection on rxe1 at both ends. perftest_route_on adds a rule that sends
# unbound traffic to B out of v0 from A (table 10, made by tests/vm/run),
# so the client is on rxe0 and the server, reached at B, on rxe1; the GIDs
# each side prints are checked by perftest_pair. perftest_route_off takes
# the rule away. (Unbound TCP to B takes the same path while it is on.)
#
# perftest_pair OUTDIR TAG TOOL ARGS...: server and client of TOOL with
# ARGS; both must exit 0 and the connection must go from A to B. Full
# outputs go to OUTDIR/TAG.{server,client}.txt; the result line (the one
# after perftest's column headings) is left in PERFTEST_LINE. Returns
# non-zero, saying why on stderr, otherwise. Call it directly, not in a
# subshell, so that each run gets a port of its own.
PERFTEST_PORT=${PERFTEST_PORT:-18600}
PERFTEST_DEV_A=${RPCRDMA_DEV_A:-rxe0}
PERFTEST_DEV_B=${RPCRDMA_DEV_B:-rxe1}

perftest_route_on() {
	ip rule add pref 12 iif lo to "$RPCRDMA_ADDR_B" lookup 10
}

perftest_route_off() {
	ip rule del pref 12 2>/dev/null
	return 0
}

perftest_gid() {
	echo "$1" | awk -F. '{ printf "%d:%d:%02d:%02d", $1, $2, $3, $4 }'
}

perftest_wait_listen() {
	local i
	for i in $(seq 100); do
		rdma resource show cm_id 2>/dev/null |
			grep -q "state LISTEN .*comm $1 .*:$PERFTEST_PORT " &&
			return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

perftest_pair() {
	local out=$1 tag=$2 tool=$3 spid crc src
	local gid_a gid_b
	shift 3
	gid_a=$(perftest_gid "$RPCRDMA_ADDR_A")
	gid_b=$(perftest_gid "$RPCRDMA_ADDR_B")
	PERFTEST_PORT=$((PERFTEST_PORT + 1))
	timeout 100 "$tool" -R -d "$PERFTEST_DEV_B" -p "$PERFTEST_PORT" -F "$@" \
		>"$out/$tag.server.txt" 2>&1 &
	spid=$!
	if ! perftest_wait_listen "$tool" "$spid"; then
		echo "$tool: the server never listened on port $PERFTEST_PORT" >&2
		cat "$out/$tag.server.txt" >&2
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		return 1
	fi
	timeout 100 "$tool" -R -d "$PERFTEST_DEV_A" -p "$PERFTEST_PORT" -F "$@" \
		"$RPCRDMA_ADDR_B" >"$out/$tag.client.txt" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		{
			echo "$tool $*: client exit status $crc, server exit status $src"
			cat "$out/$tag.client.txt"
			echo "--- $tool server output:"
			cat "$out/$tag.server.txt"
		} >&2
		return 1
	fi
	# perftest prints the local GID, then the remote one: A, then B.
	# iWARP has no GIDs of addresses (siw's are its MAC): there the
	# device named by -d on each side is the check.
	if [ "${RPCRDMA_PROVIDER:-rxe}" = rxe ] && ! grep -A 3 'local address' "$out/$tag.client.txt" |
		awk -v a="$gid_a" -v b="$gid_b" '
			/GID:/ { n++; g[n] = $2 }
			END { exit !(g[1] ~ (a "$") && g[2] ~ (b "$")) }'; then
		echo "$tool: the connection did not go from $RPCRDMA_ADDR_A ($PERFTEST_DEV_A) to $RPCRDMA_ADDR_B ($PERFTEST_DEV_B)" >&2
		return 1
	fi
	PERFTEST_LINE=$(awk '/#bytes/ { getline; print; exit }' \
		"$out/$tag.client.txt")
	if [ -z "$PERFTEST_LINE" ]; then
		echo "$tool: no result line in the client's output" >&2
		return 1
	fi
}
