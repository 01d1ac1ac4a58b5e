"""A pair with similar text and no evidence of its own is linked by a third row that
matches one of them by submitter and the other as written, and by nothing else."""

import numpy as np

from dedup_pipeline.core.decision import SUBMITTER, WRITTEN, corroborates, linking, neighbours


def linked(edges, a, b, text=None, people=None):
    return linking(neighbours(edges), a, b, text, people)


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
    assert linked(edges, 2, 3) == 1


def test_two_strangers_copying_one_row_are_not_linked_by_it():
    edges = {(1, 2): WRITTEN, (1, 3): WRITTEN}
    assert linked(edges, 2, 3) is None


def test_a_pair_without_a_shared_partner_stays_apart():
    edges = {(1, 2): WRITTEN, (3, 4): SUBMITTER}
    assert linked(edges, 2, 3) is None and linked(edges, 1, 4) is None


def test_a_copy_of_a_row_paired_with_the_other_by_its_submitter_links_them():
    # 4 is a copy of 3 (one text, never listed as its pair) filed by 2's submitter
    edges = {(2, 4): SUBMITTER}
    text, people = {3: 7, 4: 7}, {2: np.array([9]), 3: np.array([5]), 4: np.array([9])}
    assert linked(edges, 2, 3, text, people) == 4 and linked(edges, 2, 3) is None


def test_a_copy_paired_with_the_other_as_written_links_them_only_when_it_shares_the_rows_submitter():
    edges = {(2, 4): WRITTEN}
    text = {3: 7, 4: 7}
    assert linked(edges, 2, 3, text, {2: np.array([1]), 3: np.array([5]), 4: np.array([5])}) == 4
    assert linked(edges, 2, 3, text, {2: np.array([1]), 3: np.array([5]), 4: np.array([6])}) is None
