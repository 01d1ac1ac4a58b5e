"""The shingles scheme: what a row's sketch holds, which rows are candidates, and which
candidates are confirmed (text similarity, with the submitter as evidence)."""

import itertools
from datetime import date, datetime

import numpy as np
import pytest

from dedup_pipeline.core import decision
from dedup_pipeline.core.features import Field
from dedup_pipeline.core.decision import linking, neighbours
from dedup_pipeline.core.shingles import (Differences, ShingleScheme, Sets, SketchTable, candidates, differences, filed_day,
                                         overlap, overlap_pairs, shingle_hashes)
from testing.corpus import documents

FIELDS = [Field("name", "short"), Field("content", "long")]
SCHEME = ShingleScheme(submitter=("name",))
TEXT = documents(200, 1)[0]


def sketch(content, name="张三", scheme=SCHEME, filed=None):
    return scheme.sketch({"name": name, "content": content, "filed": filed}, FIELDS)


def score(rule, a, b):
    """A pair's similarity when it is similar on its own evidence, else None."""
    similarity, evidence = decision.relate(rule, a, b)
    return similarity if evidence else None


def similar_of(rule, sketches):
    return decision.decide(rule, SketchTable.of(sketches)).similar


def pairs(rule, sketches):
    return similar_of(rule, sketches).every_pair()


def similar(a, b, scheme=SCHEME):
    return score(scheme, a, b) is not None


def test_shingles_are_sorted_distinct_32_bit_hashes():
    hashes = shingle_hashes("物业物业物业乱收费", 2)
    assert list(hashes) == sorted(set(hashes.tolist()))
    assert len(hashes) == len({"物业", "业物", "业乱", "乱收", "收费"})
    assert hashes.dtype == np.uint32


def test_sketching_many_rows_together_gives_each_row_its_own_sketch():
    texts = ["", "长", "物业", "2024年交了1200元", *documents(200, 40)]
    rows = [{"name": name, "content": text} for name in ("张三", "") for text in texts]
    together = SCHEME.sketch_many(rows, FIELDS)
    one_by_one = [SCHEME.sketch_many([row], FIELDS)[0] for row in rows]
    assert all(len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
               for a, b in zip(together, one_by_one))
    assert [len(s.shingles) for s in together[:4]] == [0, 1, 1, len({"0年", "年交", "交了", "了0", "0元"})]


def test_punctuation_width_and_spacing_do_not_change_the_sketch():
    a = sketch("小区物业乱收费，请尽快处理！")
    b = sketch("小区 物业乱收费,请尽快处理!")
    assert a.fingerprint == b.fingerprint


def test_a_changed_number_counts_for_nothing_in_the_folded_text():
    a, b = sketch("2024年3月交了1200元物业费"), sketch("2025年4月交了980元物业费")
    assert np.array_equal(a.shingles, b.shingles)
    assert not np.array_equal(a.verbatim, b.verbatim)


def shared_keys(a, b):
    return set(a.keys.tolist()) & set(b.keys.tolist())


def test_one_submitters_rows_share_a_key_when_their_texts_overlap():
    # a third of the text: too little for a MinHash band as written
    assert shared_keys(sketch(TEXT), sketch("再次反映" + TEXT[:70]))
    assert not shared_keys(sketch(TEXT), sketch("再次反映" + TEXT[:70], name="李四"))


def test_texts_as_written_share_a_key_whoever_filed_them():
    assert shared_keys(sketch(TEXT), sketch(TEXT, name="李四"))
    assert not shared_keys(sketch(TEXT), sketch(documents(200, 2)[1], name="李四"))


def test_a_sketch_survives_the_store_bytes():
    scheme = ShingleScheme(submitter=("name",), filed="filed")
    s = sketch(TEXT, scheme=scheme, filed="2025-03-01 09:30:00")
    back = scheme.restore(s.to_bytes())
    assert all(np.array_equal(x, y) for x, y in zip(back[:4], s[:4])) and back.text == s.text
    assert back.filed == s.filed == date(2025, 3, 1).toordinal()


