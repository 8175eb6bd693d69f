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
#
# A loaded TCG guest needs one to two seconds per process, so the checks
# use bash string tests rather than grep/sed/awk, and tc -batch for the
# lists of refused options.
source "$(dirname "$0")/lib.sh"
require_root
require_tools tc jq

ko=$MODDIR/sch_abc/sch_abc.ko
so=$TOP/build/tc/q_abc.so
ns=tcabc-test
dev=abc0

tcs=("$(command -v tc)")
for t in "$TOP"/build/iproute2-*/sbin/tc; do
	[ -x "$t" ] && tcs+=("$t")
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

work=$(mktemp -d)
cleanup() {
	ip netns del $ns 2>/dev/null
	[ "$loaded_here" = 1 ] && rmmod sch_abc 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
ip netns add $ns
ip -n $ns link add $dev type dummy
ip -n $ns addr add 192.0.2.2/24 dev $dev
ip -n $ns link set $dev up

# run CMD...: run it, keep stdout+stderr in $out (and on one line in
# $out1, for TAP) and the status in $rc
run() {
	out=$("$@" 2>&1)
	rc=$?
	out1=${out//$'\n'/ | }
}

# opts: $cur = the options part of `tc qdisc show`, what follows
# "root [refcnt N] ", without the trailing blank.
opts() {
	cur=$("$TC" -n $ns qdisc show dev $dev)
	case $cur in
	"qdisc abc "*) ;;
	*) return ;;
	esac
	cur=${cur#*: root }
	[[ $cur == refcnt\ * ]] && cur=${cur#refcnt * }
	cur=${cur%% }
}

# val KEY: $v = the word after KEY in $cur
val() {
	v=""
	[[ " $cur " =~ \ $1\ ([^ ]+)\  ]] && v=${BASH_REMATCH[1]}
}

# count PATTERN: $n = lines of $out that start with PATTERN
count() {
	local line
	n=0
	while IFS= read -r line; do
		[[ $line == "$1"* ]] && n=$((n + 1))
	done <<<"$out"
}

# nodup: stdin is valid JSON with no key twice in one object (jq keeps the
# last of two silently, so read it as a stream of paths)
nodup() {
	local -A seen
	local p paths

	paths=$(jq -c --stream 'select(length == 2) | .[0]') || return 1
	while IFS= read -r p; do
		[ -n "${seen[$p]:-}" ] && { echo "duplicate $p"; return 1; }
		seen[$p]=1
	done <<<"$paths"
}

# batch CMD...: one tc -batch run of a `qdisc change` per line
batch() {
	local o

	for o in "$@"; do
		printf 'qdisc change dev %s root abc %s\n' "$dev" "$o"
	done >"$work/batch"
	run "$TC" -n $ns -force -batch "$work/batch"
}

suite() {
	TC=$1
	local label before want j bad ok_all o
	local bads ranges

	run "$TC" -V
	[[ $out =~ (iproute2-[0-9.]*) ]] && label="[${BASH_REMATCH[1]}]" || label="[$TC]"
	"$TC" -n $ns qdisc del dev $dev root 2>/dev/null

	# ---- add with every option, shown as given
	run "$TC" -n $ns qdisc add dev $dev root abc limit 500 bandwidth 50mbit \
		eta 0.9 delta 150ms dt 25ms window 50ms tokens 20 topk 4 classic off ect1 on \
		split_gso off
	tap_check "$([ $rc = 0 ] && echo 1)" "$label add with every option" "exit $rc $out1"
	opts
	before=$cur
	want="limit 500 bandwidth 50Mbit eta 0.9 delta 150ms dt 25ms window 50ms tokens 20 topk 4 classic off ect1 on split_gso off"
	tap_check "$([ "$before" = "$want" ] && echo 1)" "$label show prints every option as given" "$before"

	# ---- what show prints, fed back to replace, gives the same qdisc
	# shellcheck disable=SC2086
	run "$TC" -n $ns qdisc replace dev $dev root abc $before
	opts
	tap_check "$([ $rc = 0 ] && [ "$cur" = "$before" ] && echo 1)" \
		"$label replace with show's output round-trips" "exit $rc: $cur"

	# ---- other spellings of the same values
	run "$TC" -n $ns qdisc change dev $dev root abc bandwidth 6250000Bps \
		eta .90 delta 0.15s dt 25000 window 50000us
	opts
	tap_check "$([ $rc = 0 ] && [ "$cur" = "$before" ] && echo 1)" \
		"$label Bps, .90, 0.15s, bare us and us spellings encode the same" "exit $rc: $cur"

	# ---- change bandwidth only
	run "$TC" -n $ns qdisc change dev $dev root abc bandwidth 20mbit
	opts
	tap_check "$([ $rc = 0 ] && [ "$cur" = "${before/50Mbit/20Mbit}" ] && echo 1)" \
		"$label change bandwidth 20mbit changes only the bandwidth" "exit $rc: $cur"

	# ---- estimate mode
	run "$TC" -n $ns qdisc change dev $dev root abc bandwidth estimate
	opts
	val bandwidth
	tap_check "$([ $rc = 0 ] && [ "$v" = estimate ] && echo 1)" \
		"$label bandwidth estimate shows as estimate" "exit $rc: $cur"
	run "$TC" -n $ns -s qdisc show dev $dev
	if [[ $out =~ capacity\ [0-9A-Za-z]+\ estimated ]]; then
		tap_ok "$label -s says the capacity is estimated" "${BASH_REMATCH[0]}"
	else
		tap_fail "$label -s says the capacity is estimated" "$out1"
	fi
	j=$("$TC" -n $ns -j -s qdisc show dev $dev)
	tap_check "$(jq -e '.[0].options.bandwidth == 0 and .[0].estimating == true' >/dev/null 2>&1 <<<"$j" && echo 1)" \
		"$label -j: bandwidth 0 and estimating true in estimate mode" "$j"
	run "$TC" -n $ns qdisc change dev $dev root abc bandwidth 50mbit
	opts
	tap_check "$([ $rc = 0 ] && [ "$cur" = "$before" ] && echo 1)" \
		"$label change back to bandwidth 50mbit" "exit $rc: $cur"

	# ---- bad syntax: refused by the plugin with a message and the usage
	bads=("limit x" "limit" "eta abc" "eta -0.5" "eta 0.1234567"
	      "delta 5parsecs" "dt 1.5us" "window -1ms" "bandwidth 12furlong"
	      "bandwidth 7bit" "tokens 1e3" "topk 4294967296" "classic yes" "ect1 1" "split_gso 0"
	      "frobnicate 1")
	batch "${bads[@]}"
	ok_all=1 bad=""
	count "abc: "
	[ "$n" = ${#bads[@]} ] || { ok_all=0 bad="$bad $n messages"; }
	count "Usage: ... abc"
	[ "$n" = ${#bads[@]} ] || { ok_all=0 bad="$bad $n usages"; }
	count "Command failed"
	[ "$n" = ${#bads[@]} ] || { ok_all=0 bad="$bad $n failed"; }
	opts
	[ "$cur" = "$before" ] || { ok_all=0 bad="$bad qdisc changed: $cur"; }
	tap_check "$ok_all" "$label ${#bads[@]} malformed options refused with a message and usage, qdisc unchanged" \
		"${bad:-all refused}"
	tap_diag "$label e.g.: ${out%%$'\n'*}"

	# ---- out of range: refused by the netlink policy, with its extack text
	ranges=("eta 1.5" "eta 0" "limit 0" "window 0")
	batch "${ranges[@]}"
	ok_all=1 bad=""
	count "Error: integer out of range"
	[ "$n" = ${#ranges[@]} ] || { ok_all=0 bad="$bad $n extack messages"; }
	count "Command failed"
	[ "$n" = ${#ranges[@]} ] || { ok_all=0 bad="$bad $n failed"; }
	[[ $out == *Usage* ]] && { ok_all=0 bad="$bad usage printed"; }
	opts
	[ "$cur" = "$before" ] || { ok_all=0 bad="$bad qdisc changed: $cur"; }
	tap_check "$ok_all" "$label ${ranges[*]} refused by the kernel (extack), qdisc unchanged" \
		"${bad:+$bad: }$out1"
	# The same through replace, which builds a new qdisc
	run "$TC" -n $ns qdisc replace dev $dev root abc eta 1.5
	opts
	tap_check "$([ $rc != 0 ] && [[ $out == "Error: integer out of range"* ]] && [ "$cur" = "$before" ] && echo 1)" \
		"$label replace eta 1.5 refused, qdisc unchanged" "exit $rc: $out1"

	# ---- help
	run "$TC" -n $ns qdisc add dev $dev root abc help
	tap_check "$([[ $out == *"Usage: ... abc"*"bandwidth RATE"* ]] && echo 1)" \
		"$label abc help prints the usage" "exit $rc"

	# ---- -s, after a few packets
	ip netns exec $ns ping -c 3 -i 0.2 -W 1 192.0.2.1 >/dev/null 2>&1
	run "$TC" -n $ns -s qdisc show dev $dev
	ok_all=1 bad=""
	for o in "accelerates " " brakes " " accel_frac " "target_rate " " capacity " \
		 " dequeue_rate " "qdelay " " drop_overlimit " "queue abc qlen " \
		 "queue other qlen " " weight " "classic_found " " classic_flows " \
		 " classic_packets "; do
		[[ $out == *"$o"* ]] || { ok_all=0 bad="$bad $o"; }
	done
	tap_check "$ok_all" "$label -s shows every statistic" "${bad:+missing:$bad}"
	tap_diag "$label tc -s qdisc show:"
	tap_diag "$out"

	# ---- -j
	j=$("$TC" -n $ns -j qdisc show dev $dev)
	tap_check "$(jq -e '.[0].kind == "abc" and .[0].options.limit == 500 and
		.[0].options.bandwidth == 6250000 and .[0].options.eta == 0.9 and
		.[0].options.delta == 150000 and .[0].options.dt == 25000 and
		.[0].options.window == 50000 and .[0].options.tokens == 20 and
		.[0].options.topk == 4 and .[0].options.classic == false and
		.[0].options.ect1 == true and
		.[0].options.split_gso == "off"' >/dev/null 2>&1 <<<"$j" && echo 1)" \
		"$label -j: valid, options in bytes/s, us and fractions" "$j"
	j=$("$TC" -n $ns -j -s qdisc show dev $dev)
	o=$(nodup <<<"$j")
	rc=$?
	tap_check "$([ $rc = 0 ] && echo 1)" "$label -j -s is valid JSON, no duplicate keys" "$o"
	tap_check "$(jq -e '.[0] | has("accelerates") and has("brakes") and has("accel_frac") and
		has("target_rate") and has("capacity") and (.estimating == false) and
		has("dequeue_rate") and has("qdelay") and has("drop_overlimit") and
		(.queues | length == 2) and (.queues[0].queue == "abc") and
		(.queues[1] | has("qlen") and has("weight")) and has("classic_found") and
		has("classic_flows") and has("classic_packets")' >/dev/null 2>&1 <<<"$j" && echo 1)" \
		"$label -j -s has every statistic" "$j"

	# ---- defaults: a bare add shows every parameter the kernel chose
	"$TC" -n $ns qdisc del dev $dev root
	run "$TC" -n $ns qdisc add dev $dev root abc
	opts
	ok_all=1
	for o in limit bandwidth eta delta dt window tokens topk classic ect1 split_gso; do
		val $o
		[ -n "$v" ] || ok_all=0
	done
	tap_check "$([ $rc = 0 ] && echo $ok_all)" "$label add without options shows the kernel's defaults" "exit $rc: $cur"
	val split_gso
	tap_check "$([ "$v" = auto ] && echo 1)" "$label split_gso defaults to auto" "$cur"
	# and those, fed back, are accepted unchanged
	before=$cur
	# shellcheck disable=SC2086
	run "$TC" -n $ns qdisc change dev $dev root abc $before
	opts
	tap_check "$([ $rc = 0 ] && [ "$cur" = "$before" ] && echo 1)" \
		"$label the defaults as shown are accepted back" "exit $rc $out1"

	# ---- del
	run "$TC" -n $ns qdisc del dev $dev root
	opts
	tap_check "$([ $rc = 0 ] && [[ $cur != *"qdisc abc"* ]] && echo 1)" \
		"$label del" "exit $rc $out1"
}

for t in "${tcs[@]}"; do
	suite "$t"
done
tap_done
