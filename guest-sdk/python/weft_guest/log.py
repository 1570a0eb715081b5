"""Messages to the host's log (the ``log`` import every world has), tagged by the host with the
guest's binding and task.

Call :func:`debug`, :func:`info`, :func:`warn` or :func:`error`, or use the standard
:mod:`logging` module: inside a component the SDK forwards the root logger's records to the
host (see :func:`install`). Outside a component (in unit tests) messages go to stderr.
"""

import logging
import sys

__all__ = ["debug", "info", "warn", "error", "write", "install"]

_LEVELS = ("debug", "info", "warn", "error")


def write(level, message):
    """Writes ``message`` at ``level`` (``debug``, ``info``, ``warn`` or ``error``)."""
    if level not in _LEVELS:
        raise ValueError(f"unknown log level {level!r}")
    if sys.platform == "wasi":
        from wit_world.imports import log as host  # generated for every world
        host.write(getattr(host.Level, level.upper()), str(message))
    else:
        # Outside a component there is no host to write to.
        print(f"[{level.upper()}] {message}", file=sys.stderr)


def debug(message):
    """Detail for whoever debugs the guest."""
    write("debug", message)


def info(message):
    """Normal progress."""
    write("info", message)


def warn(message):
    """Something unexpected the guest handled."""
    write("warn", message)


def error(message):
    """Something the guest could not handle."""
    write("error", message)


class HostHandler(logging.Handler):
    """A :mod:`logging` handler that writes records to the host's log."""

    def emit(self, record):
        if record.levelno >= logging.ERROR:
            level = "error"
        elif record.levelno >= logging.WARNING:
            level = "warn"
        elif record.levelno >= logging.INFO:
            level = "info"
        else:
            level = "debug"
        try:
            write(level, self.format(record))
        except Exception:  # noqa: BLE001 - logging must never fail the task
            self.handleError(record)


def install():
    """Forwards the root logger to the host, at every level, unless the guest configured
    logging itself. The exports call it before the guest's code."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(HostHandler())
        root.setLevel(logging.DEBUG)