def test_sketches_restored_together_are_those_restored_one_at_a_time():
    scheme = ShingleScheme(submitter=("name",), filed="filed")
    texts = [TEXT, "", "再次反映：" + TEXT[:150], "１２３ 元", *documents(30, 5)]
    stored = [sketch(t, scheme=scheme, name=["张三", "", "李四"][n % 3], filed=f"2025-03-{n % 28 + 1:02d}").to_bytes()
              for n, t in enumerate(texts)]
    together = scheme.restore_many(stored)
    for one, data in zip(together, stored):
        alone = scheme.restore(data)
        assert all(np.array_equal(x, y) for x, y in zip(one[:4], alone[:4])) and one[4:] == alone[4:]


def test_a_resubmission_by_the_same_person_is_similar():
    assert similar(sketch(TEXT), sketch("再次反映：" + TEXT[:150] + "请尽快处理。"))


def test_the_same_person_with_another_complaint_is_not_similar():
    other = documents(200, 2)[1]
    assert not similar(sketch(TEXT), sketch(other))


def test_another_person_needs_the_text_up_to_a_copys_edits():
    assert similar(sketch(TEXT), sketch(TEXT, name="李四"))
    edited = "再次反映：" + TEXT[:60] + "某某" + TEXT[62:150] + "请尽快处理。"  # a word of its own
    assert similar(sketch(TEXT), sketch(edited)) and not similar(sketch(TEXT), sketch(edited, name="李四"))


def test_another_persons_copy_with_a_sentence_added_is_similar():
    added = TEXT + "此事已经反映多次，至今没有得到任何答复，请有关部门尽快处理。"
    assert similar(sketch(TEXT), sketch(added, name="李四"))


def test_another_persons_copy_with_a_typo_and_a_suffix_is_similar():
    copy = TEXT[:40] + ("映" if TEXT[40] != "映" else "应") + TEXT[41:] + "请尽快处理。"
    assert similar(sketch(TEXT), sketch(copy, name="李四"))


SHORT = "小区门口的垃圾站已经半个月没有清运，臭味很大，苍蝇蚊子到处都是，住户连窗户都不敢开。"


def test_another_persons_copy_with_slips_up_to_the_slip_budget_is_similar():
    # the budget (`slips`: three single characters by default) counts characters, not a share of the text
    three = SHORT.replace("清运", "请运").replace("窗户", "窗护").replace("苍蝇", "仓蝇")
    assert similar(sketch(SHORT), sketch(three, name="李四"))
    assert not similar(sketch(SHORT), sketch(three.replace("臭味", "臭未"), name="李四"))
    assert not similar(sketch(SHORT), sketch(three, name="李四"), ShingleScheme(submitter=("name",), slips=2))


def test_another_persons_copy_with_a_sentence_removed_and_a_suffix_added_is_similar():
    # each side has text of its own, and neither replaced anything in place
    copy = SHORT.replace("苍蝇蚊子到处都是，", "") + "请有关部门尽快处理。"
    assert similar(sketch(SHORT), sketch(copy, name="李四"))


LETTER = "我住在{p}，物业公司今年多收了我家{m}元公摊费用，多次找物业都说是上级规定，请有关部门核查。"


def test_another_persons_copy_with_two_numbers_corrected_is_similar_and_with_three_is_not():
    a = sketch(LETTER.format(p="阳光小区", m=1200) + "去年收了800元，前年600元。")
    two = LETTER.format(p="阳光小区", m=1300) + "去年收了900元，前年600元。"
    assert similar(a, sketch(two, name="李四"))
    assert not similar(a, sketch(two.replace("600", "700"), name="李四"))
    assert not similar(a, sketch(two, name="李四"), ShingleScheme(submitter=("name",), numbers=1))


def test_a_form_letter_with_a_name_of_its_own_is_not_a_copy():
    # a word of two or more characters replaced together is a particular: a place, a company
    a = sketch(LETTER.format(p="阳光小区", m=1200))
    assert not similar(a, sketch(LETTER.format(p="幸福家园", m=1200), name="李四"))
    assert not similar(a, sketch(LETTER.format(p="阳光花园", m=1200), name="李四"))
    assert similar(a, sketch(LETTER.format(p="阳光小去", m=1200), name="李四"))  # one character: a slip


