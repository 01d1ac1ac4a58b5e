"""The pairs plus the queue cover other people's copies (issue 50, finding 10): a prefix
saying a filing is repeated or added to is not content, punctuation and digits are the same
in either width, numbers are weak evidence, a letter another person re-signs with their own
name and phone (the phone of their row) is a copy, and a signature naming anyone else is a
closing. Measured on testing/heldback.py by benchmarks/review_queue.py."""

from datetime import datetime, timedelta

import numpy as np

from dedup_pipeline.core.explain import explain_pair
from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.core.shingles import Differences, differences, unsigned
from dedup_pipeline.core.text import normalize
from testing.heldback import generate
from tests.test_matches import CONFIG

LETTER = ("本人王建国，家住城东区人民路{house}号阳光小区3栋2单元501室。{date}起，恒信物业公司多收了我家公摊费用"
          "{amount}元，多次找物业都说是上级规定。小区里很多住户都是同样的情况，请有关部门核查并责令退还。")
SIGNED = LETTER + "反映人：{name}，联系电话：{phone}。"
FILED = datetime(2025, 3, 1)


PHONES = {"王建国": "13912345678", "李秀英": "18687654321", "赵丽": "15011112222"}


def row(n: int, content: str, person: str = "王建国", days: int = 0, phone: str | None = None) -> dict:
    """Row n filed `days` after FILED by `person` (their own phone, unless given, and address)."""
    return {"id": n, "title": "物业乱收费", "name": person, "phone": PHONES[person] if phone is None else phone,
            "address": f"{person}的住址", "category": "物业管理", "created_at": str(FILED + timedelta(days=days)),
            "content": content}


def decided(rows: list[dict]) -> tuple[set, set]:
    """(the possible pairs, the pairs: rows the rule links, rows of one text included) of
    rows, as positions."""
    scheme = scheme_of(CONFIG)
    d = scheme.decide(scheme.probes(rows))
    return (set(zip(*map(np.ndarray.tolist, d.possible[:2]))), set(zip(*map(np.ndarray.tolist, d.similar.linked()[:2]))))


def compared(text: str) -> str:
    """A text as pairs are compared: width folded, punctuation and spaces removed."""
    return normalize(text, "remove", "")


def text(**values) -> str:
    return LETTER.format(**{"house": 12, "date": "2025年2月3日", "amount": 1200, **values})


def test_another_persons_copy_with_a_bu_chong_fan_ying_prefix_of_a_third_filing_is_paired():
    first = row(1, "第三次反映：" + text())
    copy = row(2, "补充反映：" + text(), person="李秀英", days=3)
    assert (0, 1) in decided([first, copy])[1]


def test_a_prefix_saying_a_filing_is_repeated_is_not_a_word_replaced():
    assert differences("第三次反映交了1200元物业费", "补充反映交了1200元物业费") == Differences(0, 0, 0)
    assert differences(compared("【再次投诉】交了1200元物业费"), compared("紧急！交了1200元物业费")) == Differences(0, 0, 0)


def test_a_place_opening_a_text_is_still_a_word_replaced():
    assert differences("阳光小区交了1200元物业费", "幸福家园交了1200元物业费").words == 1
    assert differences("第三次反映阳光小区交了物业费", "补充反映幸福家园交了物业费").words == 1


def test_another_persons_copy_retyped_with_half_width_punctuation_and_digits_is_paired():
    half = text().translate(str.maketrans("，。：；", ",.:;")).replace("1200", "１２００")
    assert compared(half) == compared(text())
    assert (0, 1) in decided([row(1, text()), row(2, half, person="李秀英", days=3)])[1]


def test_another_persons_copy_with_its_date_amount_and_house_number_changed_is_queued_not_paired():
    changed = text(house=14, date="2025年2月5日", amount=1300)
    possible, pairs = decided([row(1, text()), row(2, changed, person="李秀英", days=3)])
    assert (0, 1) in possible and (0, 1) not in pairs


def signed(person: str, phone: str | None = None, **values) -> str:
    """The letter signed by `person` with their phone (or the one given)."""
    return SIGNED.format(**{"house": 12, "date": "2025年2月3日", "amount": 1200, **values},
                         name=person, phone=PHONES[person] if phone is None else phone)


def test_a_letter_another_person_re_signs_with_their_own_name_and_phone_is_paired():
    first, copy = row(1, signed("王建国")), row(2, signed("李秀英"), person="李秀英", days=3)
    possible, pairs = decided([first, copy])
    assert (0, 1) in pairs and (0, 1) not in possible


def people(person: str) -> np.ndarray:
    """The submitter hashes of a row of `person`'s."""
    return scheme_of(CONFIG).probes([row(1, "", person=person)])[0].people


