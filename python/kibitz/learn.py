"""A learned evaluator: a small residual MLP over a seat's observation tensor, trained from
self-play data (:mod:`kibitz.selfplay`) and evaluated inside the C++ search.

The network (the same in numpy here and in C++, ``csrc/learn/network.h``)::

    h = relu(x W_in + b_in)
    h = relu(h + relu(h W_1 + b_1) W_2 + b_2)      once per residual block
    values = sigmoid(h W_v + b_v)                  each relative seat's expected reward, in [0, 1]
    logits = h W_p + b_p                           the policy: softmax over the legal action ids

It is trained here with numpy alone (a hand-written backward pass and Adam, checked against
finite differences in the tests), written to a versioned network file (:meth:`Network.save`,
docs/learning.md), and read by the C++ core, which plugs it into the search through the plug-in
hooks: its value head scores the position where a rollout stops (``eval_depth``), its policy
head can play the rollouts. In a bot spec: ``ismcts:plugin=net.kbnet:evaluate,eval_depth=0``.

>>> import numpy as np
>>> net = Network.initial(Architecture("just4fun_colours", players=2, inputs=215, actions=37, hidden=16, blocks=1), seed=0)
>>> values, logits = net.forward(np.zeros((1, 215), dtype=np.float32))
>>> values.shape, logits.shape
((1, 2), (1, 37))
"""

from __future__ import annotations

import json
import math
import os
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kibitz import _core
from kibitz.errors import OptionError, UnknownGameError
from kibitz.game import Game

NETWORK_FORMAT: int = _core.NETWORK_FORMAT
"""The network file format this kibitz writes and reads."""
MAGIC = b"KIBITZNN"

Array = npt.NDArray[Any]
Layers = list[tuple[Array, Array]]
"""Each layer's (W, b) in file order: the first layer, two per residual block, value, policy."""


@dataclass(frozen=True)
class Architecture:
    """The shape of a network, as its file's header gives it."""

    game: str
    players: int
    inputs: int
    actions: int
    hidden: int = 64
    blocks: int = 1

    def layer_shapes(self) -> list[tuple[int, int]]:
        """(inputs, outputs) of each layer in file order."""
        h = self.hidden
        return [(self.inputs, h), *[(h, h)] * (2 * self.blocks), (h, self.players), (h, self.actions)]

    @classmethod
    def of_game(cls, game: Game, hidden: int = 64, blocks: int = 1) -> Architecture:
        """The shape for ``game`` (its players, observation size and action ids)."""
        return cls(game.name, game.num_players, game.metadata.observation_size, game.metadata.max_actions, hidden, blocks)


