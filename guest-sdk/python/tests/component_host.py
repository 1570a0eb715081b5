"""A small host that runs built components under wasmtime-py, for the component tests.

wasmtime-py 48 embeds the same Wasmtime as Weft's host, with its WASI p2, so a component that
loads and runs here links against what Weft gives guests (bar Weft's own policies: the
deterministic clock and randomness of deciders, limits, denied files and sockets). Like Weft,
it converts between wire JSON and component values by the component's own types, and gives
every call a fresh instance.
"""

import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import build  # noqa: E402 - the SDK's build script, for its toolchain installer

WASMTIME_VERSION = "48.0.0"


def wasmtime():
    """The wasmtime module, installed under the guest toolchains on first use."""
    sys.path.insert(0, str(build.ensure_package("wasmtime", WASMTIME_VERSION, quiet=True)))
    import wasmtime as module
    import wasmtime.component  # noqa: F401 - a submodule wasmtime does not import itself
    return module


def _camel(name):
    head, *rest = name.split("-")
    return head + "".join(part.capitalize() for part in rest)


def _pascal(name):
    return "".join(part.capitalize() for part in name.split("-"))


def _kebab(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


_TAGS = {"event-attributes": ("eventType", "EventAttributes"),
         "decision": ("decisionType", "DecisionAttributes")}


class GuestError(Exception):
    """The guest answered ``err`` (``decide``'s string, ``invoke``'s failure)."""


class ComponentHost:
    """Loads one component; each call instantiates it afresh, within ``memory_bytes``."""

    def __init__(self, path, memory_bytes=64 << 20):
        wt = wasmtime()
        self._wt = wt
        self._c = wt.component
        self.engine = wt.Engine()
        began = time.monotonic()
        self.component = self._c.Component.from_file(self.engine, str(path))
        self.compile_seconds = time.monotonic() - began
        self.memory_bytes = memory_bytes
        self.logs = []
        self.heartbeats = []
        self.cancel_requested = False
        self.linker = self._c.Linker(self.engine)
        self.linker.add_wasip2()
        with self.linker.root() as root:
            with root.add_instance("weft:swf/log@0.1.0") as log:
                log.add_func("write", self._write)
            with root.add_instance("weft:swf/heartbeat@0.1.0") as heartbeat:
                heartbeat.add_func("record-heartbeat", self._heartbeat)
            # Weft composes the workflow core into a decider; here the SDK's own copy of the
            # core (a Wasm module in this process) answers the decider's calls.
            with root.add_instance("weft:swf/replay@0.1.0") as replay:
                replay.add_func("call", self._replay)
        self.last_call = {}
        self._core = None

    def _replay(self, store, request):
        if self._core is None:
            from weft_guest import _core
            self._core = _core._module_call()
        request = json.loads(bytes(request))
        if request["op"] == "begin" and "task" not in request:
            request["task"] = self._task  # as Weft does: the task being decided
        return self._core(json.dumps(request).encode())

    def _write(self, store, level, message):
        self.logs.append((level, message))

    def _heartbeat(self, store, details):
        self.heartbeats.append(details)
        return self.cancel_requested

    def call(self, export, *wire_args):
        """Calls ``export`` with wire JSON arguments on a fresh instance; answers the wire
        JSON result, raising :class:`GuestError` for an ``err``."""
        self._task = wire_args[0] if export == "decide" else None
        store = self._wt.Store(self.engine)
        store.set_wasi(self._wt.WasiConfig())
        store.set_limits(memory_size=self.memory_bytes)
        began = time.monotonic()
        instance = self.linker.instantiate(store, self.component)
        func = instance.get_func(store, export)
        instantiated = time.monotonic()
        ftype = func.type(store)
        args = [self._lower(ty, arg) for (_, ty), arg in zip(ftype.params, wire_args)]
        raw = func(store, *args)
        func.post_return(store)
        self.last_call = {"instantiate": instantiated - began,
                          "call": time.monotonic() - instantiated}
        return self._result(ftype.result, raw)

    def _result(self, ty, raw):
        if isinstance(ty, self._c.ResultType):
            cases = dict(ty._cases())
            # wasmtime-py answers a result's payload untagged: tell ok from err by its type.
            if isinstance(raw, self._c.Variant):
                if raw.tag == "err":
                    raise GuestError(self._lift(cases["err"], raw.payload))
                return self._lift(cases["ok"], raw.payload)
            ok, err = cases["ok"], cases["err"]
            if isinstance(err, self._c.String) and isinstance(raw, str) and \
                    not isinstance(ok, self._c.OptionType):
                raise GuestError(raw)
            if isinstance(err, self._c.RecordType) and isinstance(raw, self._c.Record):
                raise GuestError(self._lift(err, raw))
            return self._lift(ok, raw)
        return self._lift(ty, raw)

    def _lower(self, ty, wire):
        c = self._c
        if isinstance(ty, c.RecordType):
            record = c.Record()
            for name, field in ty.fields:
                if isinstance(field, c.VariantType):
                    value = self._lower(field, wire)  # SWF merges its tagged variant in.
                else:
                    value = self._lower(field, wire.get(_camel(name)))
                setattr(record, name, value)
            return record
        if isinstance(ty, c.VariantType):
            tag_key, suffix = next(v for k, v in _TAGS.items()
                                   if any(n == _kebab(wire[v[0]]) for n, _ in ty._cases()))
            tag = _kebab(wire[tag_key])
            case = dict(ty._cases())[tag]
            key = wire[tag_key][:1].lower() + wire[tag_key][1:] + suffix
            return c.Variant(tag, self._lower(case, wire.get(key) or {}))
        if isinstance(ty, c.EnumType):
            return wire.lower().replace("_", "-")
        if isinstance(ty, c.OptionType):
            return None if wire is None else self._lower(ty.payload, wire)
        if isinstance(ty, c.ListType):
            return [self._lower(ty.element, item) for item in wire]
        return wire

    def _lift(self, ty, raw):
        c = self._c
        if raw is None:
            return None
        if isinstance(ty, c.RecordType):
            wire = {}
            for name, field in ty.fields:
                value = self._lift(field, getattr(raw, name))
                if value is not None:
                    wire[_camel(name)] = value
            return wire
        if isinstance(ty, c.VariantType):
            kind = _pascal(raw.tag)
            case = dict(ty._cases())[raw.tag]
            if raw.tag in ("completed", "failed", "canceled"):  # activity-outcome
                return {"outcome": raw.tag, "value": self._lift(case, raw.payload)}
            return {"decisionType": kind,
                    kind[:1].lower() + kind[1:] + "DecisionAttributes":
                        self._lift(case, raw.payload)}
        if isinstance(ty, c.EnumType):
            return raw.upper().replace("-", "_")
        if isinstance(ty, c.OptionType):
            return self._lift(ty.payload, raw)
        if isinstance(ty, c.ListType):
            return [self._lift(ty.element, item) for item in raw]
        return raw