def test_re_signed_letters_are_compared_with_their_signatures_cut_to_their_labels():
    a, b = compared(signed("王建国")), compared(signed("李秀英"))
    assert unsigned(a, b, people("王建国"), people("李秀英")) == (compared(text() + "反映人：，联系电话：。"),) * 2


def test_letters_are_compared_signatures_and_all_when_one_signature_gives_a_phone_not_its_rows():
    a, b = compared(signed("王建国")), compared(signed("李秀英", phone="13600001111"))
    assert unsigned(a, b, people("王建国"), people("李秀英")) == (a, b)


def test_explain_says_a_re_signed_letter_is_a_copy():
    shown = explain_pair(CONFIG, row(1, signed("王建国")), row(2, signed("李秀英"), person="李秀英", days=3))
    assert shown["similar"] and shown["copied"] and shown["aligned"]["words"] == 0


def test_a_re_signed_copy_with_a_sentence_dropped_and_a_number_changed_is_paired():
    copy = signed("李秀英", amount=1300).replace("小区里很多住户都是同样的情况，", "")
    assert (0, 1) in decided([row(1, signed("王建国")), row(2, copy, person="李秀英", days=3)])[1]


def test_a_letter_signed_with_a_phone_that_is_not_its_rows_is_queued_not_paired():
    a, b = signed("王建国"), signed("李秀英", phone="13600001111")
    assert differences(compared(a), compared(b)) == Differences(0, 1, 1, closing=1)
    possible, pairs = decided([row(1, a), row(2, b, person="李秀英", days=3)])
    assert (0, 1) in possible and (0, 1) not in pairs


def test_a_form_letter_filled_in_anew_and_re_signed_by_its_sender_is_neither_paired_nor_queued():
    other = signed("赵丽").replace("阳光小区", "幸福家园").replace("恒信物业", "宏达物业")
    assert decided([row(1, signed("王建国")), row(2, other, person="赵丽", days=3)]) == (set(), set())


def test_a_form_letter_filled_in_for_another_place_and_company_is_neither_paired_nor_queued():
    other = text().replace("阳光小区", "幸福家园").replace("恒信物业", "宏达物业")
    assert decided([row(1, text()), row(2, other, person="李秀英", days=3)]) == (set(), set())


def test_the_heldback_table_follows_from_its_seed_and_its_matters_are_its_truth():
    a, b = generate(400, seed=3), generate(400, seed=3)
    assert a.rows == b.rows and a.true_pairs == b.true_pairs and a.true_pairs
    assert all(a.meta[x].group == a.meta[y].group for x, y in a.true_pairs)
    assert {"same_person", "same_title", "form_letter"} <= {r.label for r in a.meta.values()}


def test_a_closing_with_its_signature_and_its_last_line_replaced_keeps_the_particulars():
    a = compared(text() + "反映人：王建国，联系电话：13600001111。特此反映。")
    b = compared(text() + "反映人：李秀英，联系电话：13600002222。盼早日答复。")
    assert differences(a, b).words == differences(a, b).closing == 2
    possible, pairs = decided([row(1, a), row(2, b, person="李秀英", days=3)])
    assert (0, 1) in possible and (0, 1) not in pairs


def test_a_short_text_filed_again_with_a_sentence_as_long_as_itself_added_shares_a_key_with_it():
    """Jaccard 0.36, where bands of 4 rows seldom meet: its opening keys (shingles.py)."""
    scheme = scheme_of(CONFIG)
    short, longer = scheme.probes([row(1, "空调非常足，都有点过热了。"),
                                   row(2, "补充反映：空调非常足，都有点过热了。我们已经向街道和区里都反映过，没有结果。", days=3)])
    assert set(scheme.keys(short)) & set(scheme.keys(longer))
    assert (0, 1) in decided([row(1, "空调非常足，都有点过热了。"),
                              row(2, "补充反映：空调非常足，都有点过热了。我们已经向街道和区里都反映过，没有结果。", days=3)])[1]


def test_the_queue_covers_a_true_pair_a_rule_pair_and_a_confirmed_item_join():
    """benchmarks/review_queue.py: rows 1–2 the rule's pair, 2–3 a queue item: confirming the
    item puts 1 and 3 in one group; a false pair inside an item links nothing."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
    from review_queue import missed
    from dedup_pipeline.sql.queue import Item

    ids, rule = [1, 2, 3, 4], (np.array([0]), np.array([1]))
    assert missed(ids, rule, [Item([2, 3], 0.2)], {(1, 2), (1, 3), (2, 3)}) == []
    assert missed(ids, rule, [Item([2, 3, 4], 0.2)], {(1, 2), (3, 4)}) == []
    assert sorted(missed(ids, rule, [Item([2, 3], 0.2)], {(1, 2), (1, 3)})) == [(1, 3)]
