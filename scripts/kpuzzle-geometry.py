#!/usr/bin/env python3
"""Writes the KPuzzle definitions antipode ships (src/puzzles/kpuzzle/library/) from the
puzzles' geometry, so that no permutation is typed by hand.

Every puzzle is a set of pieces in space: a piece is its position (an integer vector)
and its stickers (the outward normals of the faces it shows). A move turns the pieces
on one side of a plane about an axis through the centre; the KPuzzle move follows:
the piece that arrives at slot i comes from slot permutation[i], and its reference
sticker lands on sticker orientationDelta[i] of slot i. Every slot lists its stickers
reference first, then in one turning sense, so that orientations add up as KPuzzle
orientations do.

    scripts/kpuzzle-geometry.py [OUTPUT_DIR]   (default: src/puzzles/kpuzzle/library)
"""

import json
import math
import os
import sys

FACES = {  # outward normals of a cube's faces
    "U": (0, 1, 0),
    "D": (0, -1, 0),
    "R": (1, 0, 0),
    "L": (-1, 0, 0),
    "F": (0, 0, 1),
    "B": (0, 0, -1),
}


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cross(a, b):
    return (
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )


def scale(v, k):
    return tuple(x * k for x in v)


def rotate(v, axis, degrees):
    """v turned by `degrees` counterclockwise about `axis` (seen from its tip): Rodrigues'
    formula, rounded back to the integer lattice every puzzle here lives on."""
    theta = math.radians(degrees)
    norm = math.sqrt(dot(axis, axis))
    k = scale(axis, 1 / norm)
    c, s = math.cos(theta), math.sin(theta)
    kxv = cross(k, v)
    kdv = dot(k, v)
    out = tuple(v[i] * c + kxv[i] * s + k[i] * kdv * (1 - c) for i in range(3))
    rounded = tuple(round(x) for x in out)
    assert all(abs(x - r) < 1e-9 for x, r in zip(out, rounded)), (v, axis, degrees)
    return rounded


def det(a, b, c):
    return dot(a, cross(b, c))


class Slot:
    """A piece's place: where it sits and the stickers it shows, reference first."""

    def __init__(self, position, stickers, reference):
        stickers = sorted(stickers, key=lambda n: n != reference)
        if len(stickers) == 3 and det(*stickers) > 0:
            stickers = [stickers[0], stickers[2], stickers[1]]
        self.position = position
        self.stickers = stickers


def orbit_moves(slots, layer, axis, degrees):
    """The permutation and orientation delta of one orbit under a layer turn."""
    where = {s.position: i for i, s in enumerate(slots)}
    permutation = list(range(len(slots)))
    delta = [0] * len(slots)
    for j, slot in enumerate(slots):
        if not layer(slot.position):
            continue
        i = where[rotate(slot.position, axis, degrees)]
        permutation[i] = j
        if len(slots[i].stickers) > 1:
            landed = rotate(slot.stickers[0], axis, degrees)
            delta[i] = slots[i].stickers.index(landed)
    return permutation, delta


def definition(name, orbits, turns, extension, pieces=None):
    """A KPuzzle definition: `orbits` is [(name, slots)], `turns` is
    [(move, layer, axis, degrees)]; `pieces` gives an orbit's default pieces (identical
    pieces share a number) where they are not 0..n-1."""
    pieces = pieces or {}
    out = {
        "name": name,
        "orbits": [
            {
                "orbitName": orbit,
                "numPieces": len(slots),
                "numOrientations": max(len(s.stickers) for s in slots)
                if len(slots[0].stickers) > 1
                else 1,
            }
            for orbit, slots in orbits
        ],
        "defaultPattern": {
            orbit: {
                "pieces": pieces.get(orbit, list(range(len(slots)))),
                "orientation": [0] * len(slots),
            }
            for orbit, slots in orbits
        },
        "moves": {},
        "derivedMoves": None,
        "antipode": extension,
    }
    for move, layer, axis, degrees in turns:
        out["moves"][move] = {}
        for orbit, slots in orbits:
            permutation, delta = orbit_moves(slots, layer, axis, degrees)
            if len(slots[0].stickers) == 1:
                delta = [0] * len(slots)
            out["moves"][move][orbit] = {
                "permutation": permutation,
                "orientationDelta": delta,
            }
    return out


