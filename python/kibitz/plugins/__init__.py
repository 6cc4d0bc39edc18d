"""Rollout policies and leaf evaluators from outside kibitz: compiled plug-ins and Python callables.

A plug-in gives the search a rollout policy (``choose``: the action to play at a rollout
decision), a leaf evaluator (``evaluate``: every seat's expected reward where a rollout stops,
``eval_depth`` decisions after the tree), or both. Each sees one seat's observation tensor and
the legal-action mask, never the hidden state. The C ABI is ``kibitz_plugin.h`` (in
:func:`get_include`), declared for Cython by ``kibitz_plugin.pxd`` beside it; docs/plugins.md
describes both and how to build a plug-in of one's own without rebuilding kibitz.

- A **compiled plug-in** is a module whose attribute ``kibitz_plugin`` is a PyCapsule holding
  the ABI's struct; its functions run without the GIL on every search thread. kibitz ships
  one example per game, ``kibitz.plugins.<game>`` (built from ``bots/<game>/plugin.pyx``).
- A **Python plug-in** wraps plain callables (:func:`from_python`): every call takes the GIL,
  so it is thread-safe but serialises the search threads, and it costs a Python call per
  rollout decision (docs/performance.md has the figures).

Use one with ``State.search(params, plugin=...)``, ``SearchBot(params, plugin=...)`` or a bot
spec: ``ismcts:plugin=kibitz.plugins.just4fun_colours,eval_depth=4``.

**Which names load.** A plug-in named by text that may come from elsewhere (a bot spec's
``plugin=``, the protocol's ``Plugin`` option, a request to ``kibitz serve``) is loaded by
:func:`load_allowed`, which imports only an allowed module (:func:`is_allowed`): the examples
shipped in ``kibitz.plugins``, a module an installed package registers in the entry-point group
``kibitz.plugins`` (:data:`ENTRY_POINT_GROUP`), or one allowed with :func:`allow` (the engine's
and the server's ``--allow-plugin MODULE``). A trained network's file (a path ending in
``.kbnet``, :mod:`kibitz.learn`) is data, not code: the C++ reader checks it whole before a
search uses it, so one loads from a bot spec or the ``Plugin`` option without being allowed;
only ``kibitz serve``, whose specs come from browsers, loads just the files its operator names
with ``--allow-plugin FILE.kbnet``. Python code is trusted: :func:`load` imports the
module it is given by name, and a module object, a :class:`Plugin` or a capsule is used as is.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.metadata
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from kibitz import _core
from kibitz.errors import OptionError, shown

ABI_VERSION: int = _core.PLUGIN_ABI_VERSION
"""The plug-in ABI this kibitz speaks (``KIBITZ_PLUGIN_ABI_VERSION``)."""
CAPSULE_NAME: str = _core.PLUGIN_CAPSULE
"""The name of the PyCapsule that holds a plug-in (``KIBITZ_PLUGIN_CAPSULE``)."""
EXPORT = "kibitz_plugin"
"""The module attribute that holds a compiled plug-in's capsule."""
PARTS = ("choose", "evaluate")
"""What :meth:`Plugin.only` and a ``module:part`` name can pick out of a plug-in."""
NETWORK_SUFFIX = ".kbnet"
"""The ending of a trained network's file name (:mod:`kibitz.learn`), which :func:`load` reads as a plug-in."""
ENTRY_POINT_GROUP = "kibitz.plugins"
"""The entry-point group in which an installed package registers its plug-in modules: in its
pyproject.toml, ``[project.entry-points."kibitz.plugins"]`` and ``my_policy = "my_package.my_policy"``.
The modules they name are allowed (:func:`is_allowed`)."""
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
"""A module name: Python identifiers (ASCII) joined by dots, no leading dot (no relative import)."""
ALLOW_FLAG = "--allow-plugin"
"""The command-line flag of the engine, the server and the commands that take bot specs that
calls :func:`allow` (repeatable)."""
ALLOW_HELP = (
    "allow bot specs and the Plugin option to load this plug-in module (repeatable; docs/plugins.md); "
    "for kibitz serve, a network file FILE.kbnet too (docs/learning.md)"
)
NAME_CHARS = 80  # a longer name is cut in error messages
PATH_CHARS = 4096  # the longest network file path a plug-in name may give
_allowed: set[str] = set()  # the modules allow() added

