"""Matters (issue 52), the pure core: the object and problem read in a row, the marks, and
matters as connected parts of the links, the same one row at a time as in a batch."""

import random
import time

import pytest

from dedup_pipeline.core.matters import (
    Mark,
    Parts,
    link_keys,
    linked,
    mark_from_json,
    mark_of,
    mark_to_json,
    matters_of,
    person_of,
    problems,
    ranked_problems,
    read,
    said,
    same_object,
    vocabulary_of,
    why,
)

DAY = "2025-12-01 09:00:00"


def row(content, title="", address="", phone="13800000000", day=DAY, name="张三"):
    return {"title": title, "content": content, "address": address, "phone": phone, "created_at": day, "name": name}


def obj(content, **kw):
    mark = mark_of(row(content, **kw))
    return mark and mark.object


def test_building_surface_forms_are_one_object():
    forms = ["3号楼", "三号楼", "3栋", "3#楼", "3幢", "３号楼", "第三栋", "3#"]
    keys = {obj(f"阳光花园{form}暖气一点都不热") for form in forms}
    assert keys == {"building:阳光花园#3"}


def test_with_or_without_xiaoqu_or_the_district_one_compound():
    keys = [obj("阳光花园小区3号楼暖气不热"), obj("雁塔区阳光花园3栋暖气不热"), obj("西京市阳光花园的3幢暖气不热")]
    assert all(same_object(a, b) for a in keys for b in keys)


def test_a_compound_without_a_usual_suffix_is_named_by_its_building():
    assert obj("金地湖城大境9号楼暖气不热") == obj("金地湖城大境的九号楼暖气片冰凉") == "building:金地湖城大境#9"
    assert obj("万科城市之光B座电梯坏了") == "building:万科城市之光#B"


def test_a_landmark_beside_the_object_is_not_the_object():
    assert obj("红星幼儿园旁边的第八中学强制收取资料费") == "school:8中学"
    assert obj("金色佳苑（蓝天幼儿园对面）停车收费不合理") == "compound:金色佳苑"


def test_sibling_buildings_are_different_objects():
    assert obj("阳光花园3号楼暖气不热") != obj("阳光花园5号楼暖气不热")


def test_a_building_problem_without_its_building_is_not_linked_to_any_building():
    said = mark_of(row("观澜苑9号楼暖气不热", phone="13900000001"))
    unsaid = mark_of(row("观澜苑暖气不热，家里只有十五度", phone="13900000002"))
    assert said.object == "building:观澜苑#9" and unsaid.object == "compound:观澜苑"
    assert not linked(said, unsaid)              # it may be a sibling building's: sibling matters stay apart


def test_the_colloquial_junction_is_the_junction():
    assert obj("建设红旗路口红绿灯坏了") == obj("建设路与红旗路交叉口信号灯不亮") == "junction:建设路+红旗路"


def test_a_stop_is_itself_when_nothing_else_is_named_beside_it():
    assert obj("胜利路体育馆站附近84路车取消了") == "stop:胜利路体育馆"


def test_a_shop_and_a_company_of_one_trade_name_are_one_object():
    assert same_object(obj("力美英语培训店突然关门，卡里还有钱"), obj("力美英语培训跑路了，退费没人管"))


def test_a_name_one_digit_longer_is_another_school():
    assert not same_object(obj("三中乱收费"), obj("十三中乱收费"))
    assert same_object(obj("江城市新华路小学乱收费"), obj("新华路小学强制订校服"))


def test_the_kind_a_problem_lists_first_wins():
    assert obj("和平路上的胡家庙菜市场摊贩占道经营") == "market:胡家庙市场"


def test_the_building_only_for_building_level_problems():
    assert obj("阳光花园3号楼物业乱收费") == obj("阳光花园小区物业服务太差") == "compound:阳光花园"


def test_building_from_the_address_when_the_text_does_not_say_it():
    mark = mark_of(row("我家暖气片是凉的，老人冻感冒了", address="雁塔区太白路12号阳光花园3号楼2单元501"))
    said = mark_of(row("阳光花园暖气片是凉的", address="阳光花园3-2-501"))
    assert (mark.object, said.object) == ("building:阳光花园@雁塔区#3", "building:阳光花园#3")
    assert same_object(mark.object, said.object)


def test_an_address_elsewhere_does_not_give_the_building():
    mark = mark_of(row("锦绣苑暖气不热", address="阳光花园3号楼2单元501"))
    assert mark.object == "compound:锦绣苑"


