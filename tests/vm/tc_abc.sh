#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The tc plugin of sch_abc (q_abc.so) against the real qdisc, on a dummy
# device: add/change/replace/show/-s/-j/del, every option round-trips
# through show, `change bandwidth` changes only the bandwidth, bad syntax
# is refused by the plugin (usage, nothing sent) and out-of-range values
# by the kernel (extack message), both leaving the qdisc as it was.
#
# Runs with the system tc (iproute2 6.1 on Debian 12) and again with every
# other tc found at build/iproute2-*/sbin/tc, e.g. 6.15 from
# bookworm-backports unpacked there (Documentation/q_abc.rst).
source "$(dirname "$0")/lib.sh"
require_root
require_tools tc jq python3

ko=$MODDIR/sch_abc/sch_abc.ko
so=$TOP/build/tc/q_abc.so
ns=tcabc-test
dev=abc0

tcs=("$(command -v tc)")
for t in "$TOP"/build/iproute2-*/sbin/tc; do
	[ -x "$t" ] && "$t" -V >/dev/null 2>&1 && tcs+=("$t")
done

PER_TC=21
tap_plan $((2 + PER_TC * ${#tcs[@]}))

if [ ! -f "$so" ]; then
	tap_fail "q_abc.so built" "no $so (make tc-plugin)"
	tap_done
fi
tap_ok "q_abc.so built" "TC_LIB_DIR=$TC_LIB_DIR"

loaded_here=0
if ! grep -q '^sch_abc ' /proc/modules; then
	if [ ! -f "$ko" ]; then
		tap_fail "sch_abc loaded" "no $ko (make modules-all)"
		tap_done
	fi
	if ! err=$(insmod "$ko" 2>&1); then
		tap_fail "sch_abc loaded" "$err"
		tap_done
	fi
	loaded_here=1
fi
tap_ok "sch_abc loaded"

cleanup() {
	ip netns del $ns 2>/dev/null
	[ "$loaded_here" = 1 ] && rmmod sch_abc 2>/dev/null
}
trap cleanup EXIT
ip netns add $ns
ip -n $ns link add $dev type dummy
ip -n $ns addr add 192.0.2.2/24 dev $dev
ip -n $ns link set $dev up

# The options part of `tc qdisc show`: what follows "root [refcnt N] ".
opts() {
	"$TC" -n $ns qdisc show dev $dev |
		sed -n 's/^qdisc abc [0-9a-f]*: root \(refcnt [0-9]* \)\{0,1\}//p' |
		sed 's/ *$//'
}

# val KEY "OPTS": the word after KEY
val() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$2"; }

# json_ok: stdin is JSON with no key twice in one object (jq keeps the
# last of duplicates silently)
json_ok() {
	python3 -c 'import json, sys
def pairs(p):
    keys = [k for k, _ in p]
    if len(keys) != len(set(keys)):
        sys.exit("duplicate keys in %s" % keys)
    return dict(p)
json.load(sys.stdin, object_pairs_hook=pairs)'
}

# run CMD...: run it, keep stdout+stderr in $out and the status in $rc
run() {
	out=$("$@" 2>&1)
	rc=$?
}

suite() {
	TC=$1
	local v label before after j bad ok_all o

	v=$("$TC" -V | grep -o 'iproute2-[0-9.]*')
	label="[$v]"
	"$TC" -n $ns qdisc del dev $dev root 2>/dev/null

	# ---- add with every option, shown as given
	run "$TC" -n $ns qdisc add dev $dev root abc limit 500 bandwidth 50mbit \
		eta 0.9 delta 150ms dt 25ms window 50ms tokens 20 topk 4
	tap_check "$([ $rc = 0 ] && echo 1)" "$label add with every option" "exit $rc $out"
	before=$(opts)
	want="limit 500 bandwidth 50Mbit eta 0.9 delta 150ms dt 25ms window 50ms tokens 20 topk 4"
	tap_check "$([ "$before" = "$want" ] && echo 1)" "$label show prints every option as given" "$before"

	# ---- what show prints, fed back to replace, gives the same qdisc
	# shellcheck disable=SC2086
	run "$TC" -n $ns qdisc replace dev $dev root abc $before
	after=$(opts)
	tap_check "$([ $rc = 0 ] && [ "$after" = "$before" ] && echo 1)" \
		"$label replace with show's output round-trips" "exit $rc: $after"

	# ---- other spellings of the same values
	run "$TC" -n $ns qdisc change dev $dev root abc bandwidth 6250000Bps \
		eta .90 delta 0.15s dt 25000 window 50000us
	after=$(opts)
	tap_check "$([ $rc = 0 ] && [ "$after" = "$before" ] && echo 1)" \
		"$label Bps, .90, 0.15s, bare us and us spellings encode the same" "exit $rc: $after"

	# ---- change bandwidth only
	run "$TC" -n $ns qdisc change dev $dev root abc bandwidth 20mbit
	after=$(opts)
	tap_check "$([ $rc = 0 ] && [ "$after" = "${before/50Mbit/20Mbit}" ] && echo 1)" \
		"$label change bandwidth 20mbit changes only the bandwidth" "exit $rc: $after"

	# ---- estimate mode
	run "$TC" -n $ns qdisc change dev $dev root abc bandwidth estimate
	after=$(opts)
	tap_check "$([ $rc = 0 ] && [ "$(val bandwidth "$after")" = estimate ] && echo 1)" \
		"$label bandwidth estimate shows as estimate" "exit $rc: $after"
	run "$TC" -n $ns -s qdisc show dev $dev
	tap_check "$(grep -q 'capacity [0-9A-Za-z]* estimated' <<<"$out" && echo 1)" \
		"$label -s says the capacity is estimated" "$(grep -o 'capacity.*' <<<"$out" | head -n 1)"
	run "$TC" -n $ns qdisc change dev $dev root abc bandwidth 50mbit
	after=$(opts)
	tap_check "$([ $rc = 0 ] && [ "$after" = "$before" ] && echo 1)" \
		"$label change back to bandwidth 50mbit" "exit $rc: $after"

	# ---- bad syntax: refused by the plugin with usage, nothing changed
	ok_all=1 bad=""
	for o in "limit x" "limit" "eta abc" "eta -0.5" "eta 0.1234567" \
		 "delta 5parsecs" "dt 1.5us" "window -1ms" "bandwidth 12furlong" \
		 "bandwidth 7bit" "tokens 1e3" "topk 4294967296" "frobnicate 1"; do
		# shellcheck disable=SC2086
		run "$TC" -n $ns qdisc change dev $dev root abc $o
		if [ $rc = 0 ] || ! grep -q 'Usage: ... abc' <<<"$out" ||
		   ! grep -q '^abc: ' <<<"$out" || [ "$(opts)" != "$before" ]; then
			ok_all=0 bad="$bad [$o: exit $rc $(head -n 1 <<<"$out")]"
		fi
	done
	tap_check "$ok_all" "$label 13 malformed options refused with a message and usage, qdisc unchanged" \
		"${bad:-all refused}"
	run "$TC" -n $ns qdisc change dev $dev root abc limit x
	tap_diag "$label e.g.: $(head -n 1 <<<"$out")"

	# ---- out of range: refused by the kernel with its extack text
	ok_all=1 bad="" msgs=""
	for o in "eta 1.5" "eta 0" "limit 0" "window 0"; do
		# shellcheck disable=SC2086
		run "$TC" -n $ns qdisc change dev $dev root abc $o
		if [ $rc = 0 ] || ! grep -q '^Error: ' <<<"$out" ||
		   grep -q 'Usage' <<<"$out" || [ "$(opts)" != "$before" ]; then
			ok_all=0 bad="$bad [$o: exit $rc $out]"
		fi
		msgs="$msgs [$o: $out]"
	done
	tap_check "$ok_all" "$label eta 1.5, eta 0, limit 0, window 0 refused by the kernel (extack), qdisc unchanged" \
		"${bad:-$msgs}"
	# The same through replace, which builds a new qdisc
	run "$TC" -n $ns qdisc replace dev $dev root abc eta 1.5
	tap_check "$([ $rc != 0 ] && grep -q '^Error: ' <<<"$out" && [ "$(opts)" = "$before" ] && echo 1)" \
		"$label replace eta 1.5 refused, qdisc unchanged" "exit $rc: $out"

	# ---- help
	run "$TC" -n $ns qdisc add dev $dev root abc help
	tap_check "$(grep -q 'Usage: ... abc' <<<"$out" && grep -q 'bandwidth RATE' <<<"$out" && echo 1)" \
		"$label abc help prints the usage" "exit $rc"

	# ---- -s
	ip netns exec $ns ping -c 3 -i 0.2 -W 1 -I $dev 192.0.2.1 >/dev/null 2>&1
	run "$TC" -n $ns -s qdisc show dev $dev
	ok_all=1 bad=""
	for o in accelerates brakes accel_frac target_rate capacity dequeue_rate qdelay drop_overlimit \
		 "queue abc qlen" "queue other qlen" weight; do
		grep -q "$o" <<<"$out" || { ok_all=0 bad="$bad $o"; }
	done
	tap_check "$ok_all" "$label -s shows every statistic" "${bad:+missing:$bad}"
	tap_diag "$label tc -s qdisc show:"
	tap_diag "$out"

	# ---- -j
	j=$("$TC" -n $ns -j qdisc show dev $dev)
	tap_check "$(json_ok <<<"$j" && echo 1)" "$label -j is valid JSON, no duplicate keys" "$j"
	tap_check "$(jq -e '.[0].kind == "abc" and .[0].options.limit == 500 and
		.[0].options.bandwidth == 6250000 and .[0].options.eta == 0.9 and
		.[0].options.delta == 150000 and .[0].options.dt == 25000 and
		.[0].options.window == 50000 and .[0].options.tokens == 20 and
		.[0].options.topk == 4' >/dev/null 2>&1 <<<"$j" && echo 1)" \
		"$label -j options in bytes/s, us and fractions" "$(jq -c '.[0].options' <<<"$j" 2>&1)"
	j=$("$TC" -n $ns -j -s qdisc show dev $dev)
	tap_check "$(json_ok <<<"$j" && echo 1)" "$label -j -s is valid JSON, no duplicate keys" ""
	tap_check "$(jq -e '.[0] | has("accelerates") and has("brakes") and has("accel_frac") and
		has("target_rate") and has("capacity") and (.estimating == false) and
		has("dequeue_rate") and has("qdelay") and has("drop_overlimit") and
		(.queues | length == 2) and (.queues[0].queue == "abc") and
		(.queues[1] | has("qlen") and has("weight"))' >/dev/null 2>&1 <<<"$j" && echo 1)" \
		"$label -j -s has every statistic" "$(jq -c '.[0] | del(.options)' <<<"$j" 2>&1)"
	"$TC" -n $ns qdisc change dev $dev root abc bandwidth estimate
	j=$("$TC" -n $ns -j -s qdisc show dev $dev)
	tap_check "$(jq -e '.[0].options.bandwidth == 0 and .[0].estimating == true' >/dev/null 2>&1 <<<"$j" && echo 1)" \
		"$label -j: bandwidth 0 and estimating true in estimate mode" \
		"$(jq -c '.[0] | {bw: .options.bandwidth, estimating}' <<<"$j" 2>&1)"

	# ---- defaults: a bare add shows every parameter the kernel chose
	run "$TC" -n $ns qdisc del dev $dev root
	run "$TC" -n $ns qdisc add dev $dev root abc
	after=$(opts)
	ok_all=1
	for o in limit bandwidth eta delta dt window tokens topk; do
		[ -n "$(val $o "$after")" ] || ok_all=0
	done
	tap_check "$([ $rc = 0 ] && echo $ok_all)" "$label add without options shows the kernel's defaults" "exit $rc: $after"
	# and those, fed back, are accepted unchanged
	# shellcheck disable=SC2086
	run "$TC" -n $ns qdisc change dev $dev root abc $after
	tap_check "$([ $rc = 0 ] && [ "$(opts)" = "$after" ] && echo 1)" \
		"$label the defaults as shown are accepted back" "exit $rc $out"

	# ---- del
	run "$TC" -n $ns qdisc del dev $dev root
	tap_check "$([ $rc = 0 ] && ! "$TC" -n $ns qdisc show dev $dev | grep -q 'qdisc abc' && echo 1)" \
		"$label del" "exit $rc $out"
}

for t in "${tcs[@]}"; do
	suite "$t"
done
tap_done