class Network:
    """A network's weights (numpy float32) and its forward pass; see the module docstring."""

    def __init__(self, architecture: Architecture, layers: Layers) -> None:
        shapes = architecture.layer_shapes()
        if len(layers) != len(shapes) or any(w.shape != s or b.shape != (s[1],) for (w, b), s in zip(layers, shapes)):
            raise OptionError(f"the layers do not have the shapes of {architecture}")
        self.architecture = architecture
        self.layers: Layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]

    @classmethod
    def initial(cls, architecture: Architecture, seed: int = 0) -> Network:
        """Random weights from ``seed``: He initialisation for the ReLU layers, the second layer of
        each block and the heads scaled down, so that the trunk starts near the identity."""
        rng = np.random.default_rng(seed)
        layers: Layers = []
        for index, (n_in, n_out) in enumerate(architecture.layer_shapes()):
            scale = math.sqrt(2.0 / n_in)
            if index > 0 and (index % 2 == 0 or index > 2 * architecture.blocks):
                scale *= 0.1  # a block's second layer, and the two heads
            layers.append((rng.normal(0.0, scale, (n_in, n_out)).astype(np.float32), np.zeros(n_out, np.float32)))
        return cls(architecture, layers)

    def __repr__(self) -> str:
        a = self.architecture
        return f"Network({a.game!r}, players={a.players}, inputs={a.inputs}, actions={a.actions}, hidden={a.hidden}, blocks={a.blocks})"

    @property
    def parameters(self) -> int:
        return sum(w.size + b.size for w, b in self.layers)

    def forward(self, observations: npt.ArrayLike) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """(values, logits) of a batch of observations (batch × inputs), in float32 as C++ computes them."""
        x = np.asarray(observations, dtype=np.float32)
        h = _trunk(self.layers, x, self.architecture.blocks)[-1]
        (wv, bv), (wp, bp) = self.layers[-2:]
        return _sigmoid(h @ wv + bv), h @ wp + bp

    # -- the file --------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The network file's bytes (docs/learning.md, "The network file")."""
        a = self.architecture
        name = a.game.encode()
        header = MAGIC + struct.pack("<II", NETWORK_FORMAT, len(name)) + name
        header += struct.pack("<5IQ", a.players, a.inputs, a.actions, a.hidden, a.blocks, self.parameters)
        body = b"".join(np.ascontiguousarray(p, dtype="<f4").tobytes() for layer in self.layers for p in layer)
        content = header + body
        return content + struct.pack("<I", zlib.crc32(content))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Writes the network file (whole or not at all: a reader never sees half of it)."""
        target = Path(path)
        temporary = target.with_name(target.name + ".tmp")
        temporary.write_bytes(self.to_bytes())
        temporary.replace(target)
        return target

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Network:
        """Reads a network file with the C++ reader the search uses; raises OptionError naming
        what is wrong (not a network file, another format, truncated, corrupt, a game or tensor
        size this kibitz does not have)."""
        core = _core.Network.read(os.fspath(path))
        check_fits(core, os.fspath(path))
        a = Architecture(core.game, core.players, core.inputs, core.actions, core.hidden, core.blocks)
        return cls(a, [(np.asarray(w), np.asarray(b)) for w, b in core.weights()])


def check_fits(core: Any, label: str) -> None:
    """Refuses (OptionError) a network read from ``label`` whose game kibitz does not have, or
    whose inputs or actions are not that game's observation size and action ids."""
    try:
        game = Game(core.game)
    except UnknownGameError as err:
        raise UnknownGameError(f"network file {label}: it was trained for an {err}") from None
    meta = game.metadata
    if core.inputs != meta.observation_size:
        raise OptionError(
            f"network file {label}: it takes {core.inputs} inputs, but {core.game}'s observation tensor has {meta.observation_size}"
        )
    if core.actions != meta.max_actions:
        raise OptionError(
            f"network file {label}: its policy has {core.actions} actions, but {core.game} has {meta.max_actions} action ids"
        )
    info = _core.find_game(core.game)
    if not info.min_players <= core.players <= info.max_players:
        raise OptionError(
            f"network file {label}: it is for {core.players} players; {core.game} has {info.min_players} to {info.max_players}"
        )


# -- the forward and backward pass ---------------------------------------------------------


def _sigmoid(z: Array) -> Array:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # exact, and never overflows


def _trunk(layers: Layers, x: Array, blocks: int) -> list[Array]:
    """The trunk's activations: [pre-activation of layer 0, h0, then per block u, t, a, h]."""
    w, b = layers[0]
    a0 = x @ w + b
    acts = [a0, np.maximum(a0, 0)]
    for k in range(blocks):
        (w1, b1), (w2, b2) = layers[1 + 2 * k], layers[2 + 2 * k]
        h = acts[-1]
        u = h @ w1 + b1
        t = np.maximum(u, 0)
        a = h + t @ w2 + b2
        acts += [u, t, a, np.maximum(a, 0)]
    return acts


@dataclass
class Batch:
    """Training samples: ``x`` observations; ``value`` each relative seat's target in [0, 1];
    the policy targets for the rows in ``policy_rows`` (indices into x): ``policy`` (a
    distribution over the action ids) and ``legal`` (the mask)."""

    x: Array
    value: Array
    policy_rows: Array
    policy: Array
    legal: Array

    def __len__(self) -> int:
        return len(self.x)