def test_company_full_and_short_names_are_one_object():
    keys = [obj("西京市永兴物流有限公司拖欠工资三个月"), obj("金融路那边的永兴公司到现在还没发工资"),
            obj("永兴物流欠薪不还"), obj("西京永兴物流有限责任公司拖欠工资")]
    assert all(same_object(a, b) for a in keys for b in keys), keys


def test_similar_company_names_differ():
    assert not same_object(obj("永兴物流有限公司拖欠工资"), obj("永鑫物流有限公司拖欠工资"))


def test_one_trade_name_in_two_trades_differs_when_said():
    assert not same_object(obj("永兴物流有限公司拖欠工资"), obj("永兴建材有限公司拖欠工资"))


def test_one_company_name_in_two_districts_differs_when_said():
    assert not same_object(obj("高新区的永兴物流拖欠工资"), obj("永兴物流（经开区）拖欠工资"))
    assert not same_object(obj("江城市东湖区永兴物流有限公司拖欠工资"), obj("江城市西岭区永兴物流有限公司拖欠工资"))


def test_a_compound_by_its_stem_is_the_compound_with_its_suffix():
    assert same_object(obj("龙苑名苑4号楼暖气不热"), obj("龙苑4号楼暖气片冰凉"))
    assert same_object(obj("老粮食局宿舍消防通道被堵"), obj("粮食局宿舍乱停车"))


def test_two_compounds_of_one_stem_and_two_suffixes_differ():
    assert not same_object(obj("阳光花园3号楼暖气不热"), obj("阳光家园3号楼暖气不热"))


def test_a_weak_boundary_does_not_cut_a_name_down_to_its_suffix():
    assert obj("祥和花园15号楼电梯坏了") == obj("反映祥和花园小区15栋电梯坏了") == "building:祥和花园#15"
    assert obj("纺织厂家属院15号楼暖气不热") == "building:纺织厂家属院#15"


def test_words_ending_like_a_compound_are_not_compounds():
    for text in ("邻居家暖气也不热", "政府不管，暖气不热", "其小区暖气不热", "江城暖气不热"):
        assert obj(text, address="") is None, text


def test_a_compound_said_only_as_ours_is_the_address_compound():
    assert obj("我们小区停水三天了", address="新都苑23-3-601") == "compound:新都苑"


def test_an_address_names_its_compound_whatever_its_name_ends_with():
    assert obj("垃圾好几天没人清运", address="怡景壹号4-3-2304") == "compound:怡景壹号"
    assert obj("小区车位租金一下涨了一倍", address="西京市未央区怡景壹号13栋3单元1104室") == "compound:怡景壹号@未央区"


def test_the_address_compound_named_in_the_text_is_the_object():
    assert obj("金色小区楼体开裂往里渗水", address="金色小区6号楼801") == "building:金色#6"


def test_a_day_of_the_month_is_not_a_building():
    assert obj("银河名苑小区，从12月23号起就没有暖气了") == "compound:银河名苑"
    assert obj("银河名苑小区，从12月23号起就没有暖气了", address="银河名苑6-3-2702") == "building:银河名苑#6"


def test_a_day_before_since_is_not_a_building():
    assert obj("鸿运里小区，从24号开始就没有暖气了", address="鸿运里1栋2单元1204室") == "building:鸿运里#1"


def test_a_direction_is_not_a_compound():
    assert obj("楼体开裂往里渗水", address="紫金雅居4幢804室") == "building:紫金雅居#4"


def test_the_words_for_a_sites_works_are_one():
    assert obj("松山路修地铁的工地扬尘很大") == obj("松山路地铁站工地扬尘很大") == "site:松山路地铁站"
    assert same_object(obj("地铁3号线松山路站工地扬尘很大"), obj("松山路地铁站工地扬尘很大"))
    assert not same_object(obj("地铁3号线胜利路站工地扬尘"), obj("地铁2号线胜利路站工地扬尘"))
    assert obj("光明路修路工地扬尘很大") == obj("光明路改造工程扬尘很大") == "site:光明路改造"
    assert obj("绿水回迁房工地夜间施工噪音") == obj("绿水安置房项目工地夜间施工噪音") == "site:绿水安置房"


def test_a_site_said_by_its_works_is_named_by_the_place_beside_it():
    assert obj("地铁工地（金融路站）通宵作业，噪声扰民") == obj("金融路地铁站工地夜间施工扰民") == "site:金融路地铁站"
    assert obj("长江路道路改造工地夜里打桩") == "site:长江路改造"
    assert obj("银杏大道(光明路段)道路改造工地夜间施工") != obj("银杏大道(青年路段)道路改造工地夜间施工")


