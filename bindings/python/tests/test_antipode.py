"""The Python package against the library's published figures and its errors."""

import _thread
import signal

import numpy as np
import pytest

import antipode

EIGHT_PUZZLE_GODS_NUMBER = 31


@pytest.fixture(scope="module")
def eight_table_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("tables") / "8puzzle.table"
    report = antipode.analyze("8puzzle", table=path)
    assert report["gods_number"] == EIGHT_PUZZLE_GODS_NUMBER
    return path


@pytest.fixture(scope="module")
def eight_table(eight_table_path):
    return antipode.Table.open(eight_table_path)


def test_ranking_round_trips():
    p = antipode.puzzle("8puzzle")
    assert p.index_count == 181_440
    index = p.rank("867254301")
    assert p.unrank(index) == "867/254/301"
    indices = np.arange(0, 181_440, 997, dtype=np.uint64)
    positions = p.unrank_many(indices)
    assert (p.rank_many(positions) == indices).all()
    moves = dict(p.neighbours("867254301"))
    assert set(moves) == {"5", "3", "1"}  # the tiles next to the blank
    assert moves["1"] == "867/254/310"


def test_analysis_figures():
    report = antipode.analyze("8puzzle")
    assert report["gods_number"] == 31
    assert report["antipodes"] == ["647/850/321", "867/254/301"]
    assert report["histogram"].sum() == 181_440
    two_by_two = antipode.analyze("2x2x2")
    assert two_by_two["gods_number"] == 11
    assert two_by_two["histogram"][-1] == 2_644


def test_table_lookups(eight_table):
    assert eight_table.distance("867254301") == 31
    p = eight_table.puzzle
    all_indices = np.arange(p.index_count, dtype=np.uint64)
    distances = eight_table.distances(all_indices)
    assert np.bincount(distances).tolist() == eight_table.histogram.tolist()
    texts = p.unrank_many(all_indices[:1000])
    assert (eight_table.distances(texts) == distances[:1000]).all()
    entries = eight_table.entries
    assert not entries.flags.writeable
    assert (entries.astype(np.uint32) - 1 == distances).all()
    assert eight_table.header["puzzle"] == "8puzzle"
    solution = eight_table.solve("867254301")
    assert len(solution) == 31


def test_progress_reports_every_level():
    levels = []
    report = antipode.analyze("8puzzle", progress=levels.append)
    assert [level["depth"] for level in levels] == list(range(32))
    assert levels[-1]["cumulative"] == 181_440
    assert [level["new_states"] for level in levels] == report["histogram"].tolist()
    assert levels[0]["direction"] is None
    assert {level["direction"] for level in levels[1:]} <= {"top-down", "bottom-up"}


def test_ctrl_c_leaves_a_resumable_table(tmp_path):
    # Python's own Ctrl-C handler, even where the test runs with SIGINT ignored (a
    # background job of a shell).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        ctrl_c_then_resume(tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)


def ctrl_c_then_resume(tmp_path):
    whole, path = tmp_path / "whole.table", tmp_path / "interrupted.table"
    reference = antipode.analyze("sliding:2x5", table=whole)

    def press_ctrl_c_at_level_5(level):
        if level["depth"] == 5:
            _thread.interrupt_main()  # what Ctrl-C does: SIGINT's handler

    with pytest.raises(KeyboardInterrupt, match="complete level"):
        antipode.analyze("sliding:2x5", table=path, progress=press_ctrl_c_at_level_5)
    with pytest.raises(antipode.CorruptFile, match="unfinished|incomplete"):
        antipode.Table.open(path)
    resumed = []
    report = antipode.analyze("sliding:2x5", table=path, progress=resumed.append)
    assert resumed[0]["depth"] > 5  # the saved levels were not searched again
    assert report["gods_number"] == reference["gods_number"]
    assert path.read_bytes() == whole.read_bytes()


def test_ctrl_c_ends_an_analysis_in_memory():
    import time

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    pressed = []

    def press_ctrl_c_at_level_10(level):
        if level["depth"] == 10:
            pressed.append(time.monotonic())
            _thread.interrupt_main()

    try:
        # About two seconds on two cores when it runs to its end (80 levels).
        with pytest.raises(KeyboardInterrupt, match="complete level"):
            antipode.analyze("sliding:2x6", progress=press_ctrl_c_at_level_10)
        assert time.monotonic() - pressed[0] < 1
    finally:
        signal.signal(signal.SIGINT, previous)