def test_where_two_aligned_texts_differ_is_counted_by_kind():
    assert differences("物业乱收费请处理", "物叶乱收费请尽快处理") == Differences(slips=1, numbers=0, words=0)
    assert differences("物业乱收费请处理", "物叶乱收废请处理") == Differences(slips=2, numbers=0, words=0)
    assert differences("交了1200元物业费", "再次反映交了1200元物业费") == Differences(0, 0, 0)
    assert differences("交了1200元物业费", "交了1300元物业费") == Differences(0, 1, 0)
    assert differences("交了1200元物业费", "交了12000元物业费") == Differences(0, 1, 0)
    assert differences("家住光明路三号", "家住解放路三号") == Differences(0, 0, 1)
    assert differences("住在望江苑24栋三单元", "住在书香门第17栋三单元") == Differences(0, 1, 1)  # a name and a number
    assert differences("交了118元", "交了85元") == Differences(0, 1, 0)  # one number, however aligned
    assert differences("3月8日交了", "4月9日交了") == Differences(0, 2, 0)


def test_a_word_replaced_after_the_last_text_two_texts_share_is_their_closing():
    signed = Differences(slips=0, numbers=0, words=1, closing=1)
    assert differences("物业乱收费，请尽快处理。反映人：张三", "物业乱收费，请尽快处理。反映人：李四") == signed
    assert differences("物业乱收费，请尽快处理。", "物业乱收费，反映人：李四") == signed  # a last line replaced
    assert differences("家住光明路三号，物业乱收费", "家住解放路三号，物业乱收费").closing == 0


def test_text_added_beside_text_removed_around_a_shared_character_is_a_word_replaced_either_way():
    a, b = "第三中学六年级的宋老师在校外开办补习班", "第一实验小学初三的于老师在校外开办补习班"
    assert differences(a, b) == differences(b, a) and differences(a, b).words > 0


def test_a_character_replaced_by_its_neighbour_is_a_slip_not_a_word():
    # aligned, 坐 removed and 拢 added a character apart, joined: the run differs in one place
    assert differences("大家坐拢来后堂", "大家拢拢来后千") == Differences(slips=2, numbers=0, words=0)
    assert differences("大家坐拢来后堂", "大家围坐来后堂").words == 1  # two places: a word


FILED = ShingleScheme(submitter=("name",), filed="filed", days=30)


def test_another_persons_text_the_same_as_written_is_a_copy_when_filed_within_the_days_unless_it_is_the_same():
    a = sketch(TEXT, scheme=FILED, filed="2025-03-01")
    prefixed = "再次反映" + TEXT  # the smaller text wholly inside the larger: the same as written
    assert similar(a, sketch(prefixed, "李四", FILED, "2025-03-20"), FILED)
    assert not similar(a, sketch(prefixed, "李四", FILED, "2025-09-01"), FILED)
    assert similar(a, sketch(TEXT, "李四", FILED, "2025-09-01"), FILED)  # the same text: a copy whenever filed


def test_another_persons_copy_is_similar_when_filed_within_the_days_of_its_source():
    a = sketch(SHORT, scheme=FILED, filed=date(2025, 3, 1))
    copy = SHORT.replace("清运", "请运")
    assert similar(a, sketch(copy, "李四", FILED, datetime(2025, 3, 31, 23, 0)), FILED)
    assert not similar(a, sketch(copy, "李四", FILED, "2025-04-01"), FILED)
    assert not similar(a, sketch(copy, "李四", FILED, None), FILED)  # no date: no evidence
    assert similar(a, sketch(copy, "张三", FILED, "2026-01-01"), FILED)  # its submitter's own


def test_the_day_a_row_was_filed_is_read_from_dates_datetimes_and_iso_text():
    day = date(2025, 3, 1).toordinal()
    assert [filed_day(v) for v in (date(2025, 3, 1), datetime(2025, 3, 1, 8), "2025-03-01 08:00:00",
                                   " 2025/03/01", "2025-03-01T08:00")] == [day] * 5
    assert [filed_day(v) for v in (None, "", "三月一日", 20250301, "2025-13-01")] == [0] * 5


def test_a_long_form_letter_with_its_particulars_replaced_is_not_similar_however_much_text_it_shares():
    letter = TEXT[:200] + "我们{p}的住户请求{c}公司整改。" + documents(200, 3)[2]
    a, b = sketch(letter.format(p="阳光小区", c="恒信")), sketch(letter.format(p="幸福家园", c="宏达"), name="李四")
    assert overlap(a.verbatim, b.verbatim)[0] > 0.92 and not similar(a, b)


