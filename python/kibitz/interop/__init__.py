"""Adapters to other frameworks (docs/research.md), each behind an optional extra:
:mod:`kibitz.interop.openspiel` (``kibitz[openspiel]``) and :mod:`kibitz.interop.pettingzoo`
(``kibitz[pettingzoo]``). Import the one you need; this package imports neither."""
