"""The workflow core (``guest-sdk/core``, WIT ``weft:swf/replay``): one function taking and
answering JSON, which replays workflow code (``weft_workflow_core::replay::json`` lists its
requests). In a component it is the host's import (the host composes the core into the
decider); outside one, the SDK runs the same core as a Wasm module with ``wasmtime`` (installed
into the toolchains cache on first use when it is not importable), so that unit tests need no
server."""

import json
import sys
from pathlib import Path

#: The wasmtime release the core is run with outside a component (the host's line).
WASMTIME_VERSION = "48.0.0"

_CALL = "weft:swf/replay@0.1.0#call"
#: Compact, and without the check for cycles that a history, a tree, does not need.
_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False, ensure_ascii=False).encode
_HERE = Path(__file__).resolve().parent
_call = None


def ask(request, nondeterminism=RuntimeError):
    """The core's ``ok`` answer to ``request`` (``{"op": ..., ...}``); its ``err`` raised as a
    ``RuntimeError``, or as ``nondeterminism`` where the code contradicts the history."""
    global _call
    if _call is None:
        _call = _component_call() if sys.platform == "wasi" else _module_call()
    answer = json.loads(_call(_encode(request).encode()))
    if "err" in answer:
        raise (nondeterminism if answer.get("nondeterminism") else RuntimeError)(answer["err"])
    return answer["ok"]


def _component_call():
    from wit_world.imports import replay  # loaded at build time by _component.world_class
    return replay.call


def _core_file():
    """The core beside the SDK once packaged, else the checkout's prebuilt one."""
    for path in (_HERE / "workflow-core.wasm",
                 _HERE.parents[2] / "examples" / "artifacts" / "prebuilt" / "workflow-core.wasm"):
        if path.is_file():
            return path
    raise RuntimeError(f"no workflow core in {_HERE}: reinstall weft-guest")


def _wasmtime():
    try:
        import wasmtime
    except ImportError:
        from weft_componentize import ensure_package
        sys.path.insert(0, str(ensure_package("wasmtime", WASMTIME_VERSION, quiet=True)))
        import wasmtime
    return wasmtime


def _module_call():
    wasmtime = _wasmtime()
    store = wasmtime.Store()
    module = wasmtime.Module.from_file(store.engine, str(_core_file()))
    exports = wasmtime.Instance(store, module, []).exports(store)
    memory, realloc = exports["memory"], exports["cabi_realloc"]
    call, post = exports[_CALL], exports[f"cabi_post_{_CALL}"]

    def call_core(request):
        at = realloc(store, 0, 0, 1, len(request))
        memory.write(store, request, at)
        area = call(store, at, len(request))
        pointer = int.from_bytes(memory.read(store, area, area + 4), "little")
        length = int.from_bytes(memory.read(store, area + 4, area + 8), "little")
        answer = memory.read(store, pointer, pointer + length)
        post(store, area)
        return answer
    return call_core