ChooseFunction = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_], int, int], int]
"""``choose(observation, legal_mask, seat, random) -> action``: a legal action id for ``seat``."""
EvaluateFunction = Callable[[npt.NDArray[np.float32], int, int], Sequence[float]]
"""``evaluate(observation, seat, players) -> values``: ``values[k]`` in [0, 1] for relative seat k."""


class Plugin:
    """A plug-in ready for the search: its capsule and what the capsule says it offers.

    Build one with :func:`load` or :func:`from_python`. ``owner`` is what keeps the capsule's
    struct alive (the module, or the Python wrapper)."""

    def __init__(self, capsule: Any, owner: object = None, source: str = "") -> None:
        info = _core.plugin_info(capsule)  # OptionError for anything but a plug-in of this ABI
        self.capsule = capsule
        self.owner = owner
        self.source = source
        self.name: str = info["name"]
        self.game: str | None = info["game"]
        self.chooses: bool = info["chooses"]
        self.evaluates: bool = info["evaluates"]
        self._module_name: str | None = None  # set by load() for a plug-in named by its module

    def only(self, part: str) -> Plugin:
        """This plug-in with only its rollout policy (``"choose"``) or only its evaluator
        (``"evaluate"``); raises OptionError when it has no such part."""
        if part not in PARTS:
            raise OptionError(f"plug-in {self.name!r}: a part is one of {', '.join(PARTS)}, got {shown(part)}")
        subset = _core.plugin_subset(self.capsule, part == "choose", part == "evaluate")
        return Plugin(subset, self.owner, f"{self.source}:{part}" if self.source else "")

    def choose(self, observation: npt.ArrayLike, legal_mask: npt.ArrayLike, seat: int, random: int = 0) -> int:
        """Calls the rollout policy once, as the search would (for testing a plug-in): returns
        what it returns, unchecked. ``observation``: seat's tensor (``State.observation_tensor``),
        ``legal_mask``: ``State.legal_action_mask``; ``random``: 64 bits."""
        mask = np.asarray(legal_mask).astype(np.uint8)
        return int(_core.plugin_choose(self.capsule, np.asarray(observation, dtype=np.float32), mask, seat, random))

    def evaluate(self, observation: npt.ArrayLike, seat: int, players: int) -> list[float]:
        """Calls the leaf evaluator once, as the search would: each relative seat's value, unchecked."""
        return list(_core.plugin_evaluate(self.capsule, np.asarray(observation, dtype=np.float32), seat, players))

    def __deepcopy__(self, memo: dict[int, Any]) -> Plugin:
        return self  # immutable, and its capsule cannot be copied: a copied bot shares it

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """A compiled plug-in pickles as its module name (loaded again in the other process);
        a Python one does not pickle."""
        if self._module_name is None:
            raise TypeError(f"plug-in {self.name!r} ({self.source or 'a capsule'}) cannot be pickled: only one loaded by module name can")
        return (load, (self._module_name,))

    def __repr__(self) -> str:
        parts = [p for p, on in (("choose", self.chooses), ("evaluate", self.evaluates)) if on]
        where = f" from {self.source}" if self.source else ""
        return f"Plugin({self.name!r}{where}, game={self.game or 'any'}, {'+'.join(parts)})"


def load(source: str | ModuleType | Plugin | Any) -> Plugin:
    """The plug-in ``source`` names or holds: a :class:`Plugin` (returned as is), a module name
    (``"kibitz.plugins.yak"``, ``"my_package.my_policy"``) or module, a trained network's file
    (a path ending in ``.kbnet``, :mod:`kibitz.learn`: its value head evaluates, its policy head
    chooses), any object with a ``kibitz_plugin`` attribute, or the capsule itself. A name may
    end in ``:choose`` or ``:evaluate`` for only that part (:meth:`Plugin.only`):
    ``"kibitz.plugins.just4fun_colours:choose"``, ``"gen1.kbnet:evaluate"``. Raises OptionError
    naming what was wrong."""
    if isinstance(source, Plugin):
        return source
    if isinstance(source, str):
        module, part = split_name(source)
        if part is not None:
            plugin = load(module).only(part)
            plugin._module_name = source
            return plugin
        if is_network_file(module):
            return _network(module)
    module_name = source if isinstance(source, str) else None
    label = source if isinstance(source, str) else getattr(source, "__name__", type(source).__name__)
    if isinstance(source, str):
        try:
            source = importlib.import_module(source)
        except ImportError as err:
            raise OptionError(f"plug-in {shown(label, NAME_CHARS)}: cannot import it ({err})") from None
        except Exception as err:  # the module itself failed while importing
            raise OptionError(f"plug-in {shown(label, NAME_CHARS)}: importing it failed ({type(err).__name__}: {err})") from None
    if isinstance(source, ModuleType) or hasattr(source, EXPORT):
        if not hasattr(source, EXPORT):
            raise OptionError(f"plug-in {shown(label, NAME_CHARS)}: the module has no attribute {EXPORT!r} (a PyCapsule named {CAPSULE_NAME!r})")
        owner, capsule = source, getattr(source, EXPORT)
    else:
        owner, capsule = None, source
    try:
        plugin = Plugin(capsule, owner, label)
    except OptionError as err:
        raise OptionError(f"plug-in {shown(label, NAME_CHARS)}: {err}") from None
    plugin._module_name = module_name
    return plugin


