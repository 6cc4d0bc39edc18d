"""Exceptions raised by kibitz. Bad input raises ``ValueError`` subclasses; a plug-in that
fails during a search (kibitz.plugins) raises ``PluginError``, a ``RuntimeError``.

The classes are defined by the C++ core so that errors raised there arrive in Python with
their original messages, which name the bad input and what was expected.
"""

from typing import Any

from kibitz._core import IllegalMoveError, NotationError, OptionError, PluginError, UnknownGameError

__all__ = ["IllegalMoveError", "NotationError", "OptionError", "PluginError", "UnknownGameError", "shown"]

SHOWN_CHARS = 30  # an offending value longer than this is cut in error messages


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``value`` for an error message: text quoted, anything longer than ``limit`` cut."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[: limit - 6] + "…"
    return repr(text) if isinstance(value, str) else text