def test_a_form_letter_for_another_place_and_company_from_another_person_is_not_similar():
    letter = ("我是{p}居民，{c}物业公司长期违规收取停车费和公摊费用，业主多次投诉无果，"
              "{c}物业公司至今拒不整改，请{p}有关部门依法查处，维护业主的合法权益。")
    a = sketch(letter.format(p="朝阳区", c="华远"))
    b = sketch(letter.format(p="海淀区", c="金茂"), name="李四")
    assert score(SCHEME, a, b) is None and similar(a, sketch(letter.format(p="海淀区", c="金茂")))


def test_a_form_letter_for_another_amount_from_another_person_is_not_similar():
    letter = "本人于{y}年在本小区购房，物业公司每年多收取{m}元公摊费用，{y}年至今累计{m}元。" * 2
    a, b = sketch(letter.format(y=2019, m=1200)), sketch(letter.format(y=2021, m=3400), name="李四")
    assert score(SCHEME, a, b) is None and similar(a, sketch(letter.format(y=2021, m=3400)))


def test_a_blank_text_is_similar_to_nothing():
    assert not similar(sketch(""), sketch(""))


def test_candidates_are_exactly_the_pairs_sharing_a_key():
    rng = np.random.default_rng(5)
    keys = [np.unique(rng.integers(0, 40, rng.integers(0, 5)).astype(np.uint64)) for _ in range(60)]
    i, j = candidates(Sets.of(keys))
    want = {(a, b) for a, b in itertools.combinations(range(60), 2) if set(keys[a].tolist()) & set(keys[b].tolist())}
    assert set(zip(i.tolist(), j.tolist())) == want and len(i) == len(want)


@pytest.mark.parametrize("scheme", [SCHEME, ShingleScheme()], ids=["with submitter", "text only"])
def test_pairs_are_the_candidates_that_score(scheme):
    texts = documents(120, 40)
    rows = [t if n % 3 else "再次反映" + texts[n - 1] for n, t in enumerate(texts)]
    sketches = [sketch(t, scheme=scheme) for t in rows]
    i, j, d = pairs(scheme, sketches)
    want = {(a, b): round(1 - score(scheme, sketches[a], sketches[b]), 4)
            for a, b in zip(*candidates(Sets.of([s.keys for s in sketches])))
            if score(scheme, sketches[a], sketches[b]) is not None}
    assert dict(zip(zip(i.tolist(), j.tolist()), d.tolist())) == want and want


def one_by_one(scheme, sketches):
    """{(i, j): distance} of every pair, each related on its own: the rows sharing a key, and
    those both paired with a third row by a key and evidence; a pair when it has evidence
    or a third row links it (corroboration.py): what `pairs` must give, copies or not."""
    related = {(a, b): decision.relate(scheme, sketches[a], sketches[b])
               for a, b in zip(*(x.tolist() for x in candidates(Sets.of([s.keys for s in sketches]))))}
    edges = {pair: evidence for pair, (score, evidence) in related.items() if score is not None and evidence}
    if scheme.corroborate:
        for middle, around in neighbours(edges).items():
            for a, b in itertools.combinations(sorted(around), 2):
                if (a, b) not in related:
                    related[a, b] = decision.relate(scheme, sketches[a], sketches[b])
    weak = [pair for pair, (score, evidence) in related.items() if score is not None and not evidence]
    linked = [p for p in weak if linking(neighbours(edges), *p) is not None] if scheme.corroborate else []
    return {pair: round(1 - related[pair][0], 4) for pair, (score, evidence) in related.items()
            if score is not None and evidence} | {pair: round(1 - related[pair][0], 4) for pair in linked}


def test_pairs_of_the_generated_quality_set_are_the_candidates_that_score_or_are_linked():
    from testing.labelled import generate

    scheme = ShingleScheme(submitter=("phone", "address"))
    fields = [Field("phone", "short"), Field("address", "short"), Field("content", "long")]
    sketches = scheme.sketch_many(generate(2_000, 2015).rows, fields)
    i, j, d = pairs(scheme, sketches)
    want = one_by_one(scheme, sketches)
    assert dict(zip(zip(i.tolist(), j.tolist()), d.tolist())) == want and len(want) > 500


