"""The engine session the transcript scripts of docs/protocol.md print: every line sent
(``> ...``) and every line the in-process engine answers, in order."""

from __future__ import annotations

from kibitz.protocol import Engine


class Transcript:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.engine = Engine(self.lines.append)

    def send(self, line: str) -> None:
        """Sends one line and waits until the engine has answered it (a `go` included)."""
        self.lines.append(f"> {line}")
        self.engine.handle(line)
        self.engine.wait()

    @property
    def last(self) -> str:
        """The last line written: after a `go`, its `bestmove` line."""
        return self.lines[-1]

    def __str__(self) -> str:
        return "\n".join(self.lines)
