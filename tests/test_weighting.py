"""How a word of long text weighs: the paper's term frequency and the seeds' factors."""

import math

import pytest

from dedup_pipeline.core.features import Featurizer, Field
from dedup_pipeline.core.weighting import (NO_CONTEXT, RowContext, Weighting, idf, idf_table, marker_words,
                                      minmax_length, pos_tag, term_length_relevance)

FIELDS = [Field("title", "ignore"), Field("content", "long")]


def weights_of(weighting: Weighting, row: dict) -> dict[str, float]:
    """Word -> weight of one occurrence, from the featurizer's segments."""
    featurizer = Featurizer(FIELDS, weighting=weighting)
    return {word: weight for words, weight in featurizer.segments(row) for word in words}


def test_the_papers_weighting_gives_every_word_its_fields_weight():
    assert Weighting().plain
    assert Weighting().weight("物业", 1.5, NO_CONTEXT) == 1.5


def test_tfidf_weighs_a_word_by_the_idf_jieba_ships():
    import jieba.analyse

    assert idf("信访") == jieba.analyse.default_tfidf.idf_freq["信访"]
    assert Weighting("tfidf").weight("信访", 2.0, NO_CONTEXT) == 2.0 * idf("信访")


def test_a_word_missing_from_the_idf_table_weighs_the_tables_median_as_in_jieba():
    import jieba.analyse

    assert "zzqx不存在的词" not in idf_table()[0]
    assert idf("zzqx不存在的词") == idf_table()[1] == jieba.analyse.default_tfidf.median_idf


def test_under_tfidf_a_rare_word_outweighs_a_common_one():
    assert idf("信访") > 2 * idf("问题")


def test_term_length_relevance_peaks_at_the_fitted_mean_of_4_51_characters():
    assert term_length_relevance(4) > term_length_relevance(2) > term_length_relevance(1)
    assert term_length_relevance(5) > term_length_relevance(8)
    assert term_length_relevance(1) == pytest.approx(math.exp(-(3.51 ** 2) / (2 * 2.207 ** 2)))
    assert max(term_length_relevance(n) for n in range(1, 20)) < 1


def test_normal_length_multiplies_tfidf_by_one_plus_the_relevance():
    w = Weighting("tfidf", "normal").weight("乱收费", 1.0, NO_CONTEXT)
    assert w == idf("乱收费") * (1 + term_length_relevance(3))


def test_minmax_length_runs_from_0_for_the_shortest_word_to_1_for_the_longest():
    assert [minmax_length(n, 1, 5) for n in (1, 3, 5)] == [0.0, 0.5, 1.0]


def test_minmax_length_of_words_all_as_long_is_0():
    assert minmax_length(2, 2, 2) == 0.0


def test_minmax_weights_read_the_shortest_and_longest_word_of_the_rows_text():
    weights = weights_of(Weighting("tf", "minmax"), {"content": "业主 乱收费 综上所述"})
    assert weights == {"业主": 1.0, "乱收费": 1.5, "综上所述": 2.0}


def test_nouns_and_verbs_take_their_weights_by_their_tag_in_jiebas_dictionary():
    assert (pos_tag("业主"), pos_tag("反映"), pos_tag("综上所述")) == ("n", "v", "")
    weighting = Weighting(noun=2.0, verb=1.5)
    assert [weighting.weight(w, 1.0, NO_CONTEXT) for w in ("业主", "反映", "综上所述")] == [2.0, 1.5, 1.0]


def test_a_word_holding_a_marker_word_takes_the_marker_weight():
    assert "综上所述" in marker_words()
    weights = weights_of(Weighting(marker=5.0), {"content": "综上所述，物业乱收费"})
    assert weights["综上所述"] == 5.0 and weights["物业"] == 1.0


def test_stop_listed_marker_words_never_become_features():
    weights = weights_of(Weighting(marker=5.0), {"content": "但是物业乱收费，总之很生气"})
    assert "但是" not in weights and "总之" not in weights


def test_a_word_found_in_the_title_takes_the_title_weight_even_from_an_ignored_title():
    row = {"title": "物业乱收费", "content": "物业不管，业主生气"}
    weights = weights_of(Weighting(title=5.0), row)
    assert weights["物业"] == 5.0 and weights["业主"] == 1.0


def test_without_a_title_no_word_takes_the_title_weight():
    weights = weights_of(Weighting(title=5.0), {"title": None, "content": "物业不管"})
    assert set(weights.values()) == {1.0}


def test_the_factors_multiply():
    weighting = Weighting("tfidf", "minmax", noun=2.0, verb=1.5, marker=3.0, title=5.0)
    context = RowContext(shortest=1, longest=4, title="业主")
    assert weighting.weight("业主", 2.0, context) == pytest.approx(2.0 * idf("业主") * 2.0 * (1 + 1 / 3) * 5.0)


def test_a_weighting_with_any_factor_is_not_the_papers():
    options = [Weighting("tfidf"), Weighting(length="normal"), Weighting(length="minmax"), Weighting(noun=2.0),
               Weighting(verb=2.0), Weighting(marker=5.0), Weighting(title=5.0)]
    assert not any(w.plain for w in options)
