#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# layers.sh: checks that calls between object files only go down.
#
#   tools/layers.sh FLOOR FLOOR ...
#
# The floors are given top to bottom; a floor is one object file, or
# several joined by commas (files side by side, which must not call each
# other either). For each object the script lists the undefined symbols
# that another listed object defines, with the floor that defines them,
# and fails (exit 1) when one is defined on the same floor or a floor
# above: that call goes up, or sideways, and closes a circle. Symbols
# defined outside the list (libc, libibverbs, lib/) are not its concern.
#
# The engine, from a build directory:
#   ../tools/layers.sh engine/librpcrdma_la-cm.o engine/librpcrdma_la-ep.o \
#       engine/librpcrdma_la-reg.o,engine/librpcrdma_la-xfer.o \
#       engine/librpcrdma_la-send.o,engine/librpcrdma_la-recv.o \
#       engine/librpcrdma_la-core.o engine/librpcrdma_la-stats.o
set -eu

if [ $# -eq 0 ]; then
	echo "usage: $0 FLOOR [FLOOR...] (top first; a,b for one floor)" >&2
	exit 2
fi
NM=${NM:-nm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# defs: "symbol floor object" for every global symbol an object defines.
floor=0
for f in "$@"; do
	floor=$((floor + 1))
	for o in $(echo "$f" | tr ',' ' '); do
		[ -r "$o" ] || { echo "$0: $o: no such object" >&2; exit 2; }
		echo "$floor $o" >> "$tmp/objs"
		$NM -g --defined-only "$o" |
			awk -v fl="$floor" -v o="$o" 'NF == 3 { print $3, fl, o }' \
			>> "$tmp/defs"
	done
done

status=0
while read -r fl o; do
	$NM -u "$o" | awk '{ print $NF }' | sort -u > "$tmp/undef"
	# One line per object: each object it calls, with the symbols.
	awk -v fl="$fl" -v me="$o" '
		function base(p) { sub(/.*\//, "", p); return p }
		NR == FNR { dfl[$1] = $2; dobj[$1] = $3; next }
		($1 in dfl) && dobj[$1] != me {
			d = dobj[$1]
			if (!(d in seen)) { seen[d] = 1; order[++n] = d }
			syms[d] = syms[d] " " $1
			if (dfl[$1] <= fl) bad[d] = 1
		}
		END {
			line = base(me) " (floor " fl "):"
			if (!n) line = line " calls no other listed object"
			for (i = 1; i <= n; i++) {
				d = order[i]
				line = line "\n    " (d in bad ? "UP   " : "down ") \
				       base(d) ":" syms[d]
			}
			print line
			for (d in bad) exit 1
		}' "$tmp/defs" "$tmp/undef" || status=1
done < "$tmp/objs"

if [ $status -ne 0 ]; then
	echo "layers: FAIL (a call goes up or sideways: see UP above)"
else
	echo "layers: ok, every call goes down"
fi
exit $status
