"""The Python package against the library's published figures and its errors."""

import numpy as np
import pytest

import antipode

EIGHT_PUZZLE_GODS_NUMBER = 31


@pytest.fixture(scope="module")
def eight_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("tables") / "8puzzle.table"
    report = antipode.analyze("8puzzle", table=path)
    assert report["gods_number"] == EIGHT_PUZZLE_GODS_NUMBER
    return antipode.Table.open(path)


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


def test_errors_carry_the_library_message(eight_table, tmp_path):
    p = antipode.puzzle("8puzzle")
    with pytest.raises(antipode.BadPosition, match="wrong size"):
        p.rank("1234")
    with pytest.raises(antipode.TableMismatch, match="unknown puzzle"):
        antipode.puzzle("nine")
    with pytest.raises(antipode.CorruptFile):
        antipode.Table.open(tmp_path / "missing.table")
    broken = tmp_path / "broken.table"
    broken.write_bytes(b"not a table")
    with pytest.raises(antipode.Error):
        antipode.Table.open(broken)
    with pytest.raises(IndexError):
        p.unrank(181_440)
    assert issubclass(antipode.BadPosition, antipode.Error)
