#!/bin/sh
# The section 3 manual covers the public interface: every function of
# the installed headers has a page (its own or a .so link), every option,
# clnt_control request, environment variable and counter is described,
# every page renders without a groff warning, every .so resolves once
# installed (man -M on a copy laid out as man3/), and Makefile.am
# installs every page. Fails on what is missing, by name.
set -u
top=${srcdir:-.}
man=$top/man
inc=$top/include/rpcrdma
fail=0
miss() { echo "check_man: $*"; fail=1; }

# Functions: declarations at column 0 in the installed headers.
funcs=$(grep -hoE '^[A-Za-z][^(;]*[ *](rpcrdma_[a-z0-9_]+|clnt_rdma_create|svc_rdma_create)\(' \
	"$inc"/*.h | sed -E 's/.*[ *]([a-z0-9_]+)\($/\1/' | sort -u)
nf=0
for f in $funcs; do
	nf=$((nf + 1))
	[ -f "$man/$f.3" ] || miss "no page for $f()"
done
# A page whose function is gone.
for p in "$man"/*.3; do
	b=$(basename "$p" .3)
	[ "$b" = rpcrdma ] && continue
	echo "$funcs" | grep -qx "$b" || miss "$b.3: no such function in the headers"
done

# What each page must name: options (struct rpcrdma_opts fields), the
# clnt_control requests, the environment, the counters.
fields() {	# struct name, header: the member names of a struct
	awk -v s="struct $1 {" '
		index($0, s) == 1 { on = 1; next }
		!on { next }
		/^};/ { exit }
		{
			# Drop comments, which may span lines.
			line = $0; out = ""
			while (line != "") {
				if (inc) {
					i = index(line, "*/")
					if (!i) { line = ""; break }
					line = substr(line, i + 2); inc = 0
				} else {
					i = index(line, "/*")
					if (!i) { out = out line; line = ""; break }
					out = out substr(line, 1, i - 1)
					line = substr(line, i + 2); inc = 1
				}
			}
			print out
		}' "$2" |
		grep -oE '[a-z_0-9]+(\[[A-Z_0-9]*\])?[,;]' | sed -E 's/(\[.*\])?[,;]$//'
}
opts=$(fields rpcrdma_opts "$inc/rpcrdma.h")
reqs=$(grep -oE '^#define[[:space:]]+CL[GS]ET_RDMA_[A-Z_]+' "$inc/rpcrdma.h" |
	grep -oE 'CL[GS]ET_RDMA_[A-Z_]+')
envs=$(grep -rhoE '(rpcrdma_getenv|env_ulong|env_size)\("RPCRDMA_[A-Z_]+"' "$top/xprt_rdma" "$top/engine" |
	grep -oE 'RPCRDMA_[A-Z_]+' | sort -u)
ctrs=$(fields rpcrdma_stats "$inc/stats.h")
# A name as a whole word, troff's font escapes (\fB...\fP) aside.
has() { sed 's/\\f[BIRP]//g' "$2" | grep -qw -- "$1"; }
for o in $opts; do
	has "$o" "$man/rpcrdma_opts_default.3" || miss "option $o not in rpcrdma_opts_default.3"
done
for r in $reqs; do
	has "$r" "$man/clnt_rdma_create.3" || miss "request $r not in clnt_rdma_create.3"
done
for e in $envs; do
	has "$e" "$man/rpcrdma.3" || miss "variable $e not in rpcrdma.3"
	has "$e" "$man/rpcrdma_opts_default.3" || miss "variable $e not in rpcrdma_opts_default.3"
done
for c in $ctrs; do
	has "$c" "$man/rpcrdma_stats_global.3" || miss "counter $c not in rpcrdma_stats_global.3"
done
# Never pass by finding nothing: what the headers held when this was
# written (the counts may grow, not fall).
count() { echo "$1" | grep -c .; }
atleast() {	# what, found, floor
	[ "$2" -ge "$3" ] || miss "only $2 $1 found (at least $3 expected): the extraction broke"
}
atleast functions "$(count "$funcs")" 39
atleast options "$(count "$opts")" 13
atleast requests "$(count "$reqs")" 9
atleast variables "$(count "$envs")" 11
atleast counters "$(count "$ctrs")" 44

# Render, and resolve the links as installed.
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/man3"
cp "$man"/*.3 "$tmp/man3/"
np=0
for p in "$man"/*.3 "$man"/*.1; do
	np=$((np + 1))
	b=$(basename "$p")
	grep -qE "(^|[[:space:]])man/$b([[:space:]]|\$)" "$top/Makefile.am" || miss "$b not installed by Makefile.am"
	if head -n 1 "$p" | grep -q '^\.so '; then
		t=$(head -n 1 "$p" | cut -d' ' -f2)
		[ -f "$tmp/$t" ] || miss "$b: .so $t does not exist"
		continue
	fi
	if command -v groff >/dev/null; then
		w=$(groff -man -ww -z "$p" 2>&1)
		[ -z "$w" ] || miss "$b: $w"
	fi
done
command -v groff >/dev/null ||
	echo "check_man: groff not installed: pages not rendered"

if command -v man >/dev/null; then
	for n in clnt_rdma_create rpcrdma_svc_exit rpcrdma_hdr_encode; do
		MANWIDTH=80 man -M "$tmp" -P cat 3 "$n" 2>/dev/null |
			grep -q "SYNOPSIS" || miss "man -M ... $n does not render"
	done
else
	echo "check_man: man not installed: rendering through man not checked"
fi
echo "check_man: $nf functions, $(count "$opts") options, $(count "$reqs") requests, $(count "$envs") variables, $(count "$ctrs") counters, $np pages; $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