def test_a_place_of_a_kind_no_problem_foresees_is_still_an_object():
    assert obj("万达广场每天晚上噪音扰民") == "place:万达广场"
    assert same_object(obj("江城市人民医院门口停车乱收费"), obj("人民医院停车收费太贵"))
    assert not same_object(obj("人民医院停车收费太贵"), obj("中医医院停车收费太贵"))


def test_a_street_market_is_no_market_name():
    assert obj("和平路马路市场摊贩占道") == "road:和平路"


def test_wide_digits_and_letters_are_folded():
    assert obj("万科城市之光Ｂ座电梯坏了") == obj("万科城市之光B座电梯坏了") == "building:万科城市之光#B"
    assert obj("建设路＆红旗路路口红绿灯坏了") == "junction:建设路+红旗路"


def test_supply_cut_to_a_compound_is_compound_level():
    assert obj("阳光花园3号楼停水两天了") == obj("阳光花园5号楼也停水了") == "compound:阳光花园"


def test_a_generic_site_is_no_object():
    assert obj("地铁工地半夜施工噪音太大") is None


def test_the_two_orders_of_an_intersection_are_one_object():
    keys = {obj("中山路与人民路交叉口红绿灯坏了"), obj("人民路中山路路口红绿灯不亮"), obj("人民路、中山路交汇处信号灯坏了")}
    assert keys == {"junction:中山路+人民路"}


def test_adjacent_intersections_differ():
    assert obj("中山路与人民路交叉口红绿灯坏了") != obj("中山路与解放路交叉口红绿灯坏了")


def test_two_stretches_of_one_road_differ():
    a = obj("太白路（科技路至唐延路段）路灯不亮")
    assert a == obj("太白路从唐延路到科技路这一段路灯坏了")
    assert a != obj("太白路（唐延路至锦业路段）路灯不亮")


def test_one_end_and_side_of_a_road_are_stretches():
    assert obj("人民路和平路段路灯不亮") == "stretch:人民路:和平路"
    assert obj("人民路北段路灯不亮") != obj("人民路南段路灯不亮")


def test_other_objects_are_named():
    assert obj("万达广场二期项目工地半夜还在施工") == obj("万达广场2期工地夜间施工扰民") == "site:万达广场2期"
    assert obj("体育馆公交站的候车亭玻璃碎了") == "stop:体育馆"
    assert obj("第三中学强制收取资料费") == obj("三中违规收费") == "school:3中学"
    assert obj("胡家庙菜市场缺斤少两") == obj("胡家庙农贸市场的秤有问题") == "market:胡家庙市场"
    assert obj("好再来烧烤店油烟直排") == obj("那家好再来烧烤油烟太大") == "shop:好再来烧烤"


def test_the_problem_is_part_of_the_mark():
    wages, insurance = mark_of(row("永兴公司拖欠工资")), mark_of(row("永兴公司一直不给交社保"))
    assert wages.object == insurance.object and wages.problem != insurance.problem
    assert matters_of({1: wages, 2: Mark(insurance.object, insurance.problem, insurance.day, "someone else")}) == {}


def test_a_policy_question_makes_no_mark():
    reading = read(row("请问供暖补贴标准是多少？", address="阳光花园3号楼2单元501"))
    assert reading.mark is None and "policy" in reading.reason


def test_a_policy_question_naming_an_employer_makes_no_mark():
    assert mark_of(row("我在永兴物流有限公司上班，想咨询一下公积金怎么提取", title="公积金政策咨询")) is None


def test_a_complaint_citing_a_rule_is_still_a_complaint():
    assert obj("室内温度长期达不到规定的标准", address="观澜苑小区9号楼3单元2002室") == "building:观澜苑#9"


def test_a_gap_phrase_is_said_within_one_clause():
    def named(text):
        return [p.name for p in ranked_problems("", text, problems())]
    assert named("工资拖了半年") == ["wages"]
    assert named("拖欠了好几个月的工资") == ["wages"]
    assert named("拖欠。工资") == []
    assert named("拖欠房租水电杂费，老板说工资") == []              # more than 8 characters apart


def test_a_gap_phrase_may_cross_a_comma_within_its_sentence():
    assert [p.name for p in ranked_problems("", "说好月底发工资，拖了快半年", problems())] == ["wages"]


