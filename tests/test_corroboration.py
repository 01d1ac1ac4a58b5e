"""A pair with similar text and no evidence of its own is linked by a third row that
matches one of them by submitter and the other as written, and by nothing else."""

from dedup_pipeline.core.decision import SUBMITTER, WRITTEN, corroborated, corroborates


def test_a_submitter_match_and_an_as_written_match_link_their_rows():
    assert corroborates(SUBMITTER, WRITTEN) and corroborates(WRITTEN, SUBMITTER)
    assert corroborates(SUBMITTER | WRITTEN, WRITTEN)


def test_two_matches_of_one_kind_link_nothing():
    assert not corroborates(WRITTEN, WRITTEN)
    assert not corroborates(SUBMITTER, SUBMITTER)
    assert not corroborates(SUBMITTER | WRITTEN, 0)


def test_a_copy_of_a_row_is_paired_with_that_submitters_edit_of_it():
    # 2 copies row 1 as written; 3 is 1's submitter editing it: 2 and 3 share only text
    edges = {(1, 2): WRITTEN, (1, 3): SUBMITTER}
    assert corroborated(edges, [(2, 3)]) == [(2, 3)]


def test_two_strangers_copying_one_row_are_not_linked_by_it():
    edges = {(1, 2): WRITTEN, (1, 3): WRITTEN}
    assert corroborated(edges, [(2, 3)]) == []


def test_a_pair_without_a_shared_partner_stays_apart():
    edges = {(1, 2): WRITTEN, (3, 4): SUBMITTER}
    assert corroborated(edges, [(2, 3), (1, 4)]) == []
