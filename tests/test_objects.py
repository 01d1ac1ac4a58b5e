"""The object finders (core.objects): what each finds in a cleaned text, and the corrections
each makes to what its rules alone would read (the places said one way, misread names,
numbered schools, shops named 馆, rebuilt areas, whole districts)."""

from dedup_pipeline.core.objects import (
    Found,
    clean,
    compounds,
    district_of,
    first_object,
    lines,
    places,
    roads,
    schools,
    shops,
    stops,
)


def keys(found):
    return [f.key for f in found]


def test_the_middle_stretch_of_a_road_is_the_stretch_between_two_roads():
    said = clean("友谊路和迎宾路中间那段黄河路路灯坏了", places=True)
    assert said == clean("友谊路和迎宾路之间的黄河路路灯坏了", places=True)
    assert keys(roads(said)) == ["黄河路:友谊路-迎宾路"]


def test_two_roads_run_together_before_road_junction_are_a_junction():
    assert keys(roads(clean("朝阳民主路路口积水半米深", places=True))) == ["朝阳路+民主路"]


def test_a_bus_line_in_chinese_numerals_is_the_line():
    assert keys(lines(clean("三十四路公交改线后不经过我们这了", places=True))) == ["34"]
    assert lines(clean("这一路车末班车太早", places=True)) == []


def test_an_address_field_is_cleaned_without_saying_its_places_one_way():
    assert clean("友谊路和迎宾路中间的黄河路") == "友谊路和迎宾路中间的黄河路"


def test_standing_at_the_stop_is_no_stop_name():
    assert stops("21路车等一趟要四五十分钟，冬天站着等冻透了") == []


def test_a_stop_ending_the_text_is_a_stop():
    assert keys(stops("港北区潮音牌坊公交站")) == ["潮音牌坊"]


def test_a_verb_before_a_stop_names_no_stop():
    assert stops("希望恢复站点，方便大家出行") == []


def test_a_shop_with_or_without_a_generic_eatery_word_is_one_shop():
    assert set(keys(shops("迎宾路那家福园火锅饭店油烟太大"))) == set(keys(shops("福园火锅油烟太大"))) == {"福园火锅"}


def test_a_verb_or_a_district_before_a_shops_kind_names_no_shop():
    assert shops("恳请解决饭店油烟问题") == []
    assert "河西区饭店" not in keys(shops("河西区饭店油烟太大"))


def test_a_shop_named_as_a_hall_is_a_shop_not_a_home_or_a_library():
    assert keys(shops("胜利街那家老田家羊肉馆拖欠员工工资")) == ["老田家羊肉馆"]
    assert shops("和畅公馆停水") == shops("图书馆公交站旁边") == []


def test_a_numbered_primary_school_said_short_is_one_school():
    assert keys(schools("我家离十八小就几百米却划不进学区")) == keys(schools("市第18小学划片不合理")) \
        == keys(schools("第十八小学入学划片不合理")) == ["18小学"]
    assert schools("三小区停水") == []


def test_an_area_rebuilt_as_a_whole_is_one_compound_however_its_works_are_said():
    assert keys(compounds("窑坡片区棚改的过渡费2个月没发了")) == keys(compounds("窑坡棚改项目补偿款到现在没到位")) \
        == ["窑坡改造"]


def test_old_is_no_part_of_an_old_compounds_name():
    assert keys(compounds("丰山新村老旧小区改造一直停工")) == ["丰山新村"]


def test_a_contractor_named_before_its_site_gives_way_to_the_site():
    text = "安阳置业承建的俊林国际项目欠我们18个工人的工钱"
    assert first_object(text, ("company", "site"), {}).key == "俊林国际"


def test_a_contractor_is_the_object_when_the_problem_is_never_a_sites():
    assert first_object("安阳置业承建的俊林国际项目欠我们18个工人的工钱", ("company",), {}).kind == "company"


def test_a_district_of_three_characters_is_kept_whole():
    for text in ("太原市尖草坪区阳光花园停水", "在尖草坪区阳光花园停水"):
        assert district_of(text, compounds(text)[0]) == "尖草坪区"
    text = "我要反映河西区阳光花园停水"
    assert district_of(text, compounds(text)[0]) == "河西区"


def test_an_address_fields_district_of_three_characters_is_kept_whole():
    assert district_of("车位只售不租", Found("compound", "龙城北区", 0, 0), "万柏林区龙城北区") == "万柏林区"


def test_a_road_named_with_its_number_one_is_a_road():
    assert keys(roads(clean("工业一路与南湾大道交叉口没有左转灯", places=True))) == ["南湾大道+工业一路"]
    assert keys(roads(clean("大家一路上都在堵车", places=True))) == []


def test_two_roads_and_that_crossing_are_a_junction():
    assert keys(roads(clean("新华路和凤凰路那个十字路口积水", places=True))) == ["凤凰路+新华路"]


def test_an_old_village_said_as_its_old_village_or_urban_village_is_the_village():
    assert keys(compounds("大涌旧村的握手楼又在加建")) == keys(compounds("大涌城中村有人加盖楼层")) == ["大涌村"]
    assert keys(compounds("水围村城中村电线乱拉")) == ["水围村"]


def test_a_middle_school_said_short_is_the_middle_school():
    assert keys(schools("蚝乡中门口上学放学时间车辆乱停")) == ["蚝乡中学"]
    assert keys(schools("施工过程中门口很乱")) == []


def test_a_food_shop_named_by_its_dish_is_a_shop():
    assert keys(shops("云溪路的大佬砂锅粥没有安装油烟净化器")) == ["大佬砂锅粥"]


def test_a_hospital_said_short_is_the_hospital():
    assert keys(places("市三院停车场排队")) == keys(places("澜港市第三人民医院门口")) == ["第3人民医院"]
    assert keys(places("金渡人医门口")) == keys(places("金渡区医院门口")) == keys(places("金渡区人民医院门口")) \
        == ["人民医院@金渡区"]
    assert keys(places("榕华妇幼门口")) == keys(places("榕华区妇幼保健院门口")) == ["妇幼保健院@榕华区"]
    assert keys(places("儿童医院门口")) == ["儿童医院"]
