# The rpcgen example (examples/kv): kv_server and kv_client over "rdma" and
# over "tcp", the main job's demo script (examples/kv/demo-guest.sh). It
# asserts bytes and CRC-32s end to end and, over rdma, that the client's
# counters show an inline put, a Long Call put and a Long Reply get.
#
# With RPCRDMA_T_PACKAGE_KV (tools/test.sh: the Debian packages built by
# tools/package.sh are installed, and this names the folder where the
# -dev package's example was built with its own Makefile against them)
# the demo runs the installed copy instead of the build tree's: those kv
# programs and /usr/bin/rpcrdma-stat, each checked to load
# /usr/lib/.../librpcrdma.so.0; then rpcrdma-tools' nfs3d and nfs3c move
# a file over rdma and back.
# vm-timeout: 400
# vm-first-boot-only: the rpcgen example takes the library's paths that 40-clnt takes on every boot
command -v rpcbind >/dev/null || { echo "rpcbind not installed"; exit 77; }
pkg=${RPCRDMA_T_PACKAGE_KV:-}
[ -n "$pkg" ] || exec bash "$RPCRDMA_SRCDIR/examples/kv/demo-guest.sh" "$RPCRDMA_BUILDDIR"

name=60-kv
say() { echo "$name: $*"; }
die() { say "FAILED: $*"; exit 1; }
libdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
say "the installed packages: $(dpkg-query -W -f='${Package} ${Version}  ' \
	librpcrdma0 librpcrdma-dev rpcrdma-tools 2>&1)"
for p in librpcrdma0 librpcrdma-dev rpcrdma-tools; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		die "package $p is not installed"
done
# Each program loads the installed library, not a build tree's (ldd may
# name it by /lib or /usr/lib: Debian 12's /lib is /usr/lib).
want=$(readlink -e "$libdir/librpcrdma.so.0") || die "$libdir/librpcrdma.so.0: not installed"
for b in "$pkg/kv_server" "$pkg/kv_client" /usr/sbin/nfs3d /usr/bin/nfs3c; do
	l=$(ldd "$b" 2>&1 | sed -n 's/.*librpcrdma\.so[.0-9]* => \([^ ]*\) .*/\1/p')
	[ -n "$l" ] || die "$b: no librpcrdma in ldd: $(ldd "$b" 2>&1 | head -n 5)"
	[ "$(readlink -f "$l")" = "$want" ] || die "$b loads $l, not $want"
done
say "kv_server, kv_client, nfs3d, nfs3c load $libdir/librpcrdma.so.0"

KV_BIN=$pkg KV_STAT=/usr/bin/rpcrdma-stat \
	bash "$RPCRDMA_SRCDIR/examples/kv/demo-guest.sh" || die "the demo failed on the installed copy"

# rpcrdma-tools: nfs3d serves a folder over rdma (MOUNT over tcp, no
# rpcbind), nfs3c writes a file into it and reads it back.
A=${RPCRDMA_ADDR_A:?} B=${RPCRDMA_ADDR_B:?}
# /run: a tmpfs in the guest (/tmp is the host's, over 9p, which has no
# file handles for nfs3d).
top=$(mktemp -d /run/60-kv.XXXXXX) || die "mktemp"
mkdir "$top/export" "$top/key"
chmod 700 "$top/key"
srv_pid=
trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$top"' EXIT
/usr/sbin/nfs3d -a "$B" -p 20070 -t 2070 -m 20071 -T 2 -n rdma -R \
	-k "$top/key/k" -o rw,no_root_squash "$top/export" >"$top/log" 2>&1 &
srv_pid=$!
for _ in $(seq 100); do
	grep -q "serving $top/export" "$top/log" && break
	kill -0 "$srv_pid" 2>/dev/null || die "nfs3d exited: $(tail -n 5 "$top/log")"
	sleep 0.1
done
grep -q "serving $top/export" "$top/log" || die "nfs3d did not start: $(tail -n 5 "$top/log")"
head -c 1000003 /dev/urandom >"$top/src"
C="/usr/bin/nfs3c -n rdma -p 20070 -m 20071"
RPCRDMA_SRCADDR=$A $C "$B:$top/export" write "$top/src" f >"$top/c.out" 2>&1 ||
	die "nfs3c write: $(cat "$top/c.out")"
cmp "$top/src" "$top/export/f" || die "nfs3c write: the file on the server differs"
RPCRDMA_SRCADDR=$A $C "$B:$top/export" read f "$top/back" >"$top/c.out" 2>&1 ||
	die "nfs3c read: $(cat "$top/c.out")"
cmp "$top/src" "$top/back" || die "nfs3c read: differs"
/usr/bin/rpcrdma-stat "$srv_pid" >"$top/stat" 2>&1 || die "rpcrdma-stat $srv_pid: $(cat "$top/stat")"
grep -q 'recv_msg [1-9]' "$top/stat" || die "rpcrdma-stat: nfs3d's messages not counted: $(cat "$top/stat")"
say "rpcrdma-tools: nfs3c wrote 1,000,003 bytes to nfs3d over rdma and read them back; rpcrdma-stat counts nfs3d's messages"
say "PASS: the installed packages"
