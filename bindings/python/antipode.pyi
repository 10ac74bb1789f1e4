"""Exhaustive state-space analysis of puzzles: ranking, depth tables, analyses.

Type stubs of the compiled module (bindings/python/src/lib.rs)."""

from os import PathLike
from types import TracebackType
from typing import Any, Callable, Optional, Sequence, Union, final

from typing_extensions import Self

import numpy as np
import numpy.typing as npt

__all__ = [
    "FileNotFound",
    "puzzle",
    "analyze",
    "Puzzle",
    "Table",
    "Partition",
    "Error",
    "BadPosition",
    "TableMismatch",
    "CorruptFile",
]

class Error(Exception):
    """An error of the antipode library (its one-line message)."""

class BadPosition(Error):
    """A position that is malformed or unsolvable."""

class TableMismatch(Error):
    """A table of another puzzle, or no puzzle by that name."""

class CorruptFile(Error):
    """A table file that cannot be read: truncated, incomplete, a bad checksum."""

class FileNotFound(Error, FileNotFoundError):
    """A table file that does not exist: an antipode.Error and a FileNotFoundError."""

@final
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

@final
class Table:
    """A depth table, mapped (opening it reads the header only)."""

    @staticmethod
    def open(
        path: Union[str, PathLike[str]],
        puzzle: Optional[str] = None,
        verify: bool = True,
    ) -> Table:
        """Opens the table at `path` (its puzzle from its header, which must be
        `puzzle` when given). Answers are read from checked bytes only: a table of
        format 3 checks each 1 MiB block the first time an answer reads it (a
        damaged block raises CorruptFile); an older table is checked whole at open,
        unless `verify=False`."""
    @property
    def puzzle(self) -> Puzzle: ...
    def distance(self, position: str) -> int: ...
    def distances(
        self, positions: Union[npt.ArrayLike, Sequence[str]]
    ) -> npt.NDArray[np.uint32]:
        """Distances of indices (any integer array-like) or position texts; 2**32 - 1
        for unreached states. One read each on an 8-bit table; a descent to the goal
        each on a 2-bit table (a million take seconds). A damaged table raises
        CorruptFile, an inconsistent one Error."""
    @property
    def histogram(self) -> npt.NDArray[np.uint64]: ...
    @property
    def header(self) -> dict[str, Any]: ...
    @property
    def entries(self) -> npt.NDArray[np.uint8]: ...
    def solve(self, position: str) -> list[str]: ...
    def close(self) -> None:
        """Ends the table's use: later calls raise ValueError."""
    def __enter__(self) -> Self: ...
    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...

@final
class Partition:
    """The pattern databases of a partition of a sliding board's tiles (`7-8` for the
    15-puzzle): the admissible estimate `antipode solve --pdb` searches with."""

    @staticmethod
    def open(
        board: str,
        sizes: str,
        goal: Optional[str] = None,
        dir: Union[str, PathLike[str]] = "tables",
    ) -> Partition:
        """Opens the databases in `dir`, building the missing ones first."""
    @property
    def goal(self) -> bytes: ...
    def cells(self, position: str) -> bytes: ...
    def estimate(self, position: Union[str, Sequence[int], bytes]) -> int:
        """A lower bound on the distance: a position's text or its cells (row by
        row, 0 the blank)."""

def analyze(
    name: str,
    table: Optional[Union[str, PathLike[str]]] = None,
    bits: int = 8,
    threads: Optional[int] = None,
    progress: Optional[Callable[[dict[str, Any]], None]] = None,
    *,
    symmetry: bool = False,
    start: Optional[str] = None,
    goal: Optional[str] = None,
    metric: Optional[str] = None,
) -> dict[str, Any]:
    """Analyzes the puzzle `name`: gods_number, antipodes, antipode_count, reachable,
    indices, histogram (numpy), and with `symmetry=True` (twisty puzzles) a `classes`
    dict (symmetries, puzzle_symmetries, positions, positions_by_depth,
    antipode_positions, burnside_classes, antipode_class_sizes). `start` searches from
    that position instead of the goal (with `symmetry`, under the symmetries that fix
    it), `goal` sets another goal, `metric` another move metric (step, line, path,
    half, quarter). `progress` gets a dict per finished level (depth, new_states,
    cumulative, seconds, direction). Ctrl-C stops it with KeyboardInterrupt, in memory
    as into a table, the table left resumable by the same call."""
