"""The one boundary between the values componentize-py generates from ``wit/`` and wire JSON.

componentize-py turns each WIT record into a dataclass (field ``scheduled-event-id`` is
``scheduled_event_id``), each enum into an ``Enum`` whose member names are SWF's values
(``request-cancel`` is ``REQUEST_CANCEL``), each variant case into a dataclass named
``<Variant>_<Case>`` with one field ``value``, and ``option<T>`` into ``Optional[T]``. SWF's JSON
names are those names in lower camel case, and SWF tags its two variants the same way:

- an ``event-attributes`` case ``EventAttributes_ActivityTaskScheduled(a)`` is
  ``"eventType": "ActivityTaskScheduled", "activityTaskScheduledEventAttributes": a``, merged
  into the ``history-event`` record that holds it;
- a ``decision`` case ``Decision_StartTimer(a)`` is ``{"decisionType": "StartTimer",
  "startTimerDecisionAttributes": a}``.

So both directions are written once, by reflection over the generated classes, not per type:
adding a field or an event to ``wit/`` needs no change here. This module imports no generated
code itself, so it runs (and is tested) under plain CPython with bindings from
``componentize-py bindings``.
"""

import dataclasses
import enum
import typing

from .events import attributes_key, decision_attributes_key

__all__ = ["to_wire", "from_wire"]

# The variants SWF tags: the variant's name → (its tag key, the key of a case's attributes).
_TAGGED = {
    "EventAttributes": ("eventType", attributes_key),
    "Decision": ("decisionType", decision_attributes_key),
}

_HINTS = {}


def _camel(name):
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _hints(cls):
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _case(cls):
    """``(variant, case)`` if ``cls`` is a generated variant case class, else ``None``."""
    variant, sep, case = cls.__name__.partition("_")
    if sep and dataclasses.is_dataclass(cls) and \
            [f.name for f in dataclasses.fields(cls)] == ["value"]:
        return variant, case
    return None


def to_wire(value):
    """A generated WIT value as wire JSON: records as dicts with camelCase keys (``None``
    members left out), enums as SWF's values, tagged variants as SWF tags them."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (list, tuple)):
        return [to_wire(item) for item in value]
    if dataclasses.is_dataclass(value):
        case = _case(type(value))
        if case is not None:
            variant, name = case
            if variant not in _TAGGED:
                raise TypeError(f"no wire form for variant {variant}")
            tag, key = _TAGGED[variant]
            return {tag: name, key(name): to_wire(value.value)}
        wire = {}
        for field in dataclasses.fields(value):
            member = getattr(value, field.name)
            if member is None:
                continue
            converted = to_wire(member)
            if _case(type(member)) is not None:
                wire.update(converted)  # A tagged variant in a record is merged into it.
            else:
                wire[_camel(field.name)] = converted
        return wire
    raise TypeError(f"no wire form for {type(value).__name__}")


def from_wire(hint, wire, path="value"):
    """Wire JSON as the generated WIT type ``hint`` (a dataclass, enum, variant union,
    ``Optional``, ``List`` or primitive). Raises ``TypeError`` or ``ValueError`` naming the
    path of what does not fit."""
    origin = typing.get_origin(hint)
    if origin is typing.Union:
        cases = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(cases) < len(typing.get_args(hint)):
            if wire is None:
                return None
            if len(cases) == 1:
                return from_wire(cases[0], wire, path)
        return _variant_from_wire(cases, wire, path)
    if origin is list:
        if not isinstance(wire, (list, tuple)):
            raise TypeError(f"{path}: expected a list, got {wire!r}")
        (item,) = typing.get_args(hint)
        return [from_wire(item, v, f"{path}[{n}]") for n, v in enumerate(wire)]
    if hint is str:
        if isinstance(wire, str):
            return wire
        if isinstance(wire, int) and not isinstance(wire, bool):
            return str(wire)  # Durations and priorities given as numbers.
        raise TypeError(f"{path}: expected a string, got {wire!r}")
    if hint is bool:
        if isinstance(wire, bool):
            return wire
        raise TypeError(f"{path}: expected a boolean, got {wire!r}")
    if hint is int:
        if isinstance(wire, int) and not isinstance(wire, bool):
            return wire
        raise TypeError(f"{path}: expected an integer, got {wire!r}")
    if hint is float:
        if isinstance(wire, (int, float)) and not isinstance(wire, bool):
            return float(wire)
        raise TypeError(f"{path}: expected a number, got {wire!r}")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint[wire]
        except (KeyError, TypeError):
            names = ", ".join(hint.__members__)
            raise ValueError(f"{path}: {wire!r} is not one of {names}") from None
    if dataclasses.is_dataclass(hint):
        return _record_from_wire(hint, wire, path)
    raise TypeError(f"{path}: no wire form for {hint!r}")


def _record_from_wire(cls, wire, path):
    if not isinstance(wire, dict):
        raise TypeError(f"{path}: expected an object, got {wire!r}")
    hints = _hints(cls)
    members = {}
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        if _is_tagged_union(hint):
            members[field.name] = _variant_from_wire(typing.get_args(hint), wire, path)
        else:
            key = _camel(field.name)
            members[field.name] = from_wire(hint, wire.get(key), f"{path}.{key}")
    return cls(**members)


def _is_tagged_union(hint):
    if typing.get_origin(hint) is not typing.Union:
        return False
    case = _case(typing.get_args(hint)[0]) if isinstance(typing.get_args(hint)[0], type) else None
    return case is not None and case[0] in _TAGGED


def _variant_from_wire(cases, wire, path):
    variant, _ = _case(cases[0]) or (None, None)
    if variant not in _TAGGED:
        raise TypeError(f"{path}: no wire form for {cases!r}")
    tag, key = _TAGGED[variant]
    if not isinstance(wire, dict) or tag not in wire:
        raise TypeError(f"{path}: expected an object with {tag!r}, got {wire!r}")
    name = wire[tag]
    for cls in cases:
        if _case(cls)[1] == name:
            attributes = wire.get(key(name)) or {}
            return cls(from_wire(_hints(cls)["value"], attributes, f"{path}.{key(name)}"))
    raise ValueError(f"{path}: unknown {tag} {name!r}")
