"""The commands' arguments, validated (pydantic): loaded with the first command, not at
start-up."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from sparkls.context.builder import DiagnosticInfo
from sparkls.documents.positions import Position
from sparkls.errors import EditError, SparkError

Argument = TypeVar("Argument", bound=BaseModel)


class _Pos(BaseModel):
    line: int
    character: int


class _Range(BaseModel):
    start: _Pos
    end: _Pos


class _Diagnostic(BaseModel):
    range: _Range
    message: str
    source: str | None = None
    code: int | str | None = None


class EditArgs(BaseModel):
    """The `sparkls.edit` argument; `diagnostics` is set by quick fixes."""

    model_config = ConfigDict(extra="ignore")
    uri: str
    range: _Range
    instruction: str
    diagnostics: list[_Diagnostic] = []

    @property
    def start(self) -> Position:
        return Position(self.range.start.line, self.range.start.character)

    @property
    def end(self) -> Position:
        return Position(self.range.end.line, self.range.end.character)

    def diagnostic_infos(self) -> list[DiagnosticInfo]:
        return [
            DiagnosticInfo(
                line=d.range.start.line,
                message=d.message,
                source=d.source,
                code=None if d.code is None else str(d.code),
            )
            for d in self.diagnostics
        ]


class RefineArgs(BaseModel):
    """The `sparkls.refine` argument; with `range`, the instruction is the `spark:`
    comment there (the refine removes it)."""

    model_config = ConfigDict(extra="ignore")
    uri: str
    instruction: str
    range: _Range | None = None


class TaskArgs(BaseModel):
    """The `sparkls.task` argument."""

    model_config = ConfigDict(extra="ignore")
    instruction: str
    uris: list[str] = []
    range: _Range | None = None

    @property
    def start(self) -> Position | None:
        return Position(self.range.start.line, self.range.start.character) if self.range else None

    @property
    def end(self) -> Position | None:
        return Position(self.range.end.line, self.range.end.character) if self.range else None


def one_argument(command: str, args: tuple[Any, ...], model: type[Argument], shape: str) -> Argument:
    """A command's single argument, validated; a `SparkError` naming what is wrong."""
    if len(args) != 1:
        raise SparkError(f"{command} takes one argument {{{shape}}}, got {len(args)}.")
    try:
        return model.model_validate(args[0])
    except ValidationError as exc:
        first = exc.errors()[0]
        raise SparkError(f"{command}: invalid argument: {first['loc']} {first['msg']}") from exc


def uri_argument(command: str, args: tuple[Any, ...]) -> str:
    """The one `{"uri": ...}` argument of `command` (EditError otherwise)."""
    if len(args) != 1 or not isinstance(args[0], dict) or not isinstance(args[0].get("uri"), str):
        raise EditError(f'{command} takes one argument, {{"uri": ...}}.')
    return args[0]["uri"]