def test_of_problems_said_as_often_the_one_said_first_wins():
    said = ranked_problems("", "电梯动不动就卡在两层中间。请供热单位上门检查", problems())
    assert [p.name for p in said] == ["lift", "heating"]


def test_no_object_or_no_problem_makes_no_mark():
    assert mark_of(row("医保报销比例是多少")) is None
    assert mark_of(row("今天天气很好，谢谢你们的工作")) is None


def marks(*specs):
    """Marks from (object, problem, day, person) tuples, as row id -> Mark from 1."""
    return {i: Mark(*spec) for i, spec in enumerate(specs, start=1)}


def test_two_people_same_object_problem_episode_are_one_matter():
    assert matters_of(marks(("building:阳光花园#3", "heating", 100, "a"), ("building:阳光花园#3", "heating", 110, "b"))) \
        == {1: 1, 2: 1}


def test_one_persons_resubmissions_are_not_a_matter():
    assert matters_of(marks(*[("company:永兴", "wages", 100 + d, "a") for d in (0, 3, 9)])) == {}


def test_a_person_is_the_phone_however_written():
    assert person_of(row("", phone="+86 138-0000-0001")) == person_of(row("", phone="13800000001"))
    assert person_of(row("", phone="")) != person_of(row("", phone="", name="李四"))


def test_the_episode_window_splits_by_gaps_longer_than_it():
    m = marks(("o", "p", 100, "a"), ("o", "p", 120, "b"),         # one episode
              ("o", "p", 400, "c"), ("o", "p", 425, "d"),         # next winter: another
              ("o", "p", 460, "e"))                                # 35 days after the last: alone
    assert matters_of(m, window=30) == {1: 1, 2: 1, 3: 3, 4: 3}


def test_single_link_chains_within_a_key():
    m = marks(("o", "p", 100, "a"), ("o", "p", 125, "b"), ("o", "p", 150, "c"))
    assert set(matters_of(m, window=30).values()) == {1}


def test_a_form_letter_joins_its_matter():
    letter = "阳光花园3号楼全体业主联名反映：入冬以来暖气一直不热，室温只有十二度，请热力公司尽快检修。"
    rows = [row("阳光花园3号楼暖气片冰凉，孩子都冻感冒了", phone="13900000001", day="2025-12-01"),
            row("家里冷得穿羽绒服，暖气一点不热", address="阳光花园3-1-402", phone="13900000002", day="2025-12-03"),
            *(row(letter, phone=f"1370000000{k}", day="2025-12-05") for k in range(4))]
    found = matters_of({i: mark_of(r) for i, r in enumerate(rows, start=1)})
    assert set(found) == set(range(1, 7)) and set(found.values()) == {1}


def test_the_matter_id_is_its_smallest_row_id():
    m = marks(("o", "p", 100, "a"), ("x", "y", 100, "a"), ("o", "p", 101, "b"))
    assert matters_of({7: m[1], 3: m[2], 5: m[3]}) == {7: 5, 5: 5}


def random_marks(rng):
    objects = ["o1", "o2", "building:龙苑名苑#4", "building:龙苑#4", "building:龙苑花园#4", "company:永兴",
               "company:永兴/物流", "company:永兴/建材", "company:江城永兴"]
    return {i: None if rng.random() < .1 else Mark(rng.choice(objects), rng.choice(["p1", "p2"]),
                                                    rng.randint(0, 200), rng.choice("abcdef"))
            for i in rng.sample(range(1, 1000), rng.randint(1, 60))}


def connected_parts(m, window):
    """Row -> matter from every pair of marks (the definition, quadratic): the parts of `linked`
    holding two people or more, each named by its smallest row id."""
    part = {i: {i} for i in m}
    for a, ma in m.items():
        for b, mb in m.items():
            if a < b and linked(ma, mb, window) and part[a] is not part[b]:
                merged = part[a] | part[b]
                for i in merged:
                    part[i] = merged
    return {i: min(rows) for i, rows in part.items() if len({m[r].person for r in rows}) >= 2}


def test_the_batch_is_the_connected_parts_of_linked():
    for seed in range(40):
        m = {i: mark for i, mark in random_marks(random.Random(seed)).items() if mark is not None}
        assert matters_of(m, window=15) == connected_parts(m, 15), seed


