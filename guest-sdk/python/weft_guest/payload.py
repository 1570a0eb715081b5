"""JSON payloads, written byte for byte as the Rust SDK's guests write them.

Inputs, results, details and markers are strings; most guests put JSON in them. ``dumps``
writes JSON the way ``serde_json::Value::to_string`` does (compact, object keys sorted, floats
in Rust's shortest form), so a Python guest and a Rust guest given the same history write the
same bytes, and a workflow run gives the same results whichever language's guests ran it.

``get`` reads a decoded document the way ``serde_json``'s ``value["key"]`` does: a missing key,
or a key of something that is not an object, is ``None`` (JSON ``null``).
"""

import json
import math

__all__ = ["PayloadError", "dumps", "loads", "parse", "get", "as_u64", "encode"]


class PayloadError(ValueError):
    """A payload that should be JSON is not."""


def dumps(value):
    """``value`` as compact JSON with sorted keys, as ``serde_json`` writes it.

    >>> dumps({"b": [1, 2.5, None], "a": "é"})
    '{"a":"é","b":[1,2.5,null]}'
    """
    parts = []
    _write(value, parts)
    return "".join(parts)


def _write(value, out):
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        # ensure_ascii=False: serde_json writes non-ASCII as UTF-8, and escapes what Python does.
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, dict):
        out.append("{")
        for n, key in enumerate(sorted(value)):
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, not {key!r}")
            if n:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for n, item in enumerate(value):
            if n:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"not JSON: {value!r}")


def _float(value):
    """A float as ``ryu`` (serde_json's float printer) writes it; ``null`` if not finite."""
    if not math.isfinite(value):
        return "null"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0.0"
    # repr gives the shortest digits that round-trip, as ryu does; only the layout differs.
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    k = int(exponent or 0) - len(fraction)
    stripped = digits.rstrip("0")
    k += len(digits) - len(stripped)
    digits = stripped
    length = len(digits)
    kk = length + k  # 10^(kk-1) <= value < 10^kk
    if 0 <= k and kk <= 16:
        text = digits + "0" * k + ".0"
    elif 0 < kk <= 16:
        text = digits[:kk] + "." + digits[kk:]
    elif -5 < kk <= 0:
        text = "0." + "0" * -kk + digits
    elif length == 1:
        text = f"{digits}e{kk - 1}"
    else:
        text = f"{digits[0]}.{digits[1:]}e{kk - 1}"
    return sign + text


def _constant(name):
    raise ValueError(f"{name} is not JSON")


def _int(text):
    # serde_json reads an integer beyond 64 bits as a float.
    value = int(text)
    return value if -(1 << 63) <= value < 1 << 64 else _float_literal(text)


def _float_literal(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text}")
    return value


def _decode(text):
    """JSON as serde_json reads it: no NaN or Infinity, no number out of a double's range."""
    return json.loads(text, parse_constant=_constant, parse_int=_int,
                      parse_float=_float_literal)


def loads(text, what="the payload"):
    """``text`` decoded from JSON; raises :class:`PayloadError` naming ``what`` if it is not."""
    try:
        return _decode(text)
    except (TypeError, ValueError) as e:
        raise PayloadError(f"{what} is not JSON: {e}") from e


def parse(text):
    """``text`` decoded from JSON, or ``text`` itself (a JSON string) if it is not JSON."""
    try:
        return _decode(text)
    except (TypeError, ValueError):
        return text


def get(value, *path):
    """``value[path[0]][path[1]]...`` as ``serde_json`` indexes: ``None`` where it leads nowhere.

    >>> get({"order": {"id": "o-1"}}, "order", "id"), get({"order": 3}, "order", "id")
    ('o-1', None)
    """
    for step in path:
        if isinstance(step, str) and isinstance(value, dict):
            value = value.get(step)
        elif isinstance(step, int) and isinstance(value, list) and 0 <= step < len(value):
            value = value[step]
        else:
            return None
    return value


def as_u64(value):
    """``value`` if it is an integer that fits an unsigned 64-bit one, as ``Value::as_u64``."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 64:
        return value
    return None


def encode(value):
    """A payload for a decision, result or failure: a string or ``None`` as it is, anything
    else as JSON (:func:`dumps`). To send a JSON string, encode it yourself: ``dumps("text")``."""
    if value is None or isinstance(value, str):
        return value
    return dumps(value)
