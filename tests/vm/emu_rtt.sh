#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# emu_rtt: the configured RTT is what an idle path shows.
#
# Two sender/receiver pairs on one topology, base RTT 40 ms and a per-flow
# override of 100 ms; the median of 10 pings from each sender must be within
# 2 ms of its configured RTT.  netlab calibrates the ACK-path delay by the
# path's own latency (about 0.5-1.5 ms in a TCG guest); its pings, taken
# before the correction, are printed for reference.
#
# A busy host (other guests on the same cores) delays a TCG guest's timers
# by milliseconds, in bursts.  So when a pair is out of tolerance the pings
# are taken once more, on a fresh topology, and that second median decides;
# both are printed.  A real offset fails both times.

. "$(dirname "$0")/lib.sh"
require_root
NETLAB=$TOP/scripts/netlab
require_tools jq

OUT=$RESULTS/emu_rtt
rm -rf "$OUT"
mkdir -p "$OUT"
TOL=2
WANT=(40 100)

# measure DIR [ARGS...]: 10 pings from each of the two pairs into DIR/ping.json
measure() {
	local dir=$1
	shift
	"$NETLAB" ping --rtt 40ms --flow cubic --flow cubic,rtt=100ms --count 10 \
		--ping-interval 0.1 --out "$dir" "$@" >/dev/null 2>"$dir.log"
}

# error DIR I: |median - configured| of pair I, in ms
error() {
	awk -v m="$(jq -r ".ping[$2].median_ms" "$1/ping.json")" -v w="${WANT[$2]}" \
		'BEGIN { d = m - w; printf "%.3f", d < 0 ? -d : d }'
}

within() { [ "$(fle "$(error "$1" 0)" $TOL)" = 1 ] && [ "$(fle "$(error "$1" 1)" $TOL)" = 1 ]; }

tap_plan 3
if ! measure "$OUT/1"; then
	tap_fail "netlab ping over two pairs (40 ms, 100 ms)" "exit $?"
	tap_diag "$(cat "$OUT/1.log")"
	tap_done
fi
tap_ok "netlab ping over two pairs (40 ms, 100 ms)"
tap_diag "$(cat "$OUT/1.log")"
final=$OUT/1
if ! within "$OUT/1"; then
	tap_diag "out of tolerance on the first try (errors $(error "$OUT/1" 0), $(error "$OUT/1" 1) ms); measuring again"
	if measure "$OUT/2"; then
		tap_diag "$(cat "$OUT/2.log")"
		final=$OUT/2
	fi
fi

# Reference: the calibration pings are the uncalibrated path's RTT.
tap_diag "uncalibrated (calibration pings, p25/p50): $(jq -r '[.config.rtt_calibration[] |
	"\(.measured_p25_ms)/\(.measured_p50_ms) ms"] | join(", ")' "$final/ping.json")"

for i in 0 1; do
	med=$(jq -r ".ping[$i].median_ms" "$final/ping.json")
	off=$(jq -r ".config.rtt_calibration[$i].offset_ms" "$final/ping.json")
	err=$(error "$final" $i)
	tap_check "$(fle "$err" $TOL)" "idle RTT of pair $i within ${TOL} ms of ${WANT[$i]} ms" \
		"median of 10 pings ${med} ms (error ${err} ms, calibration offset ${off} ms, try $(basename "$final"), samples $(jq -c ".ping[$i].samples_ms" "$final/ping.json"))"
done
tap_done
