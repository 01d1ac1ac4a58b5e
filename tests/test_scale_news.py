"""benchmarks/scale_news.py, the news table of benchmarks/scale.py: deterministic per seed, rows
in the petition columns in created_at order, a fifth of them re-submissions, contents of 3 to 7
whole news sentences, and the nightly change giving changed rows new contents."""

import sqlite3
from collections import Counter

import pytest

from benchmarks import scale
from benchmarks.scale_data import COLUMNS
from benchmarks.scale_news import CHUNK, RESUBMIT, SENTENCE, NewsMaker, news_sentences

ROWS = 10_000


@pytest.fixture(scope="module")
def rows():
    return [row for chunk in NewsMaker(seed=3).rows(ROWS) for row in chunk]


def repeats(rows: list[tuple]) -> list[bool]:
    """For each row, whether it shares two whole sentences with an earlier row: a re-submission
    keeps all but the one sentence an edit touches; unrelated rows share two almost never."""
    earlier: dict[str, list[int]] = {}
    out = []
    for n, row in enumerate(rows):
        sentences = set(SENTENCE.findall(row[-1]))
        shared = Counter(m for s in sentences for m in earlier.get(s, ()))
        out.append(any(count >= 2 for count in shared.values()))
        for s in sentences:
            earlier.setdefault(s, []).append(n)
    return out


def test_the_same_seed_gives_the_same_rows_and_another_seed_others(rows):
    again = [row for chunk in NewsMaker(seed=3).rows(ROWS) for row in chunk]
    assert again == rows
    assert next(NewsMaker(seed=4).rows(100)) != rows[:100]


def test_rows_come_in_chunks_of_the_columns_with_ids_in_created_at_order(rows):
    chunks = list(NewsMaker(seed=3).rows(CHUNK + 10))
    assert [len(chunk) for chunk in chunks] == [CHUNK, 10]
    assert all(len(row) == len(COLUMNS) for row in rows)
    ids = [row[COLUMNS.index("id")] for row in rows]
    created = [row[COLUMNS.index("created_at")] for row in rows]
    assert ids == list(range(1, ROWS + 1))
    assert created == sorted(created) and len(set(created)) == ROWS


def test_more_rows_continue_the_ids(rows):
    maker = NewsMaker(seed=3)
    list(maker.rows(100))
    assert next(maker.rows(5))[0][0] == 101


def test_about_a_fifth_of_the_rows_re_submit_an_earlier_one(rows):
    share = sum(repeats(rows)) / ROWS
    assert RESUBMIT - 0.02 <= share <= RESUBMIT + 0.02


def test_the_maker_counts_about_240_000_pairs_a_million_rows():
    maker = NewsMaker(seed=3)
    list(maker.rows(ROWS))
    assert 200_000 <= maker.pairs / ROWS * 1_000_000 <= 280_000


def test_new_contents_are_3_to_7_whole_news_sentences():
    pool = set(news_sentences())
    contents = NewsMaker(seed=3).texts.take(2000)
    counts = Counter(len(SENTENCE.findall(c)) for c in contents)
    assert set(counts) == {3, 4, 5, 6, 7}
    assert all("".join(SENTENCE.findall(c)) == c and set(SENTENCE.findall(c)) <= pool for c in contents)


def test_all_but_the_edited_rows_are_3_to_7_whole_news_sentences(rows):
    pool = set(news_sentences())
    whole = [3 <= len(SENTENCE.findall(c)) <= 7 and set(SENTENCE.findall(c)) <= pool for *_, c in rows]
    assert sum(whole) >= (1 - RESUBMIT) * ROWS


def test_sentences_recur_unevenly_across_unrelated_rows(rows):
    first = [row[-1] for row, repeat in zip(rows, repeats(rows)) if not repeat]
    counts = Counter(s for c in first for s in set(SENTENCE.findall(c))).most_common()
    assert counts[0][1] >= 10 * (sum(n for _, n in counts) / len(counts))


@pytest.mark.parametrize("seed", range(5))
def test_a_re_submission_is_never_its_source_text(rows, seed):
    maker = NewsMaker(seed=seed)
    for source in rows[:1000]:
        again = maker.resubmission(source)
        assert again[-1] != source[-1]
        assert again[0] == source[0]


def test_the_nightly_change_gives_changed_rows_new_contents(tmp_path):
    path = tmp_path / "petitions.sqlite"
    maker = NewsMaker(seed=3)
    scale.write_table(path, maker, 2000)
    before = read(path)
    changes = scale.change_table(path, maker, 2000, seed=4)
    after = read(path)
    changed = [i for i in before.keys() & after.keys() if before[i] != after[i]]
    assert len(changed) == changes["updated"] == round(2000 * scale.CHANGED)
    assert len(after) == 2000 - changes["deleted"] + changes["added"]
    assert max(after) == 2000 + changes["added"]


def read(path) -> dict[int, str]:
    with sqlite3.connect(path) as db:
        found = dict(db.execute("SELECT id, content FROM petition"))
    db.close()
    return found