def _network(path: str) -> Plugin:
    """A network file as a plug-in, evaluated in C++ (csrc/learn/network_plugin.h); it pickles as its path."""
    from kibitz.learn import check_fits

    network = _core.Network.read(path)
    check_fits(network, path)
    plugin = Plugin(network.capsule(), network, f"network file {path}")
    plugin._module_name = path
    return plugin


def split_name(name: str) -> tuple[str, str | None]:
    """A plug-in name as its module (or network file) and its part (``"kibitz.plugins.yak:choose"``
    -> ``("kibitz.plugins.yak", "choose")``; no part: None), checked before anything is imported
    or opened: raises OptionError for text that is neither a module name (a leading dot, a slash,
    ``..``, spaces, anything but dotted Python identifiers) nor a network file's path (ending in
    :data:`NETWORK_SUFFIX`, printable text), or a part other than those of :data:`PARTS`."""
    if not isinstance(name, str):
        raise OptionError(f"plug-in name: expected text, got {shown(name)}")
    module, colon, part = name.rpartition(":") if ":" in name else (name, "", "")
    if colon and part not in PARTS and is_network_file(name):
        module, colon, part = name, "", ""  # a path with a colon in it (C:\nets\g1.kbnet)
    if is_network_file(module):
        if len(module) > PATH_CHARS or not module.isprintable():
            raise OptionError(f"plug-in {shown(name, NAME_CHARS)}: a network file's path is printable text of at most {PATH_CHARS} characters")
    elif not MODULE_NAME.fullmatch(module):
        raise OptionError(
            f"plug-in {shown(name, NAME_CHARS)}: not a module name; a plug-in is named by its module, Python identifiers "
            f"joined by dots (kibitz.plugins.yak, my_package.my_policy), or is a network file (a path ending in {NETWORK_SUFFIX}), "
            "optionally with :choose or :evaluate"
        )
    if colon and part not in PARTS:
        raise OptionError(f"plug-in {shown(name, NAME_CHARS)}: a part is one of {', '.join(PARTS)}, got {shown(part)}")
    return module, part if colon else None


def is_network_file(name: str) -> bool:
    """Whether plug-in ``name`` (maybe with ``:part``) names a trained network's file rather than a module."""
    if not isinstance(name, str):
        return False
    path, _, part = name.rpartition(":")
    return (path if part in PARTS else name).endswith(NETWORK_SUFFIX)


def allow(*names: str) -> None:
    """Allows plug-in modules by name, besides the shipped examples and the modules registered
    in the entry-point group ``kibitz.plugins``: from now on :func:`load_allowed` (bot specs,
    the protocol's ``Plugin`` option, ``kibitz serve``) loads them in this process. What the
    engine's and the server's ``--allow-plugin MODULE`` call. A network file's path may be
    allowed too, which only ``kibitz serve`` asks for (:func:`allowed_by_hand`). Raises
    OptionError for a name that is neither; nothing is imported or opened here."""
    modules = [split_name(name)[0] for name in names]
    _allowed.update(os.path.abspath(m) if is_network_file(m) else m for m in modules)


def allowed() -> list[str]:
    """Every module a bot spec or an option may name as a plug-in here (:func:`is_allowed`): the
    shipped examples, the modules the ``kibitz.plugins`` entry points name, and those :func:`allow`
    added (with the network files it was given)."""
    return sorted({*examples(), *_entry_point_modules(), *_allowed})


