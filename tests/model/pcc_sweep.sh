#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 28's scenarios in the PCC model over many seeds, one line each:
# the median [range] of Jain's index, of the queueing delay p95, of the
# utilisation and of flow 0's srtt p95 above the base (sr95, what the
# guest's RTT p95 shows), the median loss, and in how many runs Jain >=
# 0.95 and every flow came within 25 % of its share within 10 s.
#
#   tests/model/pcc_sweep.sh [BINARY [SEEDS]]
#
# BINARY defaults to tests/model/pcc_flows, SEEDS to 8.  To compare a
# variant of pcc_core.h, build it into another binary, e.g.
#   cc -std=gnu11 -O2 -Iinclude -I/tmp/variant -o /tmp/v \
#      tests/model/pcc_flows.c -lm
# with the edited header in /tmp/variant.  Runs two seeds at a time.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$top/tests/model/pcc_flows}
seeds=${2:-8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top"

# scenario NAME ENV ARGS..: run ARGS with seeds 1..SEEDS, print the line
scenario() {
	local name=$1 envs=$2
	shift 2
	for s in $(seq 1 "$seeds"); do
		echo "env Q=1 $envs $bin $* $s"
	done | xargs -P2 -I{} sh -c {} >"$tmp/$name"
	python3 - "$name" "$tmp/$name" <<'EOF'
import statistics as st
import sys

rows = [l.split() for l in open(sys.argv[2]) if l.startswith("sum")]
if not rows:
    sys.exit(f"{sys.argv[1]}: no summary line")


def col(key):
    i = rows[0].index(key)
    return [float(r[i + 1].rstrip("%")) for r in rows]


def slowest(r):
    conv = [float(x) for x in r[r.index("conv") + 1:r.index("lost")]]
    return float("inf") if min(conv) < 0 else max(conv)


def med(v):
    return f"{st.median(v):.3f} [{min(v):.3f}, {max(v):.3f}]"


jain, conv = col("jain"), [slowest(r) for r in rows]
met = sum(1 for j, c in zip(jain, conv) if j >= 0.95 and c <= 10)
print(f"{sys.argv[1]:3s} jain {med(jain)} met {met}/{len(rows)} "
      f"lost {st.median(col('lost')):.2f}% q95 {med(col('q95'))} ms "
      f"util {med(col('util'))} % sr95 {med(col('sr95'))} ms")
EOF
}

scenario CN "TR=bench/traces/pcc-changing.txt,5 L=0.005" 12.3 56 0.055 60 1 1
# The same with the guest's noise (below), the case to judge the
# changing link by: without noise the model hid how the in-flight cap
# let go in the guest (tcp_pcc.rst, "The changing link with the guest's
# noise").  sr95 + 55 ms is the guest's RTT p95.
scenario CNN "TR=bench/traces/pcc-changing.txt,5 L=0.005 SN=0.15 RJ=0.01" \
	12.3 56 0.055 60 1 1
scenario S1 "" 20 66 0.04 30 1 1
scenario L1 "W=5 L=0.01" 20 66 0.04 30 1 1
scenario L1J "W=5 L=0.01 RJ=0.005" 20 66 0.04 30 1 1
scenario C2 "" 20 66 0.04 30 2 10
scenario C2J "RJ=0.002" 20 66 0.04 30 2 10
scenario C4 "" 20 66 0.04 40 4 5
# A TCG guest's noise: SN=0.15 RJ=0.01 gives dRTT/dT within +-0.02-0.03
# at an empty queue (p10/p90), the guest's pcc_mi trace +-0.03-0.04.
scenario SHN "SN=0.15 RJ=0.01" 20 5 0.03 30 1 1
scenario C2N "SN=0.15 RJ=0.01" 20 66 0.04 30 2 10
# stack-100m's 1 % loss cell, without and with that noise
scenario H1 "L=0.01" 100 167 0.02 20 1 1
scenario H1N "L=0.01 SN=0.15 RJ=0.01" 100 167 0.02 20 1 1
