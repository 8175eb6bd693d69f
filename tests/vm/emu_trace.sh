#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# emu_trace: the bottleneck follows a capacity trace.
#
# 1. A steps trace 10, 20, 5, 15 Mbit/s, 2 s per step, looped over 12 s with
#    one CUBIC flow (40 ms, buffer 1 BDP of the trace mean).  No step's
#    goodput may exceed its ideal (capacity x 1448/1514) by more than 25%
#    (the shaper follows the trace down), the 20 Mbit/s steps must carry
#    more than twice the goodput of the 5 Mbit/s steps (it follows the
#    trace up), and the mean goodput must reach 60% of the trace's mean
#    ideal (the table is printed).  How closely one CUBIC flow fills each
#    2 s step depends on the guest's speed (70-100% of the mean seen), so
#    that is not asserted.
# 2. A small Mahimahi trace (a 2 s period: one delivery opportunity per ms,
#    then one per 2 ms) must convert to 12.112 and 6.056 Mbit/s steps
#    (1514-byte packets), and a flow over it must get 60-110% of its mean.

. "$(dirname "$0")/lib.sh"
require_root
NETLAB=$TOP/scripts/netlab
require_tools iperf3 tc jq

OUT=$RESULTS/emu_trace
rm -rf "$OUT" "$OUT-mm"
mkdir -p "$OUT"
printf '# Mbit/s, 2 s each\n10\n20\n5\n15\n' >"$OUT/steps.txt"
awk 'BEGIN { for (t = 1; t <= 1000; t++) print t; for (t = 1002; t <= 2000; t += 2) print t }' \
	>"$OUT/mahimahi.txt"

tap_plan 7

# --- steps trace -------------------------------------------------------------
if ! "$NETLAB" run --trace "$OUT/steps.txt" --trace-format steps --trace-step 2s \
	--rtt 40ms --buffer 1bdp --flow cubic --duration 12 --warmup 2 --out "$OUT" 2>"$OUT.log"; then
	tap_fail "netlab run with a steps trace" "exit $?"
	tap_diag "$(cat "$OUT.log")"
	tap_done
fi
tap_ok "netlab run with a steps trace (10,20,5,15 Mbit/s x 2 s, 12 s)"
tap_diag "$(grep -v '^netlab: result' "$OUT.log")"
res=$OUT/result.json
steps=$(jq -c '.config.trace.mbps' "$res")
tap_check "$([ "$steps" = "[10,20,5,15]" ] && echo 1 || echo 0)" "steps trace read as 10,20,5,15 Mbit/s" \
	"read: $steps"
tap_diag "$(printf '%6s %10s %10s %10s %6s' t_s capacity ideal goodput ratio)"
tap_diag "$(jq -r '.summary.per_step[] | [.t_s, .capacity_mbps, .ideal_goodput_mbps, .goodput_mbps,
	(.goodput_mbps / .ideal_goodput_mbps)] | @tsv' "$res" |
	awk '{ printf "%6.1f %10.2f %10.2f %10.2f %6.2f\n", $1, $2, $3, $4, $5 }')"

# Mean over the whole steps: sum of goodputs vs sum of ideals.
read -r got ideal < <(jq -r '[([.summary.per_step[].goodput_mbps] | add),
	([.summary.per_step[].ideal_goodput_mbps] | add)] | @tsv' "$res")
nsteps=$(jq -r '.summary.per_step | length' "$res")
pct=$(awk -v g="$got" -v i="$ideal" 'BEGIN { printf "%.1f", 100 * g / i }')
worst=$(jq -r '[.summary.per_step[] | .goodput_mbps / .ideal_goodput_mbps] | max' "$res")
tap_check "$(fle "$worst" 1.25)" "no step's goodput above 1.25 x its ideal (the shaper follows the trace)" \
	"highest goodput/ideal $(awk -v w="$worst" 'BEGIN { printf "%.2f", w }')"
read -r hi lo < <(jq -r '[([.summary.per_step[] | select(.capacity_mbps == 20) | .goodput_mbps] | add / length),
	([.summary.per_step[] | select(.capacity_mbps == 5) | .goodput_mbps] | add / length)] | @tsv' "$res")
tap_check "$(awk -v h="$hi" -v l="$lo" 'BEGIN { print (h > 2 * l) ? 1 : 0 }')" \
	"20 Mbit/s steps carry more than twice the goodput of 5 Mbit/s steps" \
	"$(awk -v h="$hi" -v l="$lo" 'BEGIN { printf "%.2f vs %.2f Mbit/s", h, l }')"
tap_diag "mean goodput $(awk -v g="$got" -v i="$ideal" -v n="$nsteps" 'BEGIN { printf "%.2f vs %.2f Mbit/s", g / n, i / n }') over ${nsteps} whole steps = ${pct}%"
tap_check "$(fge "$pct" 60)" "mean goodput at least 60% of the trace's mean ideal" "${pct}%"

# --- mahimahi trace ----------------------------------------------------------
if ! "$NETLAB" run --trace "$OUT/mahimahi.txt" --trace-format mahimahi --trace-step 1s \
	--rtt 40ms --buffer 1bdp --flow cubic --duration 6 --warmup 1 --out "$OUT-mm" 2>"$OUT-mm.log"; then
	tap_fail "netlab run with a mahimahi trace" "exit $?"
	tap_diag "$(cat "$OUT-mm.log")"
	tap_done
fi
res=$OUT-mm/result.json
steps=$(jq -c '.config.trace.mbps | map(. * 1000 | round / 1000)' "$res")
tap_check "$([ "$steps" = "[12.112,6.056]" ] && echo 1 || echo 0)" \
	"mahimahi trace converts to 12.112, 6.056 Mbit/s steps" "converted: $steps"
read -r got ideal < <(jq -r '[([.summary.per_step[].goodput_mbps] | add),
	([.summary.per_step[].ideal_goodput_mbps] | add)] | @tsv' "$res")
pct=$(awk -v g="$got" -v i="$ideal" 'BEGIN { printf "%.1f", 100 * g / i }')
tap_diag "$(jq -r '.summary.per_step[] | "t=\(.t_s) s capacity \(.capacity_mbps) goodput \(.goodput_mbps) Mbit/s"' "$res")"
tap_check "$(fin "$pct" 60 110)" "flow over the mahimahi trace gets 60-110% of its mean" "${pct}%"
tap_done