def test_options_are_keyword_arguments():
    classes = antipode.analyze("pyraminx", symmetry=True)
    assert classes["classes"]["symmetries"] == 24
    plain = antipode.analyze("pyraminx")
    assert classes["classes"]["positions_by_depth"] == plain["histogram"].tolist()
    # From a position under the 3 symmetries that fix it: its distances, exactly.
    rooted = antipode.analyze("pyraminx", symmetry=True, start="U")
    assert rooted["classes"]["symmetries"] == 3
    assert rooted["classes"]["puzzle_symmetries"] == 24
    assert rooted["classes"]["positions_by_depth"] == (
        antipode.analyze("pyraminx", start="U")["histogram"].tolist()
    )
    # A goal set under the symmetries that map it onto itself: the 3x3x3's corners with
    # the U or the D face solved (16 of the 48).
    layers = (
        "CORNERS: 0 1 2 3 ? ? ? ? / 0 0 0 0 ? ? ? ?"
        " | CORNERS: ? ? ? ? 4 5 6 7 / ? ? ? ? 0 0 0 0"
    )
    by_class = antipode.analyze("3x3x3-corners", symmetry=True, goal=layers)
    assert by_class["classes"]["symmetries"] == 16
    assert by_class["classes"]["positions_by_depth"] == (
        antipode.analyze("3x3x3-corners", goal=layers)["histogram"].tolist()
    )
    quarter = antipode.analyze("2x2x2", metric="quarter")
    assert quarter["gods_number"] == 14
    other_goal = antipode.analyze("8puzzle", goal="0 1 2/3 4 5/6 7 8")
    assert other_goal["gods_number"] == 31
    with pytest.raises(antipode.Error, match="not a twisty puzzle"):
        antipode.analyze("8puzzle", symmetry=True)
    with pytest.raises(antipode.BadPosition):
        antipode.analyze("8puzzle", start="012")


def test_an_exception_in_progress_stops_the_search(tmp_path):
    def fail(level):
        raise ValueError(f"stop at {level['depth']}")

    with pytest.raises(ValueError, match="stop at 0"):
        antipode.analyze("8puzzle", table=tmp_path / "t.table", progress=fail)


def test_pattern_database_estimates(tmp_path):
    partition = antipode.Partition.open("8puzzle", "4-4", dir=tmp_path)
    assert repr(partition) == f"antipode.Partition.open('8puzzle', '4-4', goal=None, dir={str(tmp_path)!r})"
    estimate = partition.estimate("867254301")
    assert 0 < estimate <= 31
    assert partition.estimate(bytes([8, 6, 7, 2, 5, 4, 3, 0, 1])) == estimate
    assert partition.estimate([1, 2, 3, 4, 5, 6, 7, 8, 0]) == 0
    with pytest.raises(antipode.BadPosition, match="too often"):
        partition.estimate([1, 1, 3, 4, 5, 6, 7, 8, 0])
    with pytest.raises(antipode.BadPosition, match="parity"):
        partition.estimate([2, 1, 3, 4, 5, 6, 7, 8, 0])
    with pytest.raises(antipode.Error, match="add up to 9"):
        antipode.Partition.open("8puzzle", "4-5", dir=tmp_path)


def test_damaged_and_foreign_tables_are_refused(eight_table_path, tmp_path):
    with pytest.raises(antipode.TableMismatch, match="this table is for 8puzzle"):
        antipode.Table.open(eight_table_path, puzzle="11puzzle")
    assert antipode.Table.open(eight_table_path, puzzle="8puzzle").distance("867254301") == 31
    data = eight_table_path.read_bytes()
    short = tmp_path / "short.table"
    short.write_bytes(data[: len(data) - 1000])
    with pytest.raises(antipode.CorruptFile, match="truncated"):
        antipode.Table.open(short)


def flipped_copy(path, tmp_path, at=100_000):
    data = path.read_bytes()
    flipped = tmp_path / f"flipped-{path.name}"
    flipped.write_bytes(data[:at] + bytes([data[at] ^ 0x5A]) + data[at + 1 :])
    return flipped