def cube_slot(n, name):
    """The slot named by its faces on an n x n x n cube (`UFR`, `UF`)."""
    position = tuple(sum(FACES[f][i] * (n - 1) for f in name) for i in range(3))
    stickers = [FACES[f] for f in name]
    reference = next(FACES[f] for f in sorted(name, key="UDFBRL".index))
    return Slot(position, stickers, reference)


CORNERS = ["UFR", "URB", "UBL", "ULF", "DRF", "DFL", "DLB", "DBR"]
EDGES = ["UF", "UR", "UB", "UL", "DF", "DR", "DB", "DL", "FR", "FL", "BR", "BL"]


def cube_goal(*names):
    """A goal pattern of the 3x3x3 (`antipode.goals`): the edges and corners named by
    their slots (`DF`, `DRF`) home and untwisted, every other piece anywhere (`?`)."""

    def orbit(label, slots):
        pieces = [str(i) if s in names else "?" for i, s in enumerate(slots)]
        twists = ["0" if s in names else "?" for s in slots]
        return f"{label}: {' '.join(pieces)} / {' '.join(twists)}"

    return f"{orbit('EDGES', EDGES)}; {orbit('CORNERS', CORNERS)}"


def face_cross(face):
    """The four edges of `face`, as a cross puts them home."""
    return [e for e in EDGES if face in e]


def face_turns(n, depth=None):
    """Clockwise turns of every face's outer layer (or of the layer `depth` in, as `2R`)."""
    turns = []
    for face, normal in FACES.items():
        level = n - 1 if depth is None else n - 1 - 2 * depth
        name = face if depth is None else f"{depth + 1}{face}"
        turns.append(
            (name, lambda p, nrm=normal, lv=level: dot(p, nrm) == lv, normal, -90)
        )
    return turns


def cube(name, n, orbits, extension, pieces=None, slices=False):
    slots = {
        "CORNERS": lambda: [cube_slot(n, c) for c in CORNERS],
        "EDGES": lambda: [cube_slot(n, e) for e in EDGES],
        "CENTERS": lambda: centres(n),
    }
    turns = face_turns(n) + (face_turns(n, 1) if slices else [])
    return definition(name, [(o, slots[o]()) for o in orbits], turns, extension, pieces)


def kinds_by_colours(slots, colour):
    """Each slot's piece as a kind: pieces whose stickers show the same colours in the
    same order (reference first) are alike, numbered in order of first slot."""
    kinds = []
    numbers = []
    for slot in slots:
        key = tuple(colour(normal) for normal in slot.stickers)
        if key not in kinds:
            kinds.append(key)
        numbers.append(kinds.index(key))
    return numbers


def three_colour_cube():
    """The 3-colour 3x3x3: opposite faces share a colour (one per axis), centres fixed.
    Its corners come in two kinds (the two mirror-image orders of the three colours,
    one per tetrad), its edges in three (one per pair of axes), each edge's stickers
    told apart."""
    axis = lambda normal: next(i for i, x in enumerate(normal) if x != 0)
    pieces = {
        "EDGES": kinds_by_colours([cube_slot(3, e) for e in EDGES], axis),
        "CORNERS": kinds_by_colours([cube_slot(3, c) for c in CORNERS], axis),
    }
    return cube(
        "3x3x3-three-colour",
        3,
        ["EDGES", "CORNERS"],
        {"title": "3-colour 3x3x3 (opposite faces one colour)"},
        pieces=pieces,
    )