def loss_and_gradients(layers: Layers, blocks: int, batch: Batch, policy_weight: float = 1.0) -> tuple[float, float, Layers]:
    """The value loss (binary cross-entropy of each seat's sigmoid output against its target,
    averaged over rows and seats), the policy loss (cross-entropy of the softmax over the legal
    ids against the target distribution, averaged over the rows that have one) and the gradient
    of ``value + policy_weight * policy`` for every (W, b), in file order."""
    acts = _trunk(layers, batch.x, blocks)
    h = acts[-1]
    (wv, bv), (wp, bp) = layers[-2:]
    grads: list[tuple[Array, Array]] = [(np.zeros(0), np.zeros(0))] * len(layers)
    # Value head.
    zv = h @ wv + bv
    value_loss = float(np.mean(np.logaddexp(0, zv) - batch.value * zv))
    dzv = (_sigmoid(zv) - batch.value) / zv.size
    grads[-2] = (h.T @ dzv, dzv.sum(0))
    dh = dzv @ wv.T
    # Policy head, on the rows that have a target.
    rows, count = batch.policy_rows, max(len(batch.policy_rows), 1)
    hp = h[rows]
    zp = np.where(batch.legal, hp @ wp + bp, -np.inf)
    log_p = np.where(batch.legal, zp - np.logaddexp.reduce(zp, axis=1, keepdims=True), 0)
    policy_loss = float(-np.sum(batch.policy * log_p) / count)
    dzp = np.where(batch.legal, np.exp(log_p) - batch.policy, 0) * (policy_weight / count)
    grads[-1] = (hp.T @ dzp, dzp.sum(0))
    np.add.at(dh, rows, dzp @ wp.T)
    # The residual blocks, last first, then the first layer.
    for k in reversed(range(blocks)):
        h_in, u, t, a = acts[4 * k + 1 : 4 * k + 5]
        (w1, _), (w2, _) = layers[1 + 2 * k], layers[2 + 2 * k]
        da = dh * (a > 0)
        du = (da @ w2.T) * (u > 0)
        grads[2 + 2 * k] = (t.T @ da, da.sum(0))
        grads[1 + 2 * k] = (h_in.T @ du, du.sum(0))
        dh = da + du @ w1.T
    da0 = dh * (acts[0] > 0)
    grads[0] = (batch.x.T @ da0, da0.sum(0))
    return value_loss, policy_loss, grads


# -- training --------------------------------------------------------------------------------


