# SPDX-License-Identifier: GPL-2.0
"""netlab check: expressions over a result.json, for the VM tests.

Each expression is a small Python-like formula over the document's fields
(Documentation/netlab.rst, "result.json"), e.g.

    flows[0].goodput_mbps                      a value
    round(100 * flows[0].goodput_mbps / config.rate_mbps, 1)
    flows[1].rtt.p95 <= 0.8 * flows[0].rtt.p95 a comparison: 1 or 0
    min(during(flows[0].goodput_series, flows[0].window_s[0],
               flows[0].window_s[1] - run.interval_s))

Allowed: numbers and strings, field access (a.b, a[i], a[i:j], a["key"]),
+ - * /, comparisons (chained), and/or/not, and the functions in FUNCS.
Nothing else is evaluated: the tests pass measured numbers in, and a
result.json is data, so no Python eval().

Pure: reads one file, touches nothing else.
"""

import ast
import json
import math
import os
import re
import shlex

from .common import Error, read_json


class CheckError(Error):
    """An expression that cannot be evaluated on this document."""


class Rounded(float):
    """A float printed with a fixed number of decimals (what round() gives)."""

    def __new__(cls, value, digits):
        obj = super().__new__(cls, round(value, digits))
        obj.digits = digits
        return obj


def _round(x, digits=0):
    if not isinstance(digits, int) or isinstance(digits, bool) or not 0 <= digits <= 12:
        raise CheckError("round() wants 0-12 decimals")
    return Rounded(_number(x), digits)


def _number(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise CheckError(f"not a number: {fmt(x)}")
    return x


def _numbers(values):
    if not isinstance(values, list):
        raise CheckError(f"not a list: {fmt(values)}")
    return [_number(v) for v in values]


def _min(*args):
    values = _numbers(args[0] if len(args) == 1 else list(args))
    if not values:
        raise CheckError("min() of nothing")
    return min(values)


def _max(*args):
    values = _numbers(args[0] if len(args) == 1 else list(args))
    if not values:
        raise CheckError("max() of nothing")
    return max(values)


def _mean(values):
    values = _numbers(values)
    if not values:
        raise CheckError("mean() of nothing")
    return sum(values) / len(values)


def during(series, t0, t1):
    """The values of a time series ({"t_s": [...], one other list}) whose
    times lie in [t0, t1]; nulls are left out."""
    if not isinstance(series, dict) or not isinstance(series.get("t_s"), list):
        raise CheckError("during() wants a time series with t_s")
    keys = [k for k, v in series.items() if k != "t_s" and isinstance(v, list)]
    if len(keys) != 1:
        raise CheckError(f"during(): which values? {sorted(keys)}")
    t0, t1 = _number(t0), _number(t1)
    return [v for t, v in zip(series["t_s"], series[keys[0]])
            if v is not None and t0 - 1e-9 <= t <= t1 + 1e-9]


FUNCS = {
    "abs": lambda x: abs(_number(x)),
    "len": lambda x: len(x) if isinstance(x, (list, dict, str)) else _number(None),
    "min": _min,
    "max": _max,
    "sum": lambda x: sum(_numbers(x)),
    "mean": _mean,
    "round": _round,
    "during": during,
}

_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}
_CMPOPS = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
           ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
           ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