def allowed_by_hand() -> list[str]:
    """The modules and network files :func:`allow` added in this process (what a worker process
    is given to allow the same plug-ins)."""
    return sorted(_allowed)


def is_allowed_by_hand(name: str) -> bool:
    """Whether :func:`allow` named plug-in ``name``'s module or network file (by its absolute
    path) in this process: what ``kibitz serve`` asks of a network file (docs/learning.md)."""
    module = split_name(name)[0]
    return (os.path.abspath(module) if is_network_file(module) else module) in _allowed


def is_allowed(name: str) -> bool:
    """Whether plug-in ``name`` (a module or a network file, maybe with ``:part``) may be loaded
    from a bot spec or an option: a network file always (it is data, read and checked whole by
    the C++ reader before a search uses it; no code runs), a module if :func:`allowed` lists it.
    Raises OptionError for text that is not a plug-in name."""
    module = split_name(name)[0]
    return is_network_file(module) or module in _allowed or module in examples() or module in _entry_point_modules()


def load_allowed(name: str) -> Plugin:
    """The plug-in a text from outside names (a bot spec's ``plugin=``, the protocol's
    ``Plugin`` option, a web request): :func:`load` once :func:`is_allowed` says yes. Raises
    OptionError naming the plug-in, and saying how to allow it, for a module that is not allowed;
    nothing is imported then."""
    if not is_allowed(name):
        module = split_name(name)[0]
        raise OptionError(
            f"plug-in {shown(name, NAME_CHARS)} is not allowed: allow it with {ALLOW_FLAG} {module} (kibitz engine, kibitz serve, "
            f'the commands that take bot specs) or kibitz.plugins.allow("{module}") in Python. Allowed without that: the plug-ins '
            f"shipped with kibitz ({', '.join(examples()) or 'none installed'}), modules registered in the entry-point group "
            f"{ENTRY_POINT_GROUP}, and network files ({NETWORK_SUFFIX})"
        )
    return load(name)


def _entry_point_modules() -> set[str]:
    """The modules the installed packages register in the entry-point group ``kibitz.plugins``
    (an entry point's value is ``module`` or ``module:attribute``; the module is what is allowed)."""
    return {entry.value.partition(":")[0].strip() for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def from_python(
    choose: ChooseFunction | None = None, evaluate: EvaluateFunction | None = None, *, name: str = "python", game: str | None = None
) -> Plugin:
    """A plug-in made of plain Python callables (at least one of the two).

    ``choose(observation, legal_mask, seat, random)`` gets seat's observation tensor (float32),
    the legal-action mask (bool, ``max_actions`` entries), the seat and a random integer in
    [0, 2^63) drawn from the search's seed (63 bits: it fits numpy's int64); it returns a legal
    action id. ``evaluate(observation, seat,
    players)`` returns ``players`` numbers in [0, 1], the reward of each relative seat (block
    k of the tensor: seat ``(seat + k) % players``). The arrays are fresh copies.

    Each call takes the GIL: the callables may run on any search thread, one at a time, and
    must not rely on which. An exception they raise stops the search with
    :class:`kibitz.PluginError` carrying its text. ``game``: the game they are written for
    (the search refuses any other); None: any."""
    if choose is None and evaluate is None:
        raise OptionError("from_python: give choose, evaluate or both")
    wrapper = _core.PythonPlugin(choose, evaluate, name, game)
    return Plugin(wrapper.capsule(), wrapper, f"Python callables {name!r}")


def get_include() -> str:
    """The folder holding ``kibitz_plugin.h`` and ``kibitz_plugin.pxd``: put it on Cython's
    include path and the C compiler's to build a plug-in (docs/plugins.md)."""
    folder = Path(_core.__file__).parent / "plugins" / "include"
    if not (folder / "kibitz_plugin.h").is_file():
        raise OptionError(f"the plug-in headers are not installed in {folder}; reinstall kibitz")
    return str(folder)


def examples() -> list[str]:
    """The module names of the example plug-ins installed with kibitz, one per game that has one."""
    folder = Path(_core.__file__).parent / "plugins"
    if not folder.is_dir():
        return []
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(f"kibitz.plugins.{p.name.split('.')[0]}" for p in folder.iterdir() if p.name.endswith(suffixes))