def test_one_row_at_a_time_in_any_order_is_the_batch():
    for seed in range(60):
        rng = random.Random(seed)
        m = random_marks(rng)
        batch = matters_of(m, window=15)
        for _ in range(3):
            parts, order = Parts(window=15), list(m)
            rng.shuffle(order)
            for i in order:
                parts.add(i, m[i])
            assert parts.matters() == batch, seed


def test_a_new_row_can_merge_two_parts():
    parts = Parts(window=10)
    parts.add(1, Mark("o", "p", 100, "a"))
    parts.add(2, Mark("o", "p", 118, "b"))
    assert parts.matters() == {}
    assert parts.add(3, Mark("o", "p", 109, "c")) == [1, 2]
    assert parts.matters() == {1: 1, 2: 1, 3: 1}


def test_link_keys_are_the_object_block_and_the_problem():
    assert link_keys(Mark("company:永兴/物流", "wages", 1, "a")) == (("org:永兴", "wages"),)
    longer, shorter = Mark("building:龙苑名苑#4", "heating", 1, "a"), Mark("building:龙苑#4", "heating", 1, "b")
    assert set(link_keys(longer)) & set(link_keys(shorter))


def test_linked_marks_share_a_link_key():
    names = ["building:龙苑名苑#4", "building:龙苑#4", "building:龙苑#5", "building:老龙苑#4", "building:阳光花园#4",
             "building:阳光家园#4", "company:永兴", "company:江城永兴/物流", "company:永兴/建材", "company:永兴@高新区",
             "site:世纪府", "site:宝丰世纪府", "stop:胜利路体育馆", "stop:4路胜利路体育馆", "junction:a+b",
             "shop:力美英语培训店", "company:力美/英语培训", "shop:好再来烧烤", "school:3中学", "school:13中学",
             "place:江城市人民医院", "place:人民医院", "site:3号线松山路地铁站", "site:松山路地铁站"]
    for a in names:
        for b in names:
            ma, mb = Mark(a, "p", 1, "x"), Mark(b, "p", 2, "y")
            if linked(ma, mb):
                assert set(link_keys(ma)) & set(link_keys(mb)), (a, b)


def test_a_mark_goes_to_json_and_back():
    mark = Mark("building:龙苑名苑#4", "heating", 739300, "13800000000")
    text = mark_to_json(mark)
    assert mark_from_json(text) == mark and len(text) < 60 and "龙苑" in text


def test_a_big_block_is_partitioned_without_comparing_every_pair():
    m = {i: Mark(("building:粮食局宿舍#4", "building:粮食局#4", "building:老粮食局宿舍#4")[i % 3], "heating",
                 739000 + i * 540 // 2000,
                 f"p{i % 300}") for i in range(1, 2001)}
    start = time.process_time()
    found = matters_of(m, window=30)
    assert time.process_time() - start < 0.5 and set(found.values()) == {1}


def test_explain_says_why_two_rows_are_or_are_not_one_matter():
    a = read(row("阳光花园3号楼暖气不热", phone="13900000001"))
    b = read(row("阳光花园三号楼供暖温度不达标", phone="13900000002", day="2025-12-11"))
    c = read(row("阳光花园5号楼暖气不热", phone="13900000003"))
    assert why(a, b).linked and "10 days" in why(a, b).reason
    assert not why(a, c).linked and "different objects" in why(a, c).reason
    later = read(row("阳光花园3号楼暖气不热", phone="13900000004", day="2026-11-20"))
    assert not why(a, later).linked and "another episode" in why(a, later).reason


# Rules of version 4: phases, lettered buildings, subdistricts, names without a suffix, districts
# kept, the address field's place, bus lines, trades, sites by a landmark, the wider vocabulary.

def test_a_phase_is_part_of_its_building():
    first, second = obj("紫荆御府一期4栋电梯坏了"), obj("紫荆御府小区二期的的4#楼电梯坏了")
    assert (first, second) == ("building:紫荆御府#1期4", "building:紫荆御府#2期4")
    assert not same_object(first, second)


def test_a_building_said_without_its_phase_may_be_the_phased_one():
    assert same_object(obj("紫荆御府4栋电梯坏了"), obj("紫荆御府一期4栋电梯坏了"))


def test_a_lettered_building_keeps_its_letter():
    assert obj("怡景春天T3栋电梯坏了") == "building:怡景春天#T3"
    assert obj("万科书香门第20栋暖气不热") == "building:万科书香门第#20"       # 第 of the name, not of 第20栋