@dataclass
class Samples:
    """Training samples from self-play data: one per decision and seat. ``x`` is that seat's
    observation tensor, ``value`` each relative seat's target (seat ``(s + k) % players``: the
    game's returns, the deciding seat's own entry mixed with the distilled value where asked),
    ``game`` the game it came from. The deciding seat's sample of each decision also carries
    the policy target: ``policy_rows`` (indices into ``x``), ``policy`` and ``legal``."""

    x: Array
    value: Array
    game: Array
    policy_rows: Array
    policy: Array
    legal: Array

    def __len__(self) -> int:
        return len(self.x)

    @classmethod
    def of(cls, data: Any, value_mix: float = 0.0, perfect: bool = True) -> Samples:
        """The samples of a :class:`kibitz.selfplay.SelfPlayData`. ``value_mix`` in [0, 1]: the
        share of the deciding seat's value target taken from the value with every hand known
        (``perfect_value``; ``perfect=False``: from the deciding search's own root value),
        where the data have one; the rest is the game's return."""
        if not 0 <= value_mix <= 1:
            raise OptionError(f"value_mix must be in [0, 1], got {value_mix}")
        n, decisions = data.players, len(data)
        obs, returns, seat = data.observations, data.returns, data.seat.astype(np.int64)
        owner = np.repeat(np.arange(n)[None, :], decisions, axis=0)  # the seat whose tensor each sample is
        relative = (owner[:, :, None] + np.arange(n)[None, None, :]) % n
        value = np.take_along_axis(returns[:, None, :].repeat(n, axis=1), relative, axis=2)
        if value_mix > 0:
            distilled = data.perfect_value if perfect else data.search_value
            has = np.isfinite(distilled)
            if not has.any():
                raise OptionError(f"value_mix {value_mix}: the data have no {'perfect_value' if perfect else 'search_value'}")
            own = value[np.arange(decisions), seat, 0]
            value[np.arange(decisions), seat, 0] = np.where(
                has, (1 - value_mix) * own + value_mix * np.nan_to_num(distilled), own
            )
        return cls(
            x=obs.reshape(decisions * n, -1).astype(np.float32),
            value=value.reshape(decisions * n, n).astype(np.float32),
            game=np.repeat(data.game, n),
            policy_rows=np.arange(decisions) * n + seat,
            policy=data.policy.astype(np.float32),
            legal=data.legal.astype(bool),
        )

    @classmethod
    def distilled(cls, data: Any, perfect: bool = True) -> Samples:
        """The samples of the decisions of a :class:`kibitz.selfplay.SelfPlayData` that have the
        distilled value (``perfect_value``; ``perfect=False``: the deciding search's root value
        ``search_value``), one per decision: the deciding seat's tensor, and every target from
        that value ``v``: ``v`` for the seats of the decider's team, ``(1 - v) / t`` for each seat
        of the ``t`` other teams. Every sample has a label of its own, where the returns give one
        per game (docs/research-log/learning.md: in tile Canasta the returns let the network
        learn the rounds by heart)."""
        value = data.perfect_value if perfect else data.search_value
        rows = np.flatnonzero(np.isfinite(value))
        if not len(rows):
            raise OptionError(f"distilled samples: the data have no {'perfect_value' if perfect else 'search_value'}")
        n, seat = data.players, data.seat[rows].astype(np.int64)
        teams = np.asarray(Game(data.game_name, players=n).teams)
        same = teams[(seat[:, None] + np.arange(n)[None, :]) % n] == teams[seat][:, None]  # by relative seat
        v = value[rows].astype(np.float64)[:, None]
        others = len(set(teams.tolist())) - 1
        return cls(
            x=data.observations[rows, seat].astype(np.float32),
            value=np.where(same, v, (1 - v) / max(others, 1)).astype(np.float32),
            game=data.game[rows],
            policy_rows=np.arange(len(rows)),
            policy=data.policy[rows].astype(np.float32),
            legal=data.legal[rows].astype(bool),
        )

    def split(self, validation: float, seed: int) -> tuple[Samples, Samples]:
        """(training, validation): whole games drawn for validation (a ``validation`` share of
        them, at least one when there are two or more), so that no game is on both sides."""
        games = np.unique(self.game)
        rng = np.random.default_rng(seed)
        held = min(max(round(validation * len(games)), 1 if validation > 0 and len(games) > 1 else 0), len(games) - 1)
        chosen = np.isin(self.game, rng.permutation(games)[:held])
        return self.subset(np.flatnonzero(~chosen)), self.subset(np.flatnonzero(chosen))

    def subset(self, rows: Array) -> Samples:
        """The samples at ``rows``, with the policy targets of those among them that have one."""
        b = self.batch(rows)
        return Samples(b.x, b.value, self.game[rows], b.policy_rows, b.policy, b.legal)

    def batch(self, rows: Array) -> Batch:
        """The samples at ``rows`` as a :class:`Batch`."""
        position = np.full(len(self), -1)
        position[rows] = np.arange(len(rows))
        keep = position[self.policy_rows] >= 0
        return Batch(self.x[rows], self.value[rows], position[self.policy_rows[keep]], self.policy[keep], self.legal[keep])


@dataclass(frozen=True)
class TrainSettings:
    """How :func:`train` trains: the shape of a network trained from scratch (``hidden``,
    ``blocks``), Adam's step size and decoupled weight decay (Loshchilov & Hutter 2019; on the
    weights, not the biases), batches, epochs, the validation share, early stopping
    (``patience`` epochs without a better validation loss; the best epoch's weights are kept),
    the policy loss's weight, and the value mix with the value it distils, ``perfect`` or
    ``search`` (:meth:`Samples.of`). The defaults are those that generalised best on 3,000
    games of two-player Just 4 Fun Colours (docs/research-log/learning.md)."""

    hidden: int = 64
    blocks: int = 1
    epochs: int = 20
    batch: int = 256
    learning_rate: float = 1e-3
    weight_decay: float = 1e-3
    validation: float = 0.1
    patience: int = 5
    policy_weight: float = 1.0
    value_mix: float = 0.0
    distill: str = "perfect"
    distilled_only: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("hidden", "epochs", "batch", "patience"):
            if getattr(self, name) < 1:
                raise OptionError(f"{name} must be at least 1, got {getattr(self, name)}")
        if (
            self.blocks < 0
            or not 0 <= self.validation < 1
            or self.learning_rate <= 0
            or self.weight_decay < 0
            or self.policy_weight < 0
        ):
            raise OptionError(
                "blocks >= 0, 0 <= validation < 1, learning_rate > 0, weight_decay >= 0 and policy_weight >= 0 are needed"
            )
        if self.distill not in ("perfect", "search"):
            raise OptionError(f"distill is perfect or search, got {self.distill!r}")


