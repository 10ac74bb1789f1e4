#!/usr/bin/env python3
"""Another solver: IDA* for the 15-puzzle in plain Python, its heuristic from
antipode's pattern databases through the package (the 7-8 partition unless another
is given; built into tables/ on first use). Solves the first ten of Korf's 100 and
prints length, nodes and seconds.

    python bindings/python/examples/korf_ida.py [KORF100_FILE] [COUNT] [PARTITION]
"""

import sys
import time

import antipode

GOAL = "0 1 2 3/4 5 6 7/8 9 10 11/12 13 14 15"
SIDE = 4


def moves_of(cell):
    """The cells the blank can move to from `cell`."""
    row, col = divmod(cell, SIDE)
    steps = []
    if row > 0:
        steps.append(cell - SIDE)
    if row < SIDE - 1:
        steps.append(cell + SIDE)
    if col > 0:
        steps.append(cell - 1)
    if col < SIDE - 1:
        steps.append(cell + 1)
    return steps


MOVES = [moves_of(cell) for cell in range(SIDE * SIDE)]


def solve(partition, cells):
    """The optimal length and the nodes expanded, by IDA*."""
    cells = list(cells)
    nodes = 0

    def search(blank, previous, depth, limit):
        nonlocal nodes
        nodes += 1
        bound = partition.estimate(cells)
        if depth + bound > limit:
            return depth + bound
        if bound == 0:
            return -1
        smallest = 1 << 30
        for target in MOVES[blank]:
            if target == previous:
                continue
            cells[blank], cells[target] = cells[target], 0
            found = search(target, blank, depth + 1, limit)
            cells[target], cells[blank] = cells[blank], 0
            if found < 0:
                return found
            smallest = min(smallest, found)
        return smallest

    limit = partition.estimate(cells)
    while True:
        found = search(cells.index(0), -1, 0, limit)
        if found < 0:
            return limit, nodes
        limit = found


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/korf100.txt"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    sizes = sys.argv[3] if len(sys.argv) > 3 else "7-8"
    partition = antipode.Partition.open("15puzzle", sizes, goal=GOAL)
    lines = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
    started = time.perf_counter()
    for line in lines[:count]:
        cells = partition.cells(line)
        at = time.perf_counter()
        length, nodes = solve(partition, cells)
        print(f"{length:4} {nodes:12} {time.perf_counter() - at:9.3f}  {line}")
    print(f"{count} instances in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