def test_a_subdistrict_before_a_compound_is_not_part_of_its_name():
    assert obj("海湾街道锦城华庭5栋电梯坏了") == "building:锦城华庭#5"


def test_a_brand_before_an_estate_name_may_be_dropped():
    assert same_object("building:绿地名邸#11", "building:名邸#11")
    assert same_object("building:湾口锦城华庭#5", "building:锦城华庭#5")
    assert not same_object("building:绿地名邸#11", "building:金地名邸#12")


def test_a_compound_without_a_suffix_is_named_by_where_it_stands_after_a_district_or_road():
    assert obj("晋源区平阳路世茂大都会这几天停水") == "compound:世茂大都会@晋源区"
    assert obj("亲贤街招商大都会物业不打招呼就涨价") == "compound:招商大都会"


def test_an_address_that_ends_with_a_name_names_the_compound():
    assert obj("我家小区停水", address="晋源区平阳路世茂大都会") == "compound:世茂大都会@晋源区"


def test_an_address_of_a_district_alone_names_no_compound():
    assert mark_of(row("小区停水", address="晋源区")) is None


def test_one_compound_name_in_two_districts_is_two_compounds():
    a, b = obj("迎泽区滨河新村停水"), obj("晋源区滨河新村停水")
    assert not same_object(a, b)
    assert same_object(a, obj("滨河新村停水"))


def test_a_district_cut_short_is_the_same_district():
    assert same_object("compound:滨河新村@万柏林区", "compound:滨河新村@柏林区")


def test_the_address_field_names_the_place_when_the_text_only_says_which_kind():
    assert obj("这个十字路口红绿灯坏了", address="小店区五一路与学院路交叉口") == "junction:五一路+学院路"


def test_a_bus_line_is_an_object_by_its_number():
    assert obj("73路公交车班次太少") == obj("73路末班车太早，等了一个小时") == "line:73"


def test_a_company_short_name_keeps_its_trade():
    assert not same_object(obj("粤美家具拖欠工资"), obj("粤美服装拖欠工资"))


def test_a_companys_trade_said_in_other_words_is_one_trade():
    assert same_object(obj("鸿源汽贸拖欠工资"), obj("山西鸿源汽车销售服务有限公司拖欠工资"))
    assert same_object("company:鑫达/劳务", "company:鑫达/建筑劳务")
    assert not same_object("company:鑫达/劳务", "company:鑫达/建材")


def test_what_a_factory_makes_is_not_its_name():
    assert mark_of(row("陈老板开的电池厂拖欠工资")) is None


def test_a_road_named_with_a_numeral_or_a_ring_is_a_road():
    assert obj("五一路与学院路交叉口积水") == "junction:五一路+学院路"
    assert obj("南中环街学院路口红绿灯坏了") == "junction:南中环街+学院路"


def test_a_site_said_only_as_that_site_is_placed_by_its_landmark():
    assert obj("海湾地铁站B出口旁边那个工地扬尘很大") == "site:海湾地铁站"


def test_a_site_name_ends_at_its_first_site_word_and_drops_its_road():
    assert obj("荔园云邸项目工地连续几晚通宵施工") == "site:荔园云邸"
    assert obj("凤凰大道尚城湾楼盘工地夜间施工") == "site:尚城湾"


def test_one_school_name_in_two_districts_is_two_schools():
    assert not same_object(obj("湾口区实验小学学位分配有问题"), obj("滨江区实验小学学位分配有问题"))
    assert same_object(obj("湾口区实验小学学位分配有问题"), obj("福港街道的实验小学学位分配有问题"))


def test_an_urban_village_is_its_village():
    assert obj("水围村城中村消防隐患严重") == obj("水围村握手楼消防隐患严重") == "compound:水围村"


def test_a_square_dance_is_not_a_square():
    assert obj("南宫广场上跳广场舞音响太吵") == "place:南宫广场"


def test_a_night_market_stall_is_named_by_its_place():
    assert obj("官田村夜市烧烤油烟很大") == obj("官田村美食街烧烤油烟大")
    assert mark_of(row("夜市烧烤油烟很大")) is None


@pytest.mark.parametrize("text, problem", [
    ("绿地滨江府房产证办不下来", "certificate"), ("阳光花园逾期交房两年了", "delivery"),
    ("杨家堡村拆迁补偿不到位", "compensation"), ("泰禾峰景21栋高空抛物", "throwing"),
    ("第三人民医院看病排队要三个小时", "queue"), ("湾口区实验小学学位分配有问题", "enrolment"),
    ("金鹏路（和平路至文化路段）台风后倒树没人清理", "trees"), ("宏运电子厂偷排废水", "effluent"),
    ("顺昌家具厂废气很难闻", "fumes"), ("73路末班车太早", "bus")])
