# SPDX-License-Identifier: GPL-2.0
"""Units of the command lines and scenario files (rates, times, sizes,
percentages), the packet sizes of the emulated link, number formats."""

import argparse
import re

MTU = 1500
WIRE_BYTES = MTU + 14          # what qdiscs on veth count per full packet
PAYLOAD_BYTES = MTU - 20 - 32  # TCP payload with timestamps (MSS 1448)
PAYLOAD_RATIO = PAYLOAD_BYTES / WIRE_BYTES


_RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9,
               "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9}
_TIME_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
_SIZE_UNITS = {"b": 1, "k": 1024, "kb": 1024, "m": 1 << 20, "mb": 1 << 20}


def _split_unit(text):
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zA-Z%]*)\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a number with a unit: {text!r}")
    return float(m.group(1)), m.group(2).lower()


def parse_rate(text):
    """'20mbit' -> 20e6 bit/s (tc units: kbit/mbit/gbit, kbps = kByte/s); a bare number is Mbit/s."""
    value, unit = _split_unit(text)
    if not unit:
        return value * 1e6
    if unit not in _RATE_UNITS:
        raise argparse.ArgumentTypeError(f"unknown rate unit in {text!r}")
    return value * _RATE_UNITS[unit]


def parse_time(text, default_unit="ms"):
    """'40ms' -> 0.040 s; a bare number is in default_unit."""
    value, unit = _split_unit(text)
    unit = unit or default_unit
    if unit not in _TIME_UNITS:
        raise argparse.ArgumentTypeError(f"unknown time unit in {text!r}")
    return value * _TIME_UNITS[unit]


def parse_ms(text):
    return parse_time(text, "ms")


def parse_seconds(value):
    """5, '5', '5s', '500ms' -> seconds; a bare number is in seconds."""
    if isinstance(value, (int, float)):
        return float(value)
    return parse_time(str(value), "s")


def parse_percent(text):
    value, unit = _split_unit(text)
    if unit not in ("", "%"):
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}")
    if not 0 <= value < 100:
        raise argparse.ArgumentTypeError(f"loss must be in [0, 100): {text!r}")
    return value


def parse_buffer(text):
    """'1bdp', '0.5bdp', '100p' (packets), '150kb' (tc sizes, k = 1024) -> (kind, value)."""
    value, unit = _split_unit(text)
    if unit == "bdp":
        return ("bdp", value)
    if unit in ("p", "pkt", "pkts", "packets"):
        return ("packets", value)
    if unit in _SIZE_UNITS:
        return ("bytes", value * _SIZE_UNITS[unit])
    raise argparse.ArgumentTypeError(f"buffer must be NbdP, Np or a size like 150kb: {text!r}")



def fmt_time(s):
    s = int(round(s))
    return f"{s // 60}:{s % 60:02d}"



def num(v, scale=1, spec=".2f"):
    return "n/a" if v is None else format(v * scale, spec)
