"""What a component is built from, recorded in it: a snapshot of an interpreter differs from
build to build (its hash secret), so a build from the same inputs as the file already there keeps
that file, byte for byte, and ``weft apply`` then uploads and compiles nothing."""

import hashlib
from pathlib import Path

#: The custom section that names a component's inputs.
SECTION = b"weft-build-inputs"

#: Directories of a guest's tree that hold no module it imports.
_SKIPPED = {"__pycache__", "build", "dist", "node_modules", "target", "venv"}


def digest(world, entry, roots, extra):
    """The digest of a build: the world, the generated entry module, every ``.py`` file under
    ``roots`` (by its path below its root), and ``extra`` (versions, the WIT's files)."""
    h = hashlib.sha256(f"{world}\0{entry}\0".encode())
    for n, root in enumerate(roots):
        for path in sorted(_modules(Path(root))):
            h.update(f"{n}:{path.relative_to(root)}\0".encode())
            h.update(path.read_bytes())
    for item in extra:
        h.update(item if isinstance(item, bytes) else str(item).encode())
    return h.hexdigest()


def _modules(root):
    for path in root.iterdir():
        if path.is_dir():
            if not (path.name.startswith(".") or path.name in _SKIPPED):
                yield from _modules(path)
        elif path.suffix == ".py":
            yield path


def recorded(component):
    """The inputs ``component`` (bytes) records, if it does."""
    at = 8  # magic and version

    def leb():
        nonlocal at
        value = shift = 0
        while True:
            byte = component[at]
            at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    while at < len(component):
        section = component[at]
        at += 1
        end = leb() + at
        if section == 0:
            length = leb()
            if component[at:at + length] == SECTION:
                return component[at + length:end].decode()
        at = end
    return None


def record(component, inputs):
    """``component`` (bytes) with a custom section recording ``inputs``."""
    def leb(n):
        out = bytearray()
        while True:
            byte, n = n & 0x7F, n >> 7
            out.append(byte | (0x80 if n else 0))
            if not n:
                return bytes(out)
    payload = leb(len(SECTION)) + SECTION + inputs.encode()
    return component + b"\0" + leb(len(payload)) + payload