@dataclass
class Epoch:
    """One epoch's losses: training (averaged over its batches) and validation (None without a validation set)."""

    epoch: int
    train_value: float
    train_policy: float
    validation_value: float | None
    validation_policy: float | None
    seconds: float


@dataclass
class TrainResult:
    """The trained network (the best epoch's weights), every epoch's losses, the epoch kept,
    the sample counts and the CPU seconds the training took."""

    network: Network
    history: list[Epoch]
    best_epoch: int
    train_samples: int
    validation_samples: int
    cpu_seconds: float
    settings: TrainSettings = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "network": repr(self.network),
            "parameters": self.network.parameters,
            "best_epoch": self.best_epoch,
            "train_samples": self.train_samples,
            "validation_samples": self.validation_samples,
            "cpu_seconds": round(self.cpu_seconds, 2),
            "settings": asdict(self.settings),
            "history": [asdict(e) for e in self.history],
        }


class Adam:
    """Adam (Kingma & Ba 2015) with decoupled weight decay on the weight matrices."""

    def __init__(
        self, layers: Layers, learning_rate: float, weight_decay: float, beta1: float = 0.9, beta2: float = 0.999
    ) -> None:
        self.rate, self.decay, self.beta1, self.beta2 = learning_rate, weight_decay, beta1, beta2
        self.m = [np.zeros_like(p) for layer in layers for p in layer]
        self.v = [np.zeros_like(p) for layer in layers for p in layer]
        self.steps = 0

    def step(self, layers: Layers, grads: Layers) -> None:
        """One update of every (W, b) in place from its gradient."""
        self.steps += 1
        correction1, correction2 = 1 - self.beta1**self.steps, 1 - self.beta2**self.steps
        k = 0
        for (w, b), (g_w, g_b) in zip(layers, grads):
            for param, g, decay in ((w, g_w, self.decay), (b, g_b, 0.0)):
                self.m[k] = self.beta1 * self.m[k] + (1 - self.beta1) * g
                self.v[k] = self.beta2 * self.v[k] + (1 - self.beta2) * g * g
                update = self.rate * ((self.m[k] / correction1) / (np.sqrt(self.v[k] / correction2) + 1e-8) + decay * param)
                param -= update.astype(param.dtype)
                k += 1


def evaluate_losses(network: Network, samples: Samples, batch: int = 4096) -> tuple[float, float]:
    """The value and policy losses of ``network`` on ``samples`` (as training measures them)."""
    value = policy = 0.0
    policy_rows = 0
    for start in range(0, len(samples), batch):
        rows = np.arange(start, min(start + batch, len(samples)))
        b = samples.batch(rows)
        v, p, _ = loss_and_gradients(network.layers, network.architecture.blocks, b)
        value += v * len(rows)
        policy += p * len(b.policy_rows)
        policy_rows += len(b.policy_rows)
    return value / max(len(samples), 1), policy / max(policy_rows, 1)


