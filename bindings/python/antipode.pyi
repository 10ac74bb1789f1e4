"""Exhaustive state-space analysis of puzzles: ranking, depth tables, analyses.

Type stubs of the compiled module (bindings/python/src/lib.rs)."""

from os import PathLike
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

class Error(Exception):
    """An error of the antipode library (its one-line message)."""

class BadPosition(Error):
    """A position that is malformed or unsolvable."""

class TableMismatch(Error):
    """A table of another puzzle, or no puzzle by that name."""

class CorruptFile(Error):
    """A table file that cannot be read: truncated, incomplete, a bad checksum."""

class Puzzle:
    """A puzzle: its ranking, positions and moves."""

    @property
    def name(self) -> str: ...
    @property
    def index_count(self) -> int: ...
    def rank(self, position: str) -> int: ...
    def unrank(self, index: int) -> str: ...
    def parse(self, text: str) -> str: ...
    def format(self, text: str) -> str: ...
    def neighbours(self, position: str) -> list[tuple[str, str]]: ...
    def rank_many(self, positions: Sequence[str]) -> npt.NDArray[np.uint64]: ...
    def unrank_many(self, indices: Union[Sequence[int], npt.NDArray[np.uint64]]) -> list[str]: ...

def puzzle(name: str) -> Puzzle:
    """The puzzle `name` names (`antipode list`), or a description file's path."""

class Table:
    """A depth table, mapped (opening it reads the header only)."""

    @staticmethod
    def open(path: Union[str, PathLike[str]], verify: bool = False) -> Table: ...
    @property
    def puzzle(self) -> Puzzle: ...
    def distance(self, position: str) -> int: ...
    def distances(
        self, positions: Union[npt.NDArray[np.uint64], Sequence[str]]
    ) -> npt.NDArray[np.uint32]: ...
    @property
    def histogram(self) -> npt.NDArray[np.uint64]: ...
    @property
    def header(self) -> dict[str, Any]: ...
    @property
    def entries(self) -> npt.NDArray[np.uint8]: ...
    def solve(self, position: str) -> list[str]: ...

def analyze(
    name: str,
    table: Optional[Union[str, PathLike[str]]] = None,
    bits: int = 8,
    threads: Optional[int] = None,
) -> dict[str, Any]:
    """Analyzes the puzzle `name`: gods_number, antipodes, antipode_count, reachable,
    indices, histogram (numpy)."""