def test_candidates_never_pair_two_copies_but_pair_each_copy_with_the_rest():
    keys = Sets.of([np.array([1, 2], np.uint64)] * 4 + [np.array([2], np.uint64), np.array([3], np.uint64)])
    i, j = candidates(keys, np.array([0, 0, 0, 0, 4, 5]))
    assert set(zip(i.tolist(), j.tolist())) == {(0, 4), (1, 4), (2, 4), (3, 4)}


def test_candidates_among_some_rows_are_the_pairs_sharing_a_key_with_one_of_them():
    rng = np.random.default_rng(12)
    keys = Sets.of([np.unique(rng.integers(0, 200, rng.integers(0, 9)).astype(np.uint64)) for _ in range(400)])
    original = np.minimum(np.where(rng.random(400) < 0.3, rng.integers(0, 400, 400), np.arange(400)), np.arange(400))
    i, j = candidates(keys, original)
    for among in (rng.random(400) < 0.1, np.zeros(400, bool), original == np.arange(400)):
        touching = among[i] | among[j]
        for entries in (7, len(keys.values)):
            found = candidates(keys, original, part_entries=entries, among=among)
            assert np.array_equal(found[0], i[touching]) and np.array_equal(found[1], j[touching])


def opening_keys(text):
    """The keys a short text has for its opening (those a scheme without them lacks)."""
    row = {"content": text}
    return set(ShingleScheme().sketch(row, FIELDS).keys.tolist()) - set(
        ShingleScheme(tiny_keys=0).sketch(row, FIELDS).keys.tolist())


def test_short_texts_that_only_open_alike_share_no_key_for_it():
    # a hotline's opening formula: the shingles inside it say nothing the opening does not
    texts = ["我要反映问题：小区门口的路灯坏了", "我要反映问题：学校旁边餐馆油烟太大", "我要反映问题：公交站牌被撞倒了"]
    keys = [opening_keys(t) for t in texts]
    assert all(keys) and not any(a & b for a, b in itertools.combinations(keys, 2))


def test_a_short_text_filed_again_with_a_sentence_added_keeps_an_opening_key():
    text = "我要反映个问题，小区门口的路灯坏了一个多月了"
    assert opening_keys(text) & opening_keys(text + "晚上出门很不安全。")


def collective_petition(copies):
    """A text filed by `copies` people (集体信访); one of them files it again edited, a
    stranger an edited copy, someone else an unrelated text."""
    names = [f"联名{n}" for n in range(copies)]
    rows = [(TEXT, name) for name in names]
    rows += [("再次反映，" + TEXT[:-12] + "请尽快处理。", names[7]), (TEXT + "我们已经等了三个月。", "路人"),
             (documents(200, 2)[1], names[3])]
    return [sketch(text, name) for text, name in rows]


def test_the_copies_of_a_collective_petition_give_the_pairs_of_comparing_them_one_by_one():
    sketches = collective_petition(60)
    found = similar_of(SCHEME, sketches)
    i, j, d = found.every_pair()
    assert dict(zip(zip(i.tolist(), j.tolist()), d.tolist())) == one_by_one(SCHEME, sketches)
    assert (found.original[:60] == 0).all() and (found.original[60:] == np.arange(60, 63)).all()


def test_a_copy_filed_later_is_linked_through_an_earlier_copy_of_its_submitter():
    # 2 matches 1 as written within the days; 3, its submitter's copy of 2, is filed too
    # late to be 1's copy itself, and is linked to 1 through 2 (which no candidate lists)
    slip = SHORT.replace("清运", "请运")
    rows = [(SHORT, "张三", "2025-01-01"), (slip, "李四", "2025-01-11"), (slip, "李四", "2025-02-02")]
    sketches = [sketch(text, name, FILED, day) for text, name, day in rows]
    assert decision.relate(FILED, sketches[0], sketches[2])[1] == 0
    i, j, d = similar_of(FILED, sketches).every_pair()
    assert dict(zip(zip(i.tolist(), j.tolist()), d.tolist())) == one_by_one(FILED, sketches)
    assert (0, 2) in set(zip(i.tolist(), j.tolist()))


