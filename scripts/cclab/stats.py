# SPDX-License-Identifier: GPL-2.0
"""Summary statistics of samples."""

import math

def percentile(values, p):
    """Linear-interpolated percentile (numpy's default), None for no data."""
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * p / 100.0
    lo = int(math.floor(k))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def dist_stats(values, digits=3):
    if not values:
        return {"p50": None, "p95": None, "mean": None, "min": None, "max": None, "samples": 0}
    r = lambda x: round(x, digits)
    return {"p50": r(percentile(values, 50)), "p95": r(percentile(values, 95)),
            "mean": r(sum(values) / len(values)), "min": r(min(values)),
            "max": r(max(values)), "samples": len(values)}


def interp(points, t):
    """Piecewise-linear value of a cumulative series [(t, v)] at t."""
    if not points:
        return 0.0
    if t <= points[0][0]:
        return points[0][1]
    if t >= points[-1][0]:
        return points[-1][1]
    lo, hi = 0, len(points) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if points[mid][0] <= t:
            lo = mid
        else:
            hi = mid
    (t0, v0), (t1, v1) = points[lo], points[hi]
    return v0 + (v1 - v0) * (t - t0) / (t1 - t0) if t1 > t0 else v1



def jain(values):
    if not values or sum(values) <= 0:
        return None
    return sum(values) ** 2 / (len(values) * sum(v * v for v in values))



def median(values):
    """Median; an odd count gives a measured value, an even one the mean of
    the middle two (inf, a flow that never converged, stays inf)."""
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