def train(
    data: Any,
    settings: TrainSettings = TrainSettings(),
    *,
    initial: Network | None = None,
    on_epoch: Callable[[Epoch], None] | None = None,
) -> TrainResult:
    """Trains a network on self-play data (:func:`kibitz.selfplay.load_data`), or on
    :class:`Samples` from ``initial``: minibatch Adam on the value loss plus ``policy_weight`` times the policy
    loss, whole games held out for validation, the weights of the epoch with the best
    validation loss kept. ``initial``: start from these weights (the previous generation's)
    instead of random ones. Reproducible: every random choice comes from ``settings.seed``."""
    start = time.process_time()
    perfect = settings.distill == "perfect"
    if isinstance(data, Samples):
        samples = data
    else:
        samples = Samples.distilled(data, perfect) if settings.distilled_only else Samples.of(data, settings.value_mix, perfect)
    if initial is None:
        if isinstance(data, Samples):
            raise OptionError("training on Samples needs the initial network (its game and shape)")
        shape = Architecture(
            data.game_name, data.players, samples.x.shape[1], samples.legal.shape[1], settings.hidden, settings.blocks
        )
        initial = Network.initial(shape, settings.seed)
    architecture = initial.architecture
    got = (samples.x.shape[1], samples.value.shape[1], samples.legal.shape[1])
    if got != (architecture.inputs, architecture.players, architecture.actions) or (
        not isinstance(data, Samples) and data.game_name != architecture.game
    ):
        raise OptionError(f"the data (inputs, players, actions {got}) do not fit {initial!r}")
    network = Network(architecture, [(w.copy(), b.copy()) for w, b in initial.layers])
    training, validation = samples.split(settings.validation, settings.seed)
    if len(training) == 0:
        raise OptionError("no training samples (every game went to validation)")
    optimiser = Adam(network.layers, settings.learning_rate, settings.weight_decay)
    rng = np.random.default_rng(settings.seed + 1)
    history: list[Epoch] = []
    best: tuple[float, int, Layers] | None = None
    for epoch in range(1, settings.epochs + 1):
        began = time.perf_counter()
        order = rng.permutation(len(training))
        value = policy = 0.0
        for first in range(0, len(order), settings.batch):
            batch = training.batch(order[first : first + settings.batch])
            v, p, grads = loss_and_gradients(network.layers, architecture.blocks, batch, settings.policy_weight)
            optimiser.step(network.layers, grads)
            value, policy = value + v * len(batch), policy + p * len(batch)
        held = evaluate_losses(network, validation) if len(validation) else None
        record = Epoch(
            epoch,
            value / len(training),
            policy / len(training),
            held[0] if held else None,
            held[1] if held else None,
            time.perf_counter() - began,
        )
        history.append(record)
        if on_epoch is not None:
            on_epoch(record)
        score = (
            (held[0] + settings.policy_weight * held[1])
            if held
            else record.train_value + settings.policy_weight * record.train_policy
        )
        if best is None or score < best[0]:
            best = (score, epoch, [(w.copy(), b.copy()) for w, b in network.layers])
        elif epoch - best[1] >= settings.patience:
            break
    assert best is not None
    kept = Network(architecture, best[2])
    return TrainResult(kept, history, best[1], len(training), len(validation), time.process_time() - start, settings)


def plot_history(result: TrainResult, path: str | os.PathLike[str] | None = None) -> Any:
    """The learning curves: value and policy loss per epoch, training and validation, the epoch
    kept marked. Needs matplotlib (``pip install 'kibitz[plot]'``); returns the Figure."""
    from kibitz.plots import _pyplot

    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(10, 4))
    epochs = [e.epoch for e in result.history]
    for ax, (name, train_of, held_of) in zip(
        axes,
        [
            ("value loss (cross-entropy)", lambda e: e.train_value, lambda e: e.validation_value),
            ("policy loss (cross-entropy)", lambda e: e.train_policy, lambda e: e.validation_policy),
        ],
    ):
        ax.plot(epochs, [train_of(e) for e in result.history], "o-", label="training")
        held = [held_of(e) for e in result.history]
        if all(h is not None for h in held):
            ax.plot(epochs, held, "s-", label="validation")
        ax.axvline(result.best_epoch, color="grey", linestyle="--", label=f"kept (epoch {result.best_epoch})")
        ax.set_xlabel("epoch")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_title(name)
        ax.legend(loc="best")
    a = result.network.architecture
    figure.suptitle(
        f"{a.game}, hidden {a.hidden}, {a.blocks} blocks: {result.train_samples} training, {result.validation_samples} validation samples"
    )
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=100)
    return figure


def write_history(result: TrainResult, path: str | os.PathLike[str]) -> None:
    """The training's settings, counts and losses as JSON."""
    Path(path).write_text(json.dumps(result.to_dict(), indent=1) + "\n")