def centres(n):
    """The centre stickers of an n x n x n cube, face by face in the order U L F R B D,
    each face row by row as seen from outside (top-left first)."""
    out = []
    # (face, right, down) as seen from outside, the usual net orientation.
    frames = [
        ("U", (1, 0, 0), (0, 0, 1)),
        ("L", (0, 0, 1), (0, -1, 0)),
        ("F", (1, 0, 0), (0, -1, 0)),
        ("R", (0, 0, -1), (0, -1, 0)),
        ("B", (-1, 0, 0), (0, -1, 0)),
        ("D", (1, 0, 0), (0, 0, -1)),
    ]
    inner = range(-(n - 3), n - 2, 2)
    for face, right, down in frames:
        normal = FACES[face]
        for row in inner:
            for col in inner:
                position = tuple(
                    normal[i] * (n - 1) + right[i] * col + down[i] * row for i in range(3)
                )
                out.append(Slot(position, [normal], normal))
    return out


def pyraminx():
    """The Pyraminx without its tips: four vertex turns, each the tip's layer down to the
    middle: a 3-cycle of edges and a twist of the vertex's axial piece."""
    vertices = {"U": (1, 1, 1), "L": (-1, -1, 1), "R": (1, -1, -1), "B": (-1, 1, -1)}
    names = list(vertices)
    face = {v: scale(vertices[v], -1) for v in names}  # the face opposite each vertex
    edges = []
    for a in range(4):
        for b in range(a + 1, 4):
            va, vb = names[a], names[b]
            others = [v for v in names if v not in (va, vb)]
            position = tuple(x + y for x, y in zip(vertices[va], vertices[vb]))
            stickers = [face[v] for v in others]
            edges.append(Slot(position, stickers, stickers[0]))
    axial = []
    for v in names:
        stickers = [face[w] for w in names if w != v]
        axial.append(Slot(scale(vertices[v], 2), stickers, stickers[0]))
    turns = [
        (v, lambda p, a=vertices[v]: dot(p, a) > 0, vertices[v], -120) for v in names
    ]
    return definition(
        "pyraminx",
        [("EDGES", edges), ("CENTERS", axial)],
        turns,
        {"title": "Pyraminx without its tips (vertex turns)"},
    )


def corner_turns(axes, beyond):
    """Clockwise 120-degree turns about cube corners, seen from the corner: `axes` names
    each move's corner by its faces; a turn takes the pieces whose position's dot
    product with the corner's axis exceeds `beyond`."""
    turns = []
    for move, corner in axes.items():
        axis = tuple(sum(FACES[f][i] for f in corner) for i in range(3))
        turns.append((move, lambda p, a=axis: dot(p, a) > beyond, axis, -120))
    return turns


def skewb():
    """The Skewb: turns of half the cube about a corner; U, L, R and B (the WCA's
    notation) turn about the corners UBL, DLF, DRB and DBL and keep UFR fixed."""
    corners = [cube_slot(2, c) for c in CORNERS]
    centre_slots = [Slot(FACES[f], [FACES[f]], FACES[f]) for f in "ULFRBD"]
    axes = {"U": "UBL", "L": "DLF", "R": "DRB", "B": "DBL"}
    return definition(
        "skewb",
        [("CORNERS", corners), ("CENTERS", centre_slots)],
        corner_turns(axes, 0),
        {"title": "Skewb (corner turns, one corner fixed)"},
    )