def test_the_copies_of_a_collective_petition_are_not_listed_pair_by_pair():
    found = similar_of(SCHEME, collective_petition(3000))
    i, j, _ = found.pairs
    assert not np.any((i < 3000) & (j < 3000))  # copies are implied by `original`
    assert len(i) <= 2 * 3000 + 1  # each copy with each edit at most, not 3000² / 2
    linked = found.linked()
    assert len(linked[0]) == len(i) + 2999


def test_overlaps_of_many_pairs_at_once_are_those_of_each_pair():
    rng = np.random.default_rng(9)
    sets = [np.unique(rng.integers(0, 60, rng.integers(0, 30))).astype(np.uint32) for _ in range(50)]
    i, j = (np.array(x) for x in zip(*itertools.combinations(range(50), 2)))
    for chunk, threads in itertools.product((7, 10**6), (1, 2)):  # pairs split across chunks (and threads), or not
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("dedup_pipeline.core.shingles.OVERLAP_CHUNK", chunk)
            jaccard, contained = overlap_pairs(Sets.of(sets, np.uint32), i, j, threads)
        assert [(round(x, 9), round(y, 9)) for x, y in zip(jaccard.tolist(), contained.tolist())] == [
            tuple(round(v, 9) for v in overlap(sets[a], sets[b])) for a, b in zip(i.tolist(), j.tolist())]


def test_candidates_sorted_a_part_at_a_time_are_those_sorted_at_once():
    rng = np.random.default_rng(8)
    keys = Sets.of([np.unique(rng.integers(0, 300, rng.integers(0, 9)).astype(np.uint64)) for _ in range(400)])
    original = np.arange(400)
    original[rng.choice(400, 120)] = rng.choice(400, 120)  # copies: a row's original is another's
    original = np.minimum(original, np.arange(400))
    whole = candidates(keys, original, part_entries=len(keys.values))
    for entries, threads in itertools.product((1, 7, 100, 999, len(keys.values)), (1, 2)):
        parted = candidates(keys, original, part_entries=entries, threads=threads)
        assert all(np.array_equal(a, b) for a, b in zip(parted, whole)) and len(whole[0])


def test_a_decision_on_two_threads_is_the_decision_on_one():
    from testing.labelled import generate

    scheme = ShingleScheme(submitter=("phone", "address"))
    fields = [Field("phone", "short"), Field("address", "short"), Field("content", "long")]
    table = SketchTable.of(scheme.sketch_many(generate(1_500, 2016).rows, fields))
    focus = np.arange(1_500) % 7 == 0
    with pytest.MonkeyPatch.context() as patch:  # parts and chunks small enough that each thread has some
        patch.setattr("dedup_pipeline.core.shingles.OVERLAP_CHUNK", 5_000)
        patch.setattr("dedup_pipeline.core.shingles.CANDIDATE_ENTRIES", 2_000)
        for mask in (None, focus):
            one, two = decision.decide(scheme, table, mask, threads=1), decision.decide(scheme, table, mask, threads=2)
            assert all(np.array_equal(a, b) for a, b in zip([*one.similar.linked(), *one.possible],
                                                             [*two.similar.linked(), *two.possible]))
            assert len(one.similar.pairs[0]) > 100


def test_pairs_related_together_are_each_related_alone():
    from dedup_pipeline.config import parse_config
    from dedup_pipeline.core.schemes import Shingles
    from testing.labelled import generate

    scheme = Shingles(parse_config({"source": {"url": "sqlite://", "table": "petition"},
                                    "fields": {"phone": "short", "address": "short", "content": "long"},
                                    "scheme": {"submitter": ["phone", "address"]}}, {}))
    rows = generate(400, 2017).rows
    probes = scheme.probes(rows)
    rng = np.random.default_rng(3)
    pairs = [(probes[a], probes[b]) for a, b in zip(*candidates(Sets.of([p.keys for p in probes])))]
    pairs += [(probes[a], probes[b]) for a, b in rng.integers(0, 400, (300, 2)).tolist()]  # most not similar
    together = scheme.relate_many(pairs)
    assert together == [scheme.relate(a, b) for a, b in pairs]
    assert sum(d is not None for d, _ in together) > 50 and sum(d is None for d, _ in together) > 50
    assert scheme.relate_many([]) == []
