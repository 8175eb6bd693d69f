# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the kselftest-style VM tests: source this file, then
#
#   tap_plan 3
#   tap_ok   "what was checked" "measured: 19.4 Mbit/s"   # pass
#   tap_fail "what was checked" "measured: 12.0 Mbit/s"   # fail
#   tap_check COND "what" "measured: ..."                 # COND is a shell test
#   tap_skip "what" "why"
#   tap_todo COND "what" "measured" "why"                 # known miss: reported,
#                                                         # never a failure
#   tap_diag "free text"
#   tap_done                                              # exits 0, 1 or 4
#
# Exit codes follow kselftest: 0 pass, 1 fail, 4 skip (every case skipped).

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KVER=$(uname -r)
# Modules built for this kernel by `make modules-all`.
MODDIR=$TOP/build/$KVER
# Results that must leave the guest go here (shared read-write).
RESULTS=${VM_OUT:-$(mktemp -d)}/results
mkdir -p "$RESULTS"

# tc finds the sch_abc plugin (q_abc.so, `make tc-plugin`) through
# TC_LIB_DIR.  That variable replaces tc's lib dir, which also holds
# netem's delay distributions, so the dir links those in beside it.
if [ -f "$TOP/build/tc/q_abc.so" ] && [ -z "${TC_LIB_DIR:-}" ]; then
	TC_LIB_DIR=$(mktemp -d /tmp/tc-lib.XXXXXX)
	for _f in /usr/lib/*/tc/* /usr/lib/tc/* /usr/lib64/tc/*; do
		[ -e "$_f" ] && ln -sf "$_f" "$TC_LIB_DIR/"
	done
	ln -sf "$TOP/build/tc/q_abc.so" "$TC_LIB_DIR/q_abc.so"
	export TC_LIB_DIR
	unset _f
fi

_tap_n=0
_tap_fail=0
_tap_skip=0

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

tap_diag() {
	local line
	while IFS= read -r line; do echo "# $line"; done <<<"$*"
}

tap_ok() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1${2:+ # $2}"
}

tap_fail() {
	_tap_n=$((_tap_n + 1))
	_tap_fail=$((_tap_fail + 1))
	echo "not ok $_tap_n - $1${2:+ # $2}"
}

tap_skip() {
	_tap_n=$((_tap_n + 1))
	_tap_skip=$((_tap_skip + 1))
	echo "ok $_tap_n - $1 # SKIP ${2:-}"
}

# tap_check "COND" "what" "measured" - COND is evaluated with `test`-like
# arithmetic by the caller, e.g. tap_check "$(fge "$x" 18)" ...
tap_check() {
	if [ "$1" = 1 ]; then tap_ok "$2" "$3"; else tap_fail "$2" "$3"; fi
}

# A target the code does not meet yet: TAP's TODO directive reports the
# result and the reason without failing the run (prove and our runners
# count it apart).  Use it only for a miss written down in Documentation/.
tap_todo() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $_tap_n - $2 # TODO ${4:-known miss}: $3"
	else
		echo "not ok $_tap_n - $2 # TODO ${4:-known miss}: $3"
	fi
}

tap_done() {
	if [ "$_tap_fail" -gt 0 ]; then exit 1; fi
	if [ "$_tap_n" -gt 0 ] && [ "$_tap_skip" -eq "$_tap_n" ]; then exit 4; fi
	exit 0
}

# Floating-point comparisons for measured numbers: print 1 or 0.
fge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 >= b + 0) ? 1 : 0 }'; }
fle() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 <= b + 0) ? 1 : 0 }'; }
# fin X LO HI: 1 when LO <= X <= HI
fin() { awk -v a="$1" -v l="$2" -v h="$3" 'BEGIN { print (a + 0 >= l + 0 && a + 0 <= h + 0) ? 1 : 0 }'; }

# Modules present in this tree (folders with a Kbuild), in load order.
cc_modules() {
	local d
	for d in tcp_etc tcp_abc sch_abc tcp_pcc pad_shim; do
		[ -f "$TOP/$d/Kbuild" ] && echo "$d"
	done
}

# require_tools TOOL...: skip the whole test, kselftest style, when one is
# missing (scripts/deps installs them all).
require_tools() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		tap_plan 1
		tap_skip "$(basename "$0" .sh)" "$tool not installed"
		tap_done
	done
}

require_root() {
	[ "$(id -u)" -eq 0 ] || { tap_plan 1; tap_skip "$(basename "$0")" "needs root"; tap_done; }
}