def compy():
    """The Compy Cube (puzzle geometry's `c v 0.915641442663986`): the cube cut by a
    plane across each corner deep enough to take the corner and its three edges but
    not the face centres; a vertex turn twists its corner in place and cycles its three
    edges. Moves are named by the corner's faces as puzzle geometry names them (URF,
    UBR, ...), clockwise as seen from the corner."""
    corners = [cube_slot(3, c) for c in CORNERS]
    # An edge's two stickers never flip on it: every position of the moves has each
    # edge's orientation fixed by where it stands (the group's order, 3^8 * 12!/2, has
    # no factor for them), so the edges are listed by place alone, as the class index
    # would otherwise number 2^11 orientations that never occur.
    edges = [cube_slot(3, e) for e in EDGES]
    edges = [Slot(e.position, e.stickers[:1], e.stickers[0]) for e in edges]
    vertices = {
        "URF": "UFR",
        "UBR": "URB",
        "ULB": "UBL",
        "UFL": "ULF",
        "DFR": "DRF",
        "DLF": "DFL",
        "DBL": "DLB",
        "DRB": "DBR",
    }
    # Along the axis (1, 1, 1) scaled, a corner sits at 6, its edges at 4, the face
    # centres beside it at 2; the cut, 0.9156 of a face's distance (2 here) along the
    # unit axis, is at 0.9156 * 2 * sqrt(3) = 3.17: between edges and centres.
    return definition(
        "compy",
        [("EDGES", edges), ("CORNERS", corners)],
        corner_turns(vertices, 3),
        {"title": "Compy Cube (corner turns; corners twist in place, edges cycle)"},
    )


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "src/puzzles/kpuzzle/library"
    puzzles = {
        "2x2x2": cube(
            "2x2x2",
            2,
            ["CORNERS"],
            {"title": "2x2x2 cube", "moves": ["U", "R", "F"]},
        ),
        "3x3x3": cube(
            "3x3x3",
            3,
            ["EDGES", "CORNERS"],
            {
                "title": "3x3x3 cube (Rubik's cube)",
                "projections": {
                    "corners": "CORNERS",
                    "edges6a": "EDGES:0-5",
                    "edges6b": "EDGES:6-11",
                    "edges7a": "EDGES:0-6",
                    "edges7b": "EDGES:5-11",
                    # The cross: the four D edges (DF, DR, DB, DL), as a solver's
                    # first step places them.
                    "cross": "EDGES:4-7",
                },
                # Goal sets for --goal: the D cross; the D cross with the front-right
                # pair (corner DRF, edge FR), a solver's first pair; the cross on any
                # of the six faces (colour neutral).
                "goals": {
                    "cross": cube_goal(*face_cross("D")),
                    "cross-pair": cube_goal(*face_cross("D"), "DRF", "FR"),
                    "colour-neutral-cross": [
                        cube_goal(*face_cross(f)) for f in "UDFBRL"
                    ],
                },
            },
        ),
        "3x3x3-corners": cube(
            "3x3x3-corners", 3, ["CORNERS"], {"title": "the 3x3x3's corners"}
        ),
        "3x3x3-edges": cube(
            "3x3x3-edges", 3, ["EDGES"], {"title": "the 3x3x3's edges"}
        ),
        "3x3x3-three-colour": three_colour_cube(),
        "pyraminx": pyraminx(),
        "skewb": skewb(),
        "compy": compy(),
        "4x4x4-centres": cube(
            "4x4x4-centres",
            4,
            ["CENTERS"],
            {"title": "4x4x4 centres, U and D one colour, the others another"},
            pieces={
                "CENTERS": [0 if f in "UD" else 1 for f in "ULFRBD" for _ in range(4)]
            },
            slices=True,
        ),
    }
    os.makedirs(out_dir, exist_ok=True)
    for name, data in puzzles.items():
        path = os.path.join(out_dir, f"{name}.kpuzzle.json")
        with open(path, "w") as f:
            f.write(compact(data))
        print(path)


def compact(data):
    """JSON with one line per orbit transformation: readable, and diffs stay small."""
    text = json.dumps(data, indent=2)
    out = []
    buffer = None
    for line in text.splitlines():
        stripped = line.strip()
        if buffer is not None:
            buffer += stripped if stripped.startswith("]") else stripped + " "
            if stripped.startswith("]"):
                out.append(buffer.replace(" ]", "]"))
                buffer = None
            continue
        if stripped.endswith("[") and not stripped.startswith('"orbits"'):
            buffer = line
            continue
        out.append(line)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