class Evaluator:
    def __init__(self, doc, names=None):
        if not isinstance(doc, dict):
            raise CheckError("the result is not a JSON object")
        self.names = dict(doc)
        for name, value in (names or {}).items():
            if name in self.names or name in FUNCS:
                raise CheckError(f"--set {name}: the name is taken")
            self.names[name] = value

    def evaluate(self, text):
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as e:
            raise CheckError(f"{text!r}: {e.msg}")
        try:
            return self._eval(tree.body)
        except (TypeError, ZeroDivisionError, OverflowError) as e:
            raise CheckError(f"{text!r}: {e}")

    def _eval(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in self.names:
                raise CheckError(f"no field {node.id}")
            return self.names[node.id]
        if isinstance(node, ast.Attribute):
            return self._field(self._eval(node.value), node.attr, node)
        if isinstance(node, ast.Subscript):
            return self._index(self._eval(node.value), node.slice, node)
        if isinstance(node, ast.UnaryOp):
            x = self._eval(node.operand)
            if isinstance(node.op, ast.Not):
                return not self._truth(x)
            if isinstance(node.op, ast.USub):
                return -_number(x)
            if isinstance(node.op, ast.UAdd):
                return _number(x)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = _number(self._eval(node.left)), _number(self._eval(node.right))
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.BoolOp):
            truths = (self._truth(self._eval(v)) for v in node.values)
            return all(truths) if isinstance(node.op, ast.And) else any(truths)
        if isinstance(node, ast.Compare) and all(type(op) in _CMPOPS for op in node.ops):
            left = self._eval(node.left)
            for op, right_node in zip(node.ops, node.comparators):
                right = self._eval(right_node)
                if type(op) not in (ast.Eq, ast.NotEq):
                    _number(left), _number(right)
                if not _CMPOPS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in FUNCS and not node.keywords:
            return FUNCS[node.func.id](*[self._eval(a) for a in node.args])
        raise CheckError(f"not allowed here: {ast.unparse(node)}")

    @staticmethod
    def _truth(x):
        if isinstance(x, bool):
            return x
        raise CheckError(f"not a comparison: {fmt(x)}")

    @staticmethod
    def _field(obj, key, node):
        if not isinstance(obj, dict) or key not in obj:
            raise CheckError(f"no field {ast.unparse(node)}")
        return obj[key]

    def _index(self, obj, sl, node):
        if isinstance(sl, ast.Slice):
            if not isinstance(obj, list):
                raise CheckError(f"not a list: {ast.unparse(node.value)}")
            bounds = [None if b is None else self._eval(b) for b in (sl.lower, sl.upper)]
            if sl.step is not None or any(b is not None and type(b) is not int for b in bounds):
                raise CheckError(f"bad slice: {ast.unparse(node)}")
            return obj[bounds[0]:bounds[1]]
        key = self._eval(sl)
        if isinstance(obj, list) and type(key) is int:
            if not -len(obj) <= key < len(obj):
                raise CheckError(f"no field {ast.unparse(node)} ({len(obj)} entries)")
            return obj[key]
        if isinstance(obj, dict) and isinstance(key, str):
            return self._field(obj, key, node)
        raise CheckError(f"no field {ast.unparse(node)}")


def fmt(value):
    """One value as a shell test reads it: 1/0 for a comparison, null for none."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if value is None:
        return "null"
    if isinstance(value, Rounded):
        return f"{value:.{value.digits}f}"
    if isinstance(value, float):
        return repr(round(value, 6)) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return " ".join(value.splitlines())
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


_ASSIGN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)(.*)", re.S)


def parse_set(items):
    names = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise CheckError(f"--set wants NAME=NUMBER: {item!r}")
        try:
            names[name] = float(value) if re.search(r"[.eEnN]", value) else int(value)
        except ValueError:
            raise CheckError(f"--set {name}: not a number: {value!r}")
        if isinstance(names[name], float) and not math.isfinite(names[name]):
            raise CheckError(f"--set {name}: not a number: {value!r}")
    return names


def check(doc, exprs, names=None, out=print, err=None):
    """Print one line per expression (`VALUE`, or `NAME=VALUE` shell-quoted
    for `NAME=EXPR`); return 0 if no comparison is false, 1 if one is,
    2 if an expression could not be evaluated (printed as null)."""
    ev = Evaluator(doc, names)
    rc = 0
    for text in exprs:
        m = _ASSIGN.fullmatch(text)
        name, body = (m.group(1), m.group(2)) if m else (None, text)
        try:
            value = ev.evaluate(body)
        except CheckError as e:
            if err:
                err(f"error: {e}")
            value, rc = None, 2
        if value is False and rc == 0:
            rc = 1
        out(f"{name}={shlex.quote(fmt(value))}" if name else fmt(value))
    return rc


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "result.json")
    return read_json(path)
