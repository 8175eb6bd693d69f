# SPDX-License-Identifier: GPL-2.0
"""cclab: the project's test tooling.

netlab (netlab.py, over units, link, netns, topology, measure, stats,
plots) emulates a link in network namespaces and measures flows over it;
bench (bench.py, over plan, guest, report, plots) runs the benchmark
scenarios with netlab.  scripts/netlab and scripts/bench are their entry
points.  Standard library only; matplotlib is imported when plotting.
"""