def test_a_damaged_table_never_answers(eight_table_path, tmp_path):
    # Opening reads the header and the list of block checksums; the first answer
    # that reads the damaged block raises, whatever the call.
    table = antipode.Table.open(flipped_copy(eight_table_path, tmp_path))
    with pytest.raises(antipode.CorruptFile, match="block 0"):
        table.distance("867254301")
    with pytest.raises(antipode.CorruptFile, match="block 0"):
        table.distances(np.arange(10))
    with pytest.raises(antipode.CorruptFile, match="block 0"):
        table.solve("867254301")
    with pytest.raises(antipode.CorruptFile, match="block 0"):
        table.entries


def test_a_damaged_two_bit_table_raises_instead_of_unreached(tmp_path):
    path = tmp_path / "8puzzle-2bit.table"
    antipode.analyze("8puzzle", table=path, bits=2)
    table = antipode.Table.open(flipped_copy(path, tmp_path, at=4096 + 20_000))
    with pytest.raises(antipode.CorruptFile, match="block 0"):
        table.distances(np.arange(1000))


def test_errors_carry_the_library_message(eight_table, tmp_path):
    p = antipode.puzzle("8puzzle")
    with pytest.raises(antipode.BadPosition, match="wrong size"):
        p.rank("1234")
    with pytest.raises(antipode.TableMismatch, match="unknown puzzle"):
        antipode.puzzle("nine")
    with pytest.raises(antipode.FileNotFound, match="missing.table"):
        antipode.Table.open(tmp_path / "missing.table")
    # A missing file is an OSError too (it was CorruptFile only).
    with pytest.raises(FileNotFoundError):
        antipode.Table.open(tmp_path / "missing.table")
    assert issubclass(antipode.FileNotFound, antipode.Error)
    broken = tmp_path / "broken.table"
    broken.write_bytes(b"not a table")
    with pytest.raises(antipode.Error):
        antipode.Table.open(broken)
    with pytest.raises(IndexError):
        p.unrank(181_440)
    assert issubclass(antipode.BadPosition, antipode.Error)


def test_tables_say_what_they_are(eight_table, eight_table_path):
    assert repr(eight_table).startswith(f"antipode.Table.open({str(eight_table_path)!r}, puzzle='8puzzle')")
    assert "8-bit, 32 levels" in repr(eight_table)


def test_distances_take_any_integer_array_like(eight_table):
    p = antipode.puzzle("8puzzle")
    far = p.rank("867254301")
    expected = eight_table.distances(np.array([0, far], dtype=np.uint64))
    assert list(expected) == [eight_table.distance(p.unrank(0)), 31]
    # numpy's default int64, other widths, lists and ranges (refused before).
    for indices in (
        np.array([0, far]),
        np.array([0, far], dtype=np.uint32),
        np.array([0, far], dtype=np.int32),
        [0, far],
        range(0, far + 1, far),
    ):
        assert (eight_table.distances(indices) == expected).all(), indices
    assert len(eight_table.distances([])) == 0
    with pytest.raises(ValueError, match="not negative"):
        eight_table.distances(np.array([0, -1]))
    with pytest.raises(IndexError, match="not below 181440"):
        eight_table.distances([181_440])
    with pytest.raises(TypeError, match="integer indices or position texts"):
        eight_table.distances([0.5])


def test_an_array_changed_by_another_thread_is_never_a_panic(eight_table):
    import threading

    indices = np.arange(181_440, dtype=np.int64)
    stop = threading.Event()

    def scribble():
        while not stop.is_set():
            indices[::7] = 10**12
            indices[::7] = 3

    thread = threading.Thread(target=scribble)
    thread.start()
    try:
        for _ in range(50):
            try:
                eight_table.distances(indices)
            except IndexError:
                pass  # the copy taken had an index too large: a clear error
    finally:
        stop.set()
        thread.join()


def test_a_forked_child_computes_after_the_parent_did(eight_table):
    import os

    every = np.arange(181_440, dtype=np.uint64)
    parent = eight_table.distances(every)  # the parent's pool has run
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: it hung here before
        try:
            child = eight_table.distances(every)
            os.write(writer, b"ok" if (child == parent).all() else b"differ")
        finally:
            os._exit(0)
    os.close(writer)
    import select

    ready, _, _ = select.select([reader], [], [], 60)
    answer = os.read(reader, 16) if ready else b"hung"
    os.waitpid(pid, 0) if ready else os.kill(pid, signal.SIGKILL)
    assert answer == b"ok"


