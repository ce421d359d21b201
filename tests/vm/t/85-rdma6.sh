# The netid "rdma6": the kv example (examples/kv/demo-guest.sh) between
# IPv6 addresses on the veth pair, kv_server registered with rpcbind under
# "rdma6" and kv_client finding it there: inline and chunked puts and gets
# (read and write chunks by the transport counters), list, del, stat, a
# callback to a watching client. (tcp6 as a control did not answer between
# the two local addresses under these rules: not investigated yet.)
#
# Two rxe devices in one kernel: RDMA-CM on the passive side checks that
# the client's address is reached through the device the request came in
# on (cma_get_net_dev -> validate_ipv6_net_dev: a route lookup to the
# client's address from the server's, with the receiving netdev as oif,
# that must give that netdev; both addresses being local, the local table
# would answer lo). Rules for that lookup alone (oif given, no iif) send
# it over the pair, as the rules of guest-setup.sh do for IPv4's traffic.
# Everything is undone at the end.
# vm-timeout: 300
A6=fd00:99::1
B6=fd00:99::2
for c in rpcbind rpcinfo ip; do
	command -v $c >/dev/null || { echo "$c not installed"; exit 77; }
done
[ -x ./examples/kv/kv_server ] || { echo "85-rdma6: kv example not built"; exit 1; }

undo() {
	ip -6 rule del pref 10 2>/dev/null
	ip -6 rule del pref 11 2>/dev/null
	ip -6 rule del pref 12 2>/dev/null
	ip -6 rule del pref 13 2>/dev/null
	ip -6 rule show | grep -q '^0:' || ip -6 rule add pref 0 lookup local
	ip -6 rule del pref 100 lookup local 2>/dev/null
	for t in 10 11 12 13; do ip -6 route flush table $t 2>/dev/null; done
	ip -6 addr del $A6/64 dev v0 2>/dev/null
	ip -6 addr del $B6/64 dev v1 2>/dev/null
	[ -n "$started_rpcbind" ] && pkill -x rpcbind
}
started_rpcbind=
trap undo EXIT
die() { echo "85-rdma6: FAILED: $*"; exit 1; }

ip -6 addr add $A6/64 dev v0 nodad || die "IPv6 address on v0"
ip -6 addr add $B6/64 dev v1 nodad || die "IPv6 address on v1"
ip -6 -batch - <<EOT || die "IPv6 rules"
rule add pref 100 lookup local
rule del pref 0
rule add pref 10 iif lo from $A6 to $B6 lookup 10
rule add pref 11 iif lo from $B6 to $A6 lookup 11
route add $B6 dev v0 src $A6 table 10
route add $A6 dev v1 src $B6 table 11
rule add pref 12 from $B6 to $A6 oif v1 lookup 12
route add $A6 dev v1 table 12
rule add pref 13 from $A6 to $B6 oif v0 lookup 13
route add $B6 dev v0 table 13
EOT
da=${RPCRDMA_DEV_A:-rxe0} db=${RPCRDMA_DEV_B:-rxe1}
# Each rxe device lists its IPv6 address as a RoCE v2 GID. iWARP (siw)
# has no address GIDs: RDMA-CM finds its device by the netdev.
if [ "${RPCRDMA_PROVIDER:-rxe}" = rxe ]; then
	for i in $(seq 50); do
		grep -qs 'fd00:0099' /sys/class/infiniband/$da/ports/1/gids/* &&
			grep -qs 'fd00:0099' /sys/class/infiniband/$db/ports/1/gids/* && break
		sleep 0.1
	done
	grep -qs 'fd00:0099' /sys/class/infiniband/$db/ports/1/gids/* || die "no IPv6 GID on $db"
fi
echo "85-rdma6: $A6 on v0 ($da), $B6 on v1 ($db)"
if ! pgrep -x rpcbind >/dev/null; then
	rpcbind -w || die "rpcbind would not start"
	started_rpcbind=1
fi

out=$(RPCRDMA_ADDR_A=$A6 RPCRDMA_ADDR_B=$B6 KV_DEMO_NETIDS=rdma6 \
	bash "$RPCRDMA_SRCDIR/examples/kv/demo-guest.sh" "$RPCRDMA_BUILDDIR" 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || die "the kv demo over rdma6 failed"
# Registered under rdma6, and the chunked paths really taken over it.
echo "$out" | grep -q "536890198 .*rdma6" || die "kv_server not registered with rpcbind under rdma6"
echo "$out" | grep -q "OK: the 200 KiB value went in a read chunk" || die "no read chunk over rdma6"
echo "$out" | grep -q "OK: watch: the put and the del came back by callback" || die "no callback over rdma6"
echo "85-rdma6: PASS"