def test_the_vocabulary_reads_the_usual_hotline_problems(text, problem):
    assert mark_of(row(text)).problem == problem


def test_a_business_is_one_with_the_street_number_it_stands_at():
    named = obj("鸿源汽贸拖欠工资", address="晋源区建设南路198号")
    unnamed = obj("我们单位拖欠工资", address="晋源区建设南路198号")
    assert (named, unnamed) == ("company:鸿源/汽贸|addr:建设南路198号", "addr:建设南路198号")
    assert same_object(named, unnamed) and same_object(named, obj("鸿源汽贸拖欠工资"))
    assert set(link_keys(Mark(named, "wages", 1, "a"))) & set(link_keys(Mark(unnamed, "wages", 1, "b")))


def test_a_home_address_is_no_business_street_number():
    assert obj("鸿源汽贸拖欠工资", address="新圩区松岗村10巷40号") == "company:鸿源/汽贸"
    assert mark_of(row("我们厂拖欠工资", address="湾口区恒福豪庭10栋3102")) is None


def test_a_company_dormitory_address_names_the_company():
    assert obj("我们厂拖欠工资", address="湾口区海湾街道海湾科技园新锐塑胶厂宿舍楼106") == "company:新锐/塑胶@海湾街道"


def test_an_industrial_park_before_a_company_is_where_it_is_not_its_name():
    assert obj("横沥工业区力信服装废气很难闻") == "company:力信/服装"


def test_a_developer_brand_then_an_estate_name_is_one_compound():
    assert obj("尖草坪区阳光城长风壹号房产证办不下来") == "compound:阳光城长风壹号@尖草坪区"
    assert obj("阳光花园全体业主反映物业乱收费") == "compound:阳光花园"


def test_a_night_market_is_a_market():
    assert obj("松岗村夜市半夜还很吵") == obj("松岗村美食街半夜还很吵") == "market:松岗村夜市"


def test_a_repeated_suffix_ends_the_name_at_the_first():
    assert obj("埔心村村委会门口垃圾堆成山") == "compound:埔心村"


def test_a_compound_named_north_or_living_area_is_no_district():
    assert obj("车位只售不租", address="万柏林区龙城北区") == "compound:龙城北区@万柏林区"


def test_an_address_of_a_district_alone_gives_a_compound_its_district():
    assert obj("滨河新村停水", address="太原市晋源区") == "compound:滨河新村@晋源区"


def test_a_verb_before_a_trade_word_is_no_company():
    assert mark_of(row("音响震得玻璃响，吵得睡不着")) is None


def test_a_car_park_of_a_place_is_the_place():
    assert obj("第三人民医院停车场收费太贵") == "place:第3人民医院"


def test_the_batch_and_one_row_at_a_time_agree_with_districts_phases_and_street_numbers():
    objects = ["company:兴隆/机械|addr:太榆路194号", "company:兴隆/机械制造@小店区|addr:寇庄西路61号", "addr:太榆路194号",
               "company:兴隆", "company:兴隆/机械@迎泽区", "compound:滨河新村@迎泽区", "compound:滨河新村",
               "compound:滨河新村@晋源区", "building:紫荆御府#1期4", "building:紫荆御府#4", "building:紫荆御府#2期4"]
    for seed in range(40):
        rng = random.Random(seed)
        m = {i: Mark(rng.choice(objects), "p", rng.randint(0, 200), rng.choice("abcdef"))
             for i in rng.sample(range(1, 1000), rng.randint(1, 60))}
        batch = matters_of(m, window=15)
        assert batch == connected_parts(m, 15), seed
        parts, order = Parts(window=15), list(m)
        rng.shuffle(order)
        for i in order:
            parts.add(i, m[i])
        assert parts.matters() == batch, seed


def test_a_business_at_two_street_numbers_is_two():
    assert not same_object("company:兴隆/机械|addr:太榆路194号", "company:兴隆/机械|addr:寇庄西路61号")


def test_a_problem_word_broken_by_a_line_break_is_still_said():
    assert mark_of(row("阳光花园3号楼暖\n气不热")) == mark_of(row("阳光花园3号楼暖气不热")) is not None