def test_a_table_cut_short_after_opening_raises_instead_of_crashing(eight_table_path, tmp_path):
    import shutil

    copy = tmp_path / "copy.table"
    shutil.copy(eight_table_path, copy)
    table = antipode.Table.open(copy)
    assert table.distance("867254301") == 31
    with open(copy, "r+b") as f:
        f.truncate(8192)
    for call in (
        lambda: table.distance("867254301"),
        lambda: table.distances(np.arange(181_440, dtype=np.uint64)),
        lambda: table.solve("867254301"),
        lambda: table.entries,
    ):
        with pytest.raises(antipode.CorruptFile, match="truncated since it was opened"):
            call()


def test_ctrl_c_ends_a_long_distances_call(tmp_path):
    import threading
    import time

    path = tmp_path / "8puzzle-2bit.table"
    antipode.analyze("8puzzle", table=path, bits=2)
    table = antipode.Table.open(path)
    # Descents on a 2-bit table: about seven seconds for all of these in one call.
    many = np.tile(np.arange(181_440, dtype=np.uint64), 40)
    # Python's own Ctrl-C handler: with SIGINT ignored (a background job of a shell)
    # interrupt_main does nothing.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.3, _thread.interrupt_main).start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            table.distances(many)
            time.sleep(30)  # reached only if the call ignored Ctrl-C to its end
        assert time.monotonic() - started < 2
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_closed_table_refuses_calls(eight_table_path):
    with antipode.Table.open(eight_table_path) as table:
        assert table.distance("867254301") == 31
    with pytest.raises(ValueError, match="closed"):
        table.distance("867254301")
    with pytest.raises(ValueError, match="closed"):
        table.distances([0])


CORNERS_BY_DEPTH = [1, 18, 243, 2874, 28000, 205416, 1168516, 5402628, 20776176, 45391616,
                    15139616, 64736]


def test_a_table_of_symmetry_classes_answers_any_position(tmp_path):
    path = tmp_path / "corners-classes.table"
    report = antipode.analyze("3x3x3-corners --symmetry", table=path, bits=2)
    assert report["gods_number"] == 11
    assert report["classes"]["symmetries"] == 48  # 24 rotations and 24 mirrors
    assert report["classes"]["positions_by_depth"] == CORNERS_BY_DEPTH
    assert report["classes"]["burnside_classes"] == report["reachable"] == 1_841_970
    table = antipode.Table.open(path)
    # Any position is looked up through its class's index; a solution by descent is
    # as long as the distance.
    solved = "CORNERS: 0 1 2 3 4 5 6 7 / 0 0 0 0 0 0 0 0"
    swapped = "CORNERS: 1 0 2 3 4 5 6 7 / 0 0 0 0 0 0 0 0"
    assert table.distance(solved) == 0
    moves = table.solve(swapped)
    assert len(moves) == table.distance(swapped) > 0


def test_a_table_of_a_goal_set_by_class_needs_its_puzzle_named(tmp_path):
    # Any face's corners solved: the puzzle's name is longer than the header keeps.
    faces = [
        "0 1 2 3 ? ? ? ? / 0 0 0 0 ? ? ? ?",
        "? ? ? ? 4 5 6 7 / ? ? ? ? 0 0 0 0",
        "0 1 ? ? 4 ? ? 7 / 0 0 ? ? 0 ? ? 0",
        "? ? 2 3 ? 5 6 ? / ? ? 0 0 ? 0 0 ?",
        "0 ? ? 3 4 5 ? ? / 0 ? ? 0 0 0 ? ?",
        "? 1 2 ? ? ? 6 7 / ? 0 0 ? ? ? 0 0",
    ]
    name = "3x3x3-corners --goal " + " | ".join("CORNERS: " + f for f in faces)
    path = tmp_path / "any-face.table"
    report = antipode.analyze(name + " --symmetry", table=path, bits=2)
    assert report["classes"]["positions_by_depth"] == [
        3823, 56979, 737426, 7062708, 38723252, 40553100, 1042360, 192
    ]
    with pytest.raises(antipode.TableMismatch, match="give the puzzle"):
        antipode.Table.open(path)
    table = antipode.Table.open(path, puzzle=name + " --symmetry")
    assert table.distance("R U R' F2 D L B") == len(table.solve("R U R' F2 D L B")) == 5