def test_wide_digits_name_the_building_ascii_digits_name():
    assert mark_of(row("阳光花园３号楼暖气不热")) == mark_of(row("阳光花园3号楼暖气不热")) is not None


def test_a_row_naming_no_problem_has_no_mark_and_says_so():
    assert read(row("阳光花园3号楼的邻居很友好")).reason == "no problem named"


def test_the_second_side_of_a_phrase_counts_within_its_gap_only():
    wages = vocabulary_of("wages\tcompany\t拖欠+工资\n")
    assert said("拖欠" + "啊" * 8 + "工资", wages) == {(0, 0)}
    assert said("拖欠" + "啊" * 9 + "工资", wages) == set()


def test_the_second_side_of_a_phrase_counts_in_its_sentence_only():
    wages = vocabulary_of("wages\tcompany\t拖欠+工资\n")
    assert said("拖欠了，工资", wages) == {(0, 0)}
    assert said("拖欠了。工资", wages) == set()


def test_a_phrase_is_said_when_any_place_of_its_first_side_is_followed():
    wages = vocabulary_of("wages\tcompany\t拖欠+工资\n")
    assert said("拖欠了！工资拖欠了半年工资", wages) == {(0, 0)}


def test_a_vocabulary_word_holding_ascii_is_found_in_wide_characters_too():
    signs = vocabulary_of("sign\tcompany,shop\t4S店\n")
    assert read(row("鸿源汽贸４Ｓ店乱收费"), vocabulary=signs).mark.problem == "sign"


def test_a_crossing_without_zebra_lines_is_the_junctions_signal_problem():
    assert mark_of(row("胜利路与人民路交叉口没有斑马线，过马路太危险")).problem == "signal"
    assert obj("胜利路与人民路交叉口没有斑马线") == obj("人民路和胜利路路口红绿灯坏了") == "junction:人民路+胜利路"


def test_an_old_compound_renewal_is_its_own_problem():
    mark = mark_of(row("丰山新村老旧小区改造一直停工，到处是土坑"))
    assert (mark.object, mark.problem) == ("compound:丰山新村", "renewal")


def test_a_property_fee_rise_outranks_the_threat_that_comes_with_it():
    assert mark_of(row("阳光花园物业费突然涨价，不交就停水")).problem == "property"
    assert mark_of(row("阳光花园停水三天了，物业不管")).problem == "water"


def test_a_property_fee_said_as_charging_is_the_property_problem():
    mark = mark_of(row("本小区物业强制收取停车管理费，不交就停水停电威胁业主", address="汇成嘉园10-1-1404"))
    assert (mark.object, mark.problem) == ("compound:汇成嘉园", "property")


def test_a_market_closing_on_its_stallholders_is_their_refund():
    mark = mark_of(row("盛通市场要拆，摊位费交了一年不退，没有提前通知"))
    assert (mark.object, mark.problem) == ("market:盛通市场", "refund")


def test_a_market_of_meat_and_vegetables_is_the_market():
    assert obj("胜利肉菜市场外面的流动摊贩早上把路堵死") == obj("胜利农贸市场门口摆摊占道") == "market:胜利市场"


def test_a_village_and_its_community_are_one_object():
    assert same_object("compound:大涌村", "compound:大涌社区")
    assert not same_object("compound:大涌村", "compound:大涌花园")


def test_a_junctions_jam_and_its_lights_link_as_one_matter():
    jam = mark_of(row("湖滨路与花园路交叉口早晚高峰堵得很厉害", phone="13900000001"))
    lights = mark_of(row("湖滨路花园路路口没有左转灯，红绿灯配时不合理", phone="13900000002"))
    assert (jam.problem, lights.problem) == ("traffic", "signal") and linked(jam, lights)


def test_a_company_said_as_this_building_is_not_a_company():
    assert mark_of(row("我们这栋楼装修噪音一直持续到晚上九点多", address="丽景湾18号楼2单元1007")).object \
        == "building:丽景湾#18"


def test_everyday_words_name_the_problem():
    assert [p.name for p in ranked_problems("", "外墙瓷砖一块块往下掉", problems())][:1] == ["facade"]
    assert [p.name for p in ranked_problems("", "有人在加盖楼层，违章搭建越盖越高", problems())][:1] == ["built"]
    assert [p.name for p in ranked_problems("", "每天要求加班到晚上十点，从来不给加班费", problems())][:1] == ["overtime"]
    assert [p.name for p in ranked_problems("", "里面的健身器材坏了很久没人修", problems())][:1] == ["facilities"]
