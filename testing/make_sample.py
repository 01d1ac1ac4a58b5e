"""Write dedup_pipeline/data/sample_petitions.csv: about 1,200 synthetic petition (信访) rows.

The pipeline needs a petition table it can ship, run on and demo with, and real petition
data cannot be shared. This script makes one from hand-written complaint templates across
twelve categories (物业管理, 噪音扰民, 拖欠工资, ...), filled from lists of place names,
companies, people, numbers and dates. No corpora, no network, standard library only.

About a quarter of the rows are near-duplicates of another row, made the way real
re-submissions look: a prefix such as "再次反映：", a changed number or date,
full-width/half-width punctuation and spacing, a sentence added or removed, an IME typo, the
same text from another submitter, a reworded title, or a mix of these. A few rows are exact
duplicates. There are also hard negatives (one person filing two different complaints;
different complaints under the same title and category) and edge values (empty titles,
addresses and phones; emoji; full-width Latin letters; one ~3,000-character row with line
breaks; one row containing an HTML <script> tag).

Columns: id,title,name,phone,address,category,created_at,content. Ids follow created_at.
The output is the same on every run (random.Random(2015)); the kind of each generated row
is printed in the summary, not written to the file.

    python testing/make_sample.py
"""

from __future__ import annotations

import csv
import random
import re
import string
from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

SEED = 2015
OUT = Path(__file__).resolve().parent.parent / "dedup_pipeline" / "data" / "sample_petitions.csv"
COLUMNS = ["id", "title", "name", "phone", "address", "category", "created_at", "content"]

TOTAL_ROWS = 1200
NEAR_DUPLICATES = {  # kind -> rows; 300 of 1,200 is the ~25% asked for
    "prefix": 40,
    "changed_number": 40,
    "punct_width": 35,
    "sentence_added": 20,
    "sentence_removed": 20,
    "typo": 35,
    "other_submitter": 40,
    "reworded_title": 30,
    "combined": 40,
}
EXACT_DUPLICATES = 8
SAME_PERSON_OTHER_COMPLAINT = 25
SAME_TITLE_OTHER_COMPLAINT = 25
EMOJI_ROWS = 6
NULL_RATES = {"title": 0.03, "address": 0.04, "phone": 0.03}
CHAIN_RATE = 0.2  # share of near-duplicates made from an earlier near-duplicate (第三次反映...)

START = datetime(2025, 1, 1)
LAST_ORIGINAL = datetime(2026, 11, 30)  # re-submissions come up to 30 days later
END = datetime(2027, 1, 1)


# ---------------------------------------------------------------------------------------
# Slot values
# ---------------------------------------------------------------------------------------

SURNAMES = list("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘"
                "于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江"
                "尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严武戴莫孔向汤")
GIVEN = list("伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰红建国志文斌辉鹏凤梅琴"
             "云飞宇浩然子轩欣怡俊峰海燕春梅德福永庆淑珍秋菊金凤长江玉梅晓东丹丹佳琪")
PHONE_PREFIXES = ["138", "139", "137", "136", "135", "150", "151", "152", "158", "159", "186",
                  "187", "188", "130", "131", "132", "155", "156", "185", "133", "153", "180",
                  "181", "189", "177", "199", "166", "173"]

DISTRICTS = ["城东区", "城西区", "高新区", "经开区", "滨江区", "南湖区", "北山县", "清河县"]
STREETS = ["人民路", "解放路", "建设路", "中山路", "和平街", "新华路", "文化路", "长江路",
           "黄河路", "朝阳路", "迎宾大道", "滨河路", "工业园路", "胜利街", "光明路", "幸福路"]
COMMUNITIES = ["阳光小区", "幸福家园", "锦绣花园", "金色港湾", "翠湖苑", "和谐嘉园", "紫荆花园",
               "书香门第", "丽景湾", "东方名苑", "滨江壹号", "铁路新村", "纺织厂宿舍", "城南新村",
               "桃源居", "御景华庭", "望江苑", "香樟园", "福康小区", "新城家园"]
TOWNS = ["城关镇", "柳林镇", "石门镇", "新庄乡", "河口镇", "白沙镇"]
VILLAGES = ["王家庄村", "李家湾村", "石桥村", "柳树屯村", "东风村", "河口村", "张湾村", "杨树沟村"]
RIVERS = ["清水河", "凤凰河", "护城河", "小清河", "白沙河", "东湖"]
FIRMS = ["恒信", "宏达", "鑫源", "华盛", "永安", "金鼎", "天成", "瑞丰", "鼎盛", "新世纪",
         "顺发", "嘉禾", "安居", "广厦", "中建宏业", "盛世"]
INDUSTRIES = ["化工", "塑料制品", "电子科技", "纺织", "五金制品", "食品加工", "机械制造", "建材"]
EATERIES = ["老王烧烤", "川味小馆", "蜀香火锅", "兰州拉面馆", "好再来饭店", "东北人家",
            "阿强烧烤", "湘村土菜馆", "小龙虾大排档", "胖哥烤鱼"]
SHOPS = ["家家乐超市", "万客隆超市", "惠民生活超市", "好又多购物中心", "联华便利店", "邻里优选超市"]
SCHOOLS = ["第一实验小学", "育才小学", "城南中学", "第三中学", "实验中学", "新华路小学",
           "第八中学", "外国语学校"]
GRADES = ["一年级", "二年级", "三年级", "四年级", "五年级", "六年级", "初一", "初二", "初三", "高一", "高二"]
TRAININGS = ["启航教育", "智慧树培训学校", "未来星少儿英语", "卓越教育", "博学堂",
             "小天才艺术培训中心", "乐思编程", "优才教育"]
COURSES = ["英语课", "数学思维课", "钢琴课", "美术课", "编程课", "舞蹈课", "作文辅导课"]
HOSPITALS = ["市人民医院", "市第二人民医院", "市中医院", "区妇幼保健院", "仁爱医院",
             "康华医院", "城东区人民医院"]
SURGERIES = ["胆囊切除", "阑尾切除", "髋关节置换", "腰椎间盘", "白内障", "甲状腺"]
EXAMS = ["心电图", "CT", "核磁共振", "血常规", "彩超", "肝功能"]
JOBS = ["普工", "质检员", "仓管", "叉车司机", "会计", "电工", "焊工", "销售"]
PROJECTS = ["城南安置房", "滨江商业广场", "实验小学新校区", "人民医院住院楼", "高新区标准化厂房",
            "老旧小区改造", "新城综合体"]
WORKPLACES = ["市民中心", "火车站", "市人民医院", "区政府大楼", "体育中心", "高铁站"]


def person_name(rng: random.Random) -> str:
    given = rng.choice(GIVEN) + (rng.choice(GIVEN) if rng.random() < 0.65 else "")
    return rng.choice(SURNAMES) + given


def phone(rng: random.Random) -> str:
    return rng.choice(PHONE_PREFIXES) + "".join(rng.choice(string.digits) for _ in range(8))


def firm(rng: random.Random, kind: str) -> str:
    return rng.choice(FIRMS) + kind


def month_day(when: datetime) -> str:
    return f"{when.month}月{when.day}日"


def make_slots(rng: random.Random, when: datetime, me: str) -> dict[str, object]:
    """Every slot any template may use, drawn fresh; dates fall shortly before `when`."""
    road, street, street2, road_from, road_to = rng.sample(STREETS, 5)
    floor = rng.randint(1, 28)
    price_old = rng.choice([0.6, 0.8, 1.0, 1.2, 1.5])
    fee_small = rng.randint(3, 12) * 10
    diners = rng.randint(3, 10)
    return {
        "me": me,
        "district": rng.choice(DISTRICTS),
        "street": street, "street2": street2, "road": road,
        "road_from": road_from, "road_to": road_to,
        "community": rng.choice(COMMUNITIES),
        "building": rng.randint(1, 32), "unit": rng.randint(1, 6),
        "room": f"{floor}{rng.randint(1, 4):02d}", "floors": rng.randint(max(11, floor), 33),
        "door_no": rng.randint(1, 999),
        "town": rng.choice(TOWNS), "village": rng.choice(VILLAGES), "group": rng.randint(1, 9),
        "river": rng.choice(RIVERS),
        "wuye": firm(rng, rng.choice(["物业服务有限公司", "物业管理有限公司", "物业"])),
        "company": firm(rng, rng.choice(["建筑工程有限公司", "建设集团", "劳务派遣有限公司", "城建有限公司"])),
        "factory": firm(rng, rng.choice(INDUSTRIES) + "有限公司"),
        "eatery": rng.choice(EATERIES), "shop": rng.choice(SHOPS),
        "school": rng.choice(SCHOOLS), "grade": rng.choice(GRADES),
        "training": rng.choice(TRAININGS), "course": rng.choice(COURSES),
        "hospital": rng.choice(HOSPITALS), "surgery": rng.choice(SURGERIES),
        "exam": rng.choice(EXAMS), "job": rng.choice(JOBS),
        "project": rng.choice(PROJECTS), "workplace": rng.choice(WORKPLACES),
        "person": person_name(rng), "boss": person_name(rng),
        "surname": rng.choice(SURNAMES), "surname2": rng.choice(SURNAMES),
        "date": month_day(when - timedelta(days=rng.randint(1, 60))),
        "month": rng.randint(1, 12), "year": rng.randint(2016, 2023),
        "year_start": rng.randint(2018, 2024),
        "days": rng.randint(3, 45), "days2": rng.randint(3, 20),
        "months": rng.randint(2, 11), "months2": rng.randint(2, 8),
        "times": rng.randint(2, 9), "hours": rng.randint(2, 14), "minutes": rng.randint(15, 50),
        "hour": rng.randint(10, 11), "hour_late": rng.randint(1, 3),
        "decibel": rng.randint(68, 95), "households": rng.randint(3, 60) * 10,
        "copycats": rng.randint(3, 12), "workers": rng.randint(6, 80), "staff": rng.randint(3, 15),
        "amount": rng.randint(8, 400) * 500, "salary": rng.randint(30, 70) * 100,
        "owed": rng.randint(6, 40) * 500,
        "fee": rng.randint(6, 150) * 100, "fee2": rng.randint(15, 60) * 10,
        "fee_small": fee_small, "fee_big": fee_small * rng.randint(4, 15),
        "price_old": f"{price_old:.1f}", "price_new": f"{price_old + rng.choice([0.3, 0.5, 0.8, 1.0]):.1f}",
        "price": f"{rng.choice([0.8, 0.9, 1.0, 1.2, 1.5]):.1f}",
        "price_high": rng.randint(60, 90) * 100, "price_low": rng.randint(25, 55) * 100,
        "area": rng.randint(8, 30) * 10, "storeys": rng.randint(2, 5),
        "pits": rng.randint(8, 40), "lamps": rng.randint(4, 20), "schools": rng.randint(2, 4),
        "lessons": rng.randint(4, 12) * 12, "lessons_done": rng.randint(3, 20),
        "parents": rng.randint(3, 20) * 10, "pigs": rng.randint(3, 30) * 100,
        "voltage": rng.randint(150, 190), "people": rng.randint(2, 5),
        "temp": f"{rng.choice([38.5, 39, 39.5, 40, 40.2])}", "bus": rng.randint(2, 120),
        "diners": diners, "sick": rng.randint(2, diners), "meal": rng.randint(8, 18),
    }


# ---------------------------------------------------------------------------------------
# Complaint templates
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Template:
    """One kind of complaint. A sentence starting with "?" is optional; a tuple is a choice."""

    category: str
    titles: tuple[str, ...]
    sentences: tuple[str | tuple[str, ...], ...]

    def fields(self) -> list[str]:
        parts = list(self.titles)
        for s in self.sentences:
            parts.extend(s if isinstance(s, tuple) else [s])
        return [f for p in parts for _, f, _, _ in string.Formatter().parse(p) if f]


T = Template
TEMPLATES = [
    # 物业管理
    T("物业管理", ("关于{community}物业乱收费的投诉", "{community}物业费上涨问题", "投诉{wuye}违规涨物业费"), (
        "本人是{district}{community}{building}栋{unit}单元的业主。",
        "{date}，{wuye}在没有召开业主大会、没有征得业主同意的情况下，张贴通知把物业费从每平方米{price_old}元上调到{price_new}元。",
        "?物业服务质量一直很差，楼道卫生没人打扫，电梯经常停运，监控形同虚设。",
        "?业主询问涨价依据，物业工作人员态度恶劣，称不交就停水停电。",
        ("请有关部门核查{wuye}的收费是否合规，责令其退还多收的费用。", "希望住建部门介入，制止物业违规涨价。"),
    )),
    T("物业管理", ("{community}{building}栋电梯长期故障无人维修", "电梯坏了没人修", "关于{community}电梯安全隐患的反映"), (
        "{community}{building}栋的电梯从{date}开始就频繁出故障，到现在已经停运{days}天。",
        "这栋楼一共{floors}层，住着不少老人和小孩，每天只能爬楼梯上下，有的老人已经好多天没有下过楼。",
        "?上周还发生过一次电梯困人事件，两名住户被困了将近{minutes}分钟才被救出来。",
        ("业主多次找{wuye}，对方一直以维修资金不到位为由推脱。", "物业说要等维修基金批下来才能修，让我们再等等。"),
        "恳请相关部门督促物业尽快维修电梯，消除安全隐患。",
    )),
    T("物业管理", ("{wuye}侵占小区公共收益", "关于{community}公共收益不公开的投诉", "物业公共收益去向不明"), (
        "{community}的地面停车位、电梯广告和快递柜场地都由{wuye}出租，每年的收益估计不少于{amount}元。",
        "按规定这部分公共收益应当归全体业主所有，但物业从来没有公示过任何账目。",
        "?业主代表{date}书面要求物业公开收支明细，物业至今没有回复。",
        "?还有业主反映物业私自把消防通道划成收费车位，每月收费{fee_small}元。",
        "请求街道和住建部门介入，责令{wuye}公开公共收益账目并依法返还业主。",
    )),
    T("物业管理", ("{community}垃圾堆积无人清理", "小区环境脏乱差，物业不作为", "{community}垃圾站臭气熏天"), (
        "{community}{building}栋旁边的垃圾站已经{days2}天没有清运，垃圾堆得比人还高。",
        "现在天气热，臭味很大，苍蝇蚊子到处都是，住在低层的住户连窗户都不敢开。",
        "?小区里的绿化带还被个别住户毁绿种菜，物业看见了也不管。",
        "给{wuye}打了{times}次电话，每次都说马上处理，结果一直没人来。",
        "希望有关部门督促物业履行职责，尽快把垃圾清理干净。",
    )),
    # 噪音扰民
    T("噪音扰民", ("{community}广场舞噪音扰民", "广场舞音响太吵，严重影响休息", "关于{street}广场舞噪音问题的反映"), (
        "{community}{building}栋楼下的小广场每天晚上都有人跳广场舞，从晚上7点一直跳到{hour}点多。",
        "音响开得非常大，关着窗户在家里都能听到，用手机测了一下有{decibel}分贝。",
        "?家里有今年要参加高考的孩子，根本没法安心复习。",
        "?跟领舞的人沟通过几次，对方不但不降低音量，还说广场是公共的，谁都能用。",
        ("希望{district}城管和派出所出面协调，限定跳舞的时间和音量。", "请有关部门管一管，还居民一个安静的晚上。"),
    )),
    T("噪音扰民", ("{company}夜间施工噪音扰民", "工地晚上施工，吵得没法睡觉", "投诉{street}工地违规夜间施工"), (
        "{street}与{street2}交叉口的工地由{company}承建，近一个月来经常施工到凌晨{hour_late}点。",
        "渣土车进进出出，打桩机的声音震得窗户嗡嗡响。",
        "附近{community}有{households}多户居民，很多老人和孩子整夜睡不着。",
        "?我们{date}打过12345，工地停了两天又照样干。",
        "?据了解，该工地并没有办理夜间施工许可证。",
        "请求环保部门依法查处，禁止夜间违规施工。",
    )),
    T("噪音扰民", ("{eatery}夜间噪音扰民", "楼下烧烤店太吵", "关于{eatery}油烟和噪音问题的投诉"), (
        "{community}{building}栋底商的{eatery}每天营业到凌晨两三点。",
        "客人喝酒划拳、大声喧哗，门口还摆着音箱放歌，楼上的住户根本没法入睡。",
        "?排烟管道直接对着居民楼，油烟也非常严重。",
        "已经向社区和城管反映过{times}次，每次来人检查以后只安静一两天。",
        "请相关部门依法处理，还居民一个安静的居住环境。",
    )),
    T("噪音扰民", ("楼上装修噪音扰民", "{community}住户违规装修扰民", "装修时间不守规定"), (
        "我家住在{community}{building}栋{room}室，楼上住户从{date}开始装修。",
        "每天早上7点不到就开始用电钻砸墙，中午和周末也不休息，已经持续了{days}天。",
        "?物业规定的装修时间是上午8点到12点、下午2点到6点，对方完全不遵守。",
        "?家里老人有心脏病，被吵得整夜睡不好，血压一直降不下来。",
        "找物业协调了{times}次，物业说只能劝说，管不了。",
        "希望有关部门出面制止违规施工。",
    )),
    # 拖欠工资
    T("拖欠工资", ("{company}拖欠农民工工资", "讨要工资，{company}欠薪{months}个月", "农民工讨薪求助"), (
        "我们是{company}承建的{project}项目的农民工，一共{workers}人。",
        "从去年{month}月干到现在，包工头{boss}一直以工程款没结为由拖欠工资，共计{amount}元。",
        "?我们多次到项目部讨要，项目经理避而不见，还叫人把我们赶了出来。",
        "?快过年了，家里老人看病、孩子上学都等着用钱。",
        ("恳请劳动监察部门帮我们讨回血汗钱。", "请政府为我们农民工做主，帮忙追讨工资。"),
    )),
    T("拖欠工资", ("{factory}拖欠工资不发", "离职后工资不结算", "关于{factory}拖欠员工工资的投诉"), (
        "本人于{year_start}年入职{factory}，从事{job}工作。",
        "公司从{month}月份开始就不按时发工资，到现在已经拖欠了{months}个月，共{amount}元。",
        "?我{date}提出离职，公司以各种理由拖着不给结算。",
        "?公司老板{boss}说等厂里资金周转过来再发，但一直没有下文。",
        "请劳动保障监察大队依法责令公司支付工资。",
    )),
    T("拖欠工资", ("{eatery}拖欠员工工资", "不签合同不交社保还拖欠工资", "饭店老板欠薪跑路"), (
        "我在{street}的{eatery}当服务员，干了{months}个月。",
        "老板{boss}当初说好月工资{salary}元、包吃住，结果只发了第一个月的。",
        "?入职的时候没有签劳动合同，也没有给交社保。",
        "现在店里生意不好，老板说要关门，我们{staff}个员工的工资还没有着落。",
        "希望政府帮我们维权。",
    )),
    T("拖欠工资", ("{company}拖欠保洁员工资", "保洁保安工资被拖欠", "外包公司欠薪，甲乙双方互相推诿"), (
        "我们是{company}派到{workplace}的保洁员和保安，大多是五六十岁的人。",
        "公司已经{months2}个月没有发工资，每人被拖欠{owed}元左右，有的人家里就靠这份工资过日子。",
        "?公司负责人说甲方没有付款，甲方说早就付给公司了，两边互相推。",
        "?我们还听说公司要换人，担心换了以后钱更要不回来。",
        "请有关部门查清情况，督促用工单位支付工资。",
    )),
    # 道路维修
    T("道路维修", ("{road}路面坑洼严重", "关于{road}道路破损的反映", "{road}坑太多，请尽快修路"), (
        "{district}{road}从{road_from}到{road_to}这一段路面破损严重，大大小小的坑有{pits}个。",
        "下雨天坑里积水，看不清深浅，{date}晚上有一位骑电动车的老人在这里摔倒受伤。",
        "?这条路是附近{schools}所学校的学生上下学的必经之路，安全隐患很大。",
        "?去年修过一次，没过几个月又坏了，怀疑施工质量有问题。",
        "请求交通部门尽快修复。",
    )),
    T("道路维修", ("{road}路灯不亮", "路灯坏了好几个月没人修", "{community}门口路灯损坏"), (
        "{road}靠近{community}的一段，有{lamps}盏路灯已经坏了{months}个月。",
        "晚上一片漆黑，下晚自习的学生和下夜班的工人走这段路都提心吊胆。",
        "?上个月还听说有人在这里被抢了包。",
        "打过城管热线，答复说已经登记，但一直没人来修。",
        "希望相关部门尽快维修路灯。",
    )),
    T("道路维修", ("{road}施工拖延", "道路施工长期围挡不完工", "{road}管网改造超期"), (
        "{road}的雨污管网改造工程从{date}开工，原定{months2}个月完工，现在早就超期了。",
        "施工围挡占了一半车道，每天早晚高峰堵得水泄不通。",
        "?路边有一个井盖一直没有盖好，只用一块木板挡着，晚上非常危险。",
        "?施工单位{company}的现场几乎看不到工人，工程处于停滞状态。",
        "请相关部门督促施工单位加快进度，并做好安全防护。",
    )),
    # 教育收费
    T("教育收费", ("{school}违规收费", "{school}乱收费问题反映", "关于学校强制收取资料费的投诉"), (
        "我的孩子在{school}读{grade}。",
        "学校一直宣传严格执行义务教育阶段免费政策，可实际上各种收费名目越来越多。",
        "开学时班主任要求每个学生交{fee2}元，名目是资料费和课后服务费，没有开收据。",
        "?学校还要求统一到指定的店里买校服，一套{fee2}元，质量很差。",
        "?家长在群里问收费依据，老师说不交的可以自己想办法。",
        "请教育局核查该校的收费是否合规。",
    )),
    T("教育收费", ("{training}拒不退费", "培训机构跑路，学费退不了", "关于{training}退费纠纷的投诉"), (
        "我{date}在{training}给孩子报了{course}，一次性交了{fee}元，共{lessons}节课。",
        "上了不到{lessons_done}节课，机构就以装修为由停课，后来老师也陆续离职。",
        "?现在机构的门店已经关门，负责人{boss}的电话也打不通。",
        "?和我情况一样的家长有{parents}多个，涉及金额几十万元。",
        "请有关部门帮助追回剩余的学费。",
    )),
    T("教育收费", ("{school}老师有偿补课", "在职教师违规有偿补课", "举报{school}教师办补习班"), (
        "{school}{grade}的{surname}老师在校外开办补习班，每人每月收费{fee2}元。",
        "课堂上讲得很少，很多内容都留到补习班上讲，不参加补习的孩子跟不上。",
        "?老师还在家长群里暗示，不去补习的孩子座位会往后调。",
        "家长们敢怒不敢言，怕孩子被穿小鞋。",
        "请教育局查处在职教师有偿补课的行为。",
    )),
    # 医疗纠纷
    T("医疗纠纷", ("{hospital}医疗事故投诉", "关于{hospital}手术后感染的投诉", "术后感染，医院拒绝提供病历"), (
        "我父亲{date}在{hospital}做了{surgery}手术。",
        "术后出现感染和高烧，医院一开始说是正常反应，拖了{days2}天才转到ICU。",
        "?主刀的{surname}医生术前没有跟家属讲清楚风险，手术同意书上的签字也不是我们签的。",
        "现在我们要求复印病历，医院以各种理由推托。",
        "请求卫健委组织医疗事故鉴定，依法处理。",
    )),
    T("医疗纠纷", ("{hospital}过度检查乱收费", "住院费用清单有问题", "关于{hospital}重复收费的反映"), (
        "我母亲在{hospital}住院{days2}天，出院结算总费用{amount}元。",
        "我们拿到费用清单后发现有很多项目根本没有做过，比如{exam}就收了{times}次。",
        "?还有一些药品的价格比外面药店贵一倍。",
        "找医院医务科反映，对方只说会核查，至今没有答复。",
        "请医保部门核查该院是否存在违规收费。",
    )),
    T("医疗纠纷", ("{hospital}急诊科拖延救治", "医护人员态度恶劣", "投诉{hospital}急诊"), (
        "{date}晚上，我带孩子到{hospital}急诊看病，孩子高烧{temp}度。",
        "挂号以后等了将近{hours}个小时都没有医生接诊，值班护士一直在玩手机。",
        "?去问的时候，护士说医生在休息，让我们自己等着。",
        "后来孩子出现抽搐，我们只好转到别的医院。",
        "请卫健部门调查处理，整顿急诊科的工作作风。",
    )),
    # 环境污染
    T("环境污染", ("{factory}夜间偷排废气", "关于{factory}废气污染的投诉", "工厂气味刺鼻，居民不敢开窗"), (
        "{district}{street}附近的{factory}经常在夜间排放废气，气味刺鼻。",
        "附近{community}的居民晚上根本不敢开窗，不少人出现咳嗽、头晕的症状。",
        "?白天环保检查的时候工厂就停产，检查组一走又开始生产。",
        "?我们{date}晚上拍了视频，烟囱一直冒着黄烟。",
        ("恳请生态环境局突击检查，依法查处。", "请环保部门晚上来现场看看，依法处理。"),
    )),
    T("环境污染", ("{river}水体发黑发臭", "河道污染问题反映", "{river}又被污染了"), (
        "{river}流经{community}的一段，河水发黑发臭，水面上漂着死鱼和垃圾。",
        "沿岸有几个排污口，每天都有污水直接排进河里，怀疑是上游的{factory}排的。",
        "?前几年河道刚整治过，现在又恢复原样了。",
        "请相关部门查清污染来源，尽快治理。",
    )),
    T("环境污染", ("{street}工地扬尘严重", "渣土车沿路撒漏", "关于{company}工地扬尘污染的投诉"), (
        "{street}上{company}的工地扬尘非常严重，没有洒水，也没有覆盖防尘网。",
        "每天都有几十辆渣土车进出，沿路撒漏泥土，车辆一过尘土飞扬，附近居民晾在外面的衣服一会儿就落满一层灰。",
        "?附近{school}的孩子课间都不敢在操场上活动。",
        "?渣土车还经常闯红灯、超速行驶，已经发生过{times}次刮擦。",
        "请城管和环保部门加强监管。",
    )),
    T("环境污染", ("{village}养猪场臭气熏天", "养殖场污染问题", "举报{village}养殖场乱排粪污"), (
        "{district}{town}{village}有一家养猪场，存栏{pigs}多头。",
        "养殖场的粪污不经处理直接排到旁边的沟渠和农田里，周边几百米都能闻到臭味。",
        "?夏天苍蝇成群，村民家里饭都没法吃。",
        "?村民跟养殖场老板{boss}交涉过，对方说有镇里的批文。",
        "请求环保部门核查该养殖场的手续，责令整改。",
    )),
    # 违章建筑
    T("违章建筑", ("{community}{building}栋楼顶违建", "顶楼住户私搭乱建", "关于{community}违章建筑的举报"), (
        "{community}{building}栋顶楼的住户在楼顶私自加盖了一层彩钢房，面积约{area}平方米。",
        "施工时把楼顶的防水层破坏了，现在顶楼下面几户一下雨就漏水。",
        "?加盖的房子还堵住了楼顶的消防通道。",
        "我们向物业和城管反映过，城管来看过一次就再也没有消息。",
        "请求依法拆除违章建筑。",
    )),
    T("违章建筑", ("一楼住户圈占绿地", "{community}一楼私建院墙", "小区公共绿地被侵占"), (
        "{community}{building}栋一楼的住户把门前的公共绿地圈起来，建了围墙和阳光房。",
        "?还往下挖了地下室，不知道会不会影响楼体安全。",
        "其他业主去问，对方说一楼的绿地是开发商送的，花了钱买的，谁也管不着。",
        "现在小区里已经有{copycats}户在效仿。",
        "请城管执法部门依法查处。",
    )),
    T("违章建筑", ("{village}有人在耕地上建房", "占用耕地违法建房", "举报{village}违法占地"), (
        "{district}{town}{village}的村民{person}在基本农田上违法建了一栋{storeys}层楼房。",
        "那块地原来是村里的口粮田，去年秋天他家突然拉来钢筋水泥，没几个月楼就盖起来了。",
        "村里和镇里都知道这件事，但一直没有人管。",
        "?听说他家有亲戚在镇上工作。",
        "?现在村里有人跟着学，也开始在地里打地基。",
        "请求自然资源部门依法查处。",
    )),
    # 供水供电
    T("供水供电", ("{community}频繁停水", "小区停水不通知", "关于{community}供水问题的反映"), (
        "{community}从{date}起已经停水{times}次，每次停水都没有提前通知。",
        "最长的一次停了{hours}个小时，老人小孩连饭都做不了。",
        "?来水之后水是黄的，还有异味，不敢喝。",
        "打自来水公司电话，说是小区二次供水设施的问题归物业管；物业又说是自来水公司的事。",
        "请有关部门协调解决。",
    )),
    T("供水供电", ("{village}电压不稳", "频繁停电，家电被烧坏", "农村电网改造问题"), (
        "{district}{town}{village}这一片经常停电，夏天用电高峰的时候电压只有{voltage}伏左右。",
        "空调根本开不起来，冰箱也坏了好几台。",
        "?{date}晚上又停电，一直到第二天中午才来电。",
        "村民多次向供电所反映，说是变压器容量不够，但一直没有增容。",
        "请求供电公司尽快改造线路、更换变压器。",
    )),
    T("供水供电", ("水费异常偏高", "{community}水费突然上涨", "水表计量有问题"), (
        "我家住在{community}{building}栋{room}室，家里只有{people}口人。",
        "平时每月水费{fee_small}元左右，{month}月份突然收了{fee_big}元。",
        "我们一家人那个月有一半时间回老家了，家里基本没人用水，这个数字明显不对。",
        "?找物业查水表，物业说表没问题，让我们自己找漏点。",
        "?家里请人查过，没有任何漏水的地方。",
        "请求自来水公司上门核查，合理收费。",
    )),
    T("供水供电", ("{wuye}转供电加价", "物业加价收取电费", "关于{community}电费收费标准的反映"), (
        "{community}的电是由{wuye}转供的，物业按每度{price}元收取电费。",
        "国家规定的居民电价是每度五毛多，物业多收的部分不知道去了哪里。",
        "?业主要求物业出示供电局的电费单据，物业一直拿不出来。",
        "?物业还规定电费必须和物业费一起交，不交就停电。",
        "请发改委和市场监管部门核查，依法纠正。",
    )),
    # 交通出行
    T("交通出行", ("{bus}路公交车改线后出行不便", "请求恢复{bus}路公交线路", "{community}附近没有公交车了"), (
        "{bus}路公交车{date}起调整线路，不再经过{community}。",
        "小区有{households}多户居民，现在走到最近的公交站要{minutes}分钟，中间还要穿过一条没有红绿灯的大路。",
        "?很多老人去医院看病只能打车，一个来回要{fee_small}元。",
        "请公交公司考虑居民的实际困难，恢复原线路或者增加站点。",
    )),
    T("交通出行", ("{road}路口需增设红绿灯", "{road}与{street2}交叉口事故多发", "路口没有红绿灯，太危险"), (
        "{road}与{street2}交叉口没有红绿灯，车流量大，车速很快。",
        "今年以来这个路口已经发生了{times}起交通事故，{date}还有一位老人被撞伤。",
        "?路口旁边就是{school}，每天上学放学的时候家长和孩子过马路非常危险。",
        "请交警部门尽快在该路口增设信号灯和斑马线。",
    )),
    T("交通出行", ("{street}占道停车严重", "人行道被车辆占满", "路边私设地锁收停车费"), (
        "{street}两侧的人行道上长期停满了车辆，行人只能走机动车道。",
        "推婴儿车的、坐轮椅的根本过不去，盲道也全被车压着，前几天还有老人被过往车辆剐蹭。",
        "?有些车一停就是好几天，像是在这里长期存放。",
        "附近商户还私自在路边装了地锁，向停车的人收费{fee_small}元。",
        "请交警和城管部门加强管理。",
    )),
    # 食品安全
    T("食品安全", ("{eatery}食品卫生问题", "在{eatery}吃饭后集体腹泻", "举报{eatery}使用过期食材"), (
        "{date}中午，我和同事{diners}人在{street}的{eatery}吃饭。",
        "当天晚上大家都出现了腹痛、腹泻和呕吐的症状，其中{sick}人到{hospital}输液。",
        "?我们回去找店家，老板不承认是饭菜的问题，只愿意退饭钱。",
        "?后来听附近的人说，这家店后厨很脏，还用过期的食材。",
        "请市场监管部门对该店进行检查，依法处理。",
    )),
    T("食品安全", ("{shop}销售过期食品", "超市卖过期商品", "关于{shop}过期食品的举报"), (
        "我在{shop}买了一箱牛奶，回家以后发现已经过期{days}天。",
        "孩子已经喝了两盒，当天晚上就肚子疼，带去社区医院看了一次。",
        "找超市理论，工作人员说可以换一箱，但不愿意按规定赔偿。",
        "?我看货架上还有好几种过期的面包和饮料在卖。",
        "请市场监管部门查处。",
    )),
    T("食品安全", ("{school}食堂饭菜质量差", "学校食堂卫生问题", "关于{school}食堂的投诉"), (
        "我的孩子在{school}住校，最近多次说学校食堂的饭菜里吃出了虫子和头发。",
        "一顿饭收{meal}元，菜量却很少，基本看不到肉，孩子经常饿着肚子上晚自习，只能去校外小卖部买零食。",
        "?食堂是承包给{company}经营的，听说和学校领导有关系。",
        "?{date}有{sick}个学生吃完午饭后拉肚子，学校没有通知家长。",
        "请教育局和市场监管部门联合检查。",
    )),
    # 拆迁补偿
    T("拆迁补偿", ("{village}拆迁补偿款未到位", "拆迁补偿款被拖欠", "关于{project}征收补偿的反映"), (
        "{district}{town}{village}的房屋于{year}年被纳入{project}项目征收范围。",
        "我家{area}平方米的房子已经拆除，按照协议应补偿{amount}元，到现在只拿到一部分。",
        "?安置房原定{months}个月交房，现在连地基都还没打。",
        "?我们每月的过渡费也已经{months2}个月没有发放。",
        "恳请政府督促落实补偿款和过渡费。",
    )),
    T("拆迁补偿", ("{village}强拆问题", "未签协议房屋被强拆", "关于{company}暴力拆迁的投诉"), (
        "{date}凌晨，一伙身份不明的人开着挖掘机到{district}{town}{village}我家，把还没签协议的房子推倒了。",
        "家里的家具、电器和粮食都埋在里面，老人被拖出来的时候受了伤。",
        "?我们报了警，派出所来人看了一下就走了。",
        "?据说这些人是{company}找来的。",
        "请求有关部门彻查，依法追究相关人员的责任。",
    )),
    T("拆迁补偿", ("{village}拆迁补偿标准不一", "拆迁补偿不公平", "同村同房不同价"), (
        "同样是{village}的房子，邻居{person}家每平方米补偿{price_high}元，我家只给{price_low}元。",
        "拆迁办工作人员说我家的房子是违建，但我们有{year}年办的宅基地证。",
        "?不签协议就不给安排安置房，还说以后要断水断电。",
        "请求公开补偿标准，公平对待每一户。",
    )),
]

CATEGORY_TITLES = {  # short generic titles, shared by different complaints in one category
    "物业管理": ["物业问题投诉", "投诉物业"],
    "噪音扰民": ["噪音扰民", "噪音问题"],
    "拖欠工资": ["讨薪", "拖欠工资"],
    "道路维修": ["道路问题反映", "修路"],
    "教育收费": ["教育乱收费", "学校收费问题"],
    "医疗纠纷": ["医疗纠纷", "投诉医院"],
    "环境污染": ["环境污染举报", "污染问题"],
    "违章建筑": ["举报违章建筑", "违建"],
    "供水供电": ["水电问题", "停水停电"],
    "交通出行": ["交通问题", "出行难"],
    "食品安全": ["食品安全举报", "食品安全问题"],
    "拆迁补偿": ["拆迁补偿问题", "拆迁纠纷"],
}
GENERIC_TITLE_RATE = 0.12
WORDY_RATE = 0.15
OPENERS = ["尊敬的领导：", "领导您好！", "您好！", "尊敬的市长：", "我要投诉："]
CLOSERS = ["谢谢！", "盼复。", "望尽快处理，谢谢！", "请尽快给予答复。", "反映人：{me}。"]
EXTRA_SENTENCES = [  # what people add when they write the same complaint again
    "此前已经多次拨打12345热线反映，至今没有得到解决。",
    "社区工作人员来看过一次，之后就没有下文了。",
    "现场照片和视频都已经保存，需要的话可以提供。",
    "希望领导能够重视，给老百姓一个说法。",
    "如果再得不到解决，我们只能继续往上反映。",
    "请尽快安排人员到现场核实情况。",
    "这个问题已经拖了很久，群众意见很大。",
    "上次的答复说正在处理，可是到现在什么都没有变。",
]
PREFIXES = ["再次反映：", "第三次反映 ", "第三次反映：", "紧急！", "紧急！！", "【重复投诉】",
            "第二次反映，", "再次投诉：", "多次反映无果，再次反映：", "【再次反映】"]
EMOJI = ["😡", "😡😡😡", "🙏🙏", "😭", "😤", "🙏"]
# Wrong characters a pinyin IME gives for the same syllable.
TYPOS = {"已": "以", "在": "再", "再": "在", "的": "得", "理": "里", "决": "绝", "诉": "述",
         "映": "应", "做": "作", "进": "近", "题": "提", "工": "公", "部": "步", "门": "们",
         "时": "是", "求": "球", "请": "清", "电": "店", "修": "休", "情": "清", "处": "出",
         "费": "废", "反": "返", "到": "倒", "管": "馆", "至": "止"}


# ---------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------

@dataclass
class Petition:
    title: str
    name: str
    phone: str
    address: str
    category: str
    created_at: datetime
    content: str
    template: Template
    slots: dict[str, object]
    kind: str = "original"
    keep_fields: bool = False  # a hard case whose name/phone/title must not be blanked

    def row(self, id_: int) -> list[object]:
        return [id_, self.title, self.name, self.phone, self.address, self.category,
                self.created_at.isoformat(timespec="seconds"), self.content]


def random_time(rng: random.Random, start: datetime, end: datetime) -> datetime:
    return start + timedelta(seconds=rng.randrange(int((end - start).total_seconds())))


def make_address(rng: random.Random, template: Template, slots: dict[str, object]) -> str:
    """The submitter's address: a flat in a community, or a house in a village."""
    if "village" in template.fields():
        return "{district}{town}{village}{group}组{door_no}号".format_map(slots)
    if "community" in template.fields() and rng.random() < 0.8:
        return "{district}{street}{door_no}号{community}{building}栋{unit}单元{room}室".format_map(slots)
    # Complaints about a road, school or hospital come from people living anywhere.
    return "{}{}{}号{}{}栋{}单元{}室".format(
        rng.choice(DISTRICTS), rng.choice(STREETS), rng.randint(1, 999), rng.choice(COMMUNITIES),
        rng.randint(1, 32), rng.randint(1, 6), f"{rng.randint(1, 28)}{rng.randint(1, 4):02d}")


def render_content(rng: random.Random, template: Template, slots: dict[str, object]) -> str:
    """The complaint text, 80 to 600 characters; some writers say everything, some little."""
    while True:
        wordy = rng.random() < WORDY_RATE
        parts = []
        for s in template.sentences:
            if isinstance(s, tuple):
                s = rng.choice(s)
            if s.startswith("?"):
                if not wordy and rng.random() < 0.4:
                    continue
                s = s[1:]
            parts.append(s)
        if wordy:  # background before the closing request
            parts[-1:-1] = rng.sample(EXTRA_SENTENCES, rng.randint(1, 3))
        if wordy or rng.random() < 0.3:
            parts.insert(0, rng.choice(OPENERS))
        if wordy or rng.random() < 0.3:
            parts.append(rng.choice(CLOSERS))
        text = "".join(parts).format_map(slots)
        if 80 <= len(text) <= 600:
            return text


def new_petition(rng: random.Random, template: Template, **overrides: object) -> Petition:
    """A fresh complaint from `template`; `overrides` replace slot values."""
    created = random_time(rng, START, LAST_ORIGINAL)
    name = person_name(rng)
    slots = make_slots(rng, created, name) | overrides
    if rng.random() < GENERIC_TITLE_RATE:
        title = rng.choice(CATEGORY_TITLES[template.category])
    else:
        title = rng.choice(template.titles).format_map(slots)
    return Petition(title=title, name=name, phone=phone(rng),
                    address=make_address(rng, template, slots), category=template.category,
                    created_at=created, content=render_content(rng, template, slots),
                    template=template, slots=slots)


def long_petition(rng: random.Random) -> Petition:
    """A ~3,000-character letter with line breaks: a demolition case told date by date."""
    unpaid = next(t for t in TEMPLATES if "拆迁补偿款被拖欠" in t.titles)
    p = new_petition(rng, unpaid, year=2021, company=firm(rng, "房地产开发有限公司"))
    s = p.slots
    offices = ["街道办", "区征收办", "区信访局", "市信访局", "区住建局", "区政府", "镇政府"]
    replies = ["正在走程序，让回家等通知", "资金还没有拨下来", "这件事不归他们管，让去找开发商",
               "领导出差了，等回来再说", "已经报上去了，很快就会有结果", "要等审计结束以后才能发放"]
    recurring = [
        "{d}，我到{office}反映补偿款的问题，工作人员答复说{reply}。",
        "{d}，我拨打12345热线，工单编号{ticket}，{n}天后收到回复，称{reply}。",
        "{d}，我和同村{n}户村民一起到{office}，接待的同志做了登记，让我们回去等消息。",
        "{d}，我给{office}寄了一封信，附上了协议复印件和收款凭证，没有任何回音。",
    ]
    once = [
        "{d}，开发商{company}的人到我家，要求我先签一份补充协议，说签了就先付一半，我没有签。",
        "{d}，村里开会，说补偿款年底前一定到位，结果还是没有动静。",
        "{d}，我母亲因为住在临时租的房子里受凉生病，住院花了{money}元，都是借的。",
        "{d}，听说同村有几户托了关系，补偿款已经全额拿到了，我们去问，拆迁办说没有这回事。",
        "{d}，区里来了一个工作组，开了座谈会，记下了我们的问题，之后再也没有人来过。",
        "{d}，我到{company}的售楼处找负责人，保安不让进门，还推了我一把。",
        "{d}，安置房工地又停工了，工人说是开发商欠了他们的工钱。",
        "{d}，镇里通知我们去领补偿款，到了以后说只能先领一万元，还要签字保证以后不再上访，我没有签。",
    ]
    rng.shuffle(once)
    lines = [
        "尊敬的领导：",
        "我叫{me}，是{district}{town}{village}{group}组的村民。我家的房屋于{year}年被纳入{project}"
        "项目征收范围，面积{area}平方米，按照协议应补偿{amount}元，到现在只拿到了一小部分。"
        "下面把这几年反映问题的经过详细写一下，请领导看完。".format_map(s),
    ]
    day, previous = datetime(2021, 3, 1), ""
    while sum(map(len, lines)) < 2850:
        day += timedelta(days=rng.randint(20, 45))
        if once and rng.random() < 0.3:
            event = once.pop()
        else:
            event = rng.choice([e for e in recurring if e != previous])
        previous = event
        lines.append(event.format(
            d=f"{day.year}年{day.month}月{day.day}日", office=rng.choice(offices),
            reply=rng.choice(replies), ticket=rng.randint(10**9, 10**10 - 1),
            n=rng.randint(3, 20), company=s["company"], money=rng.randint(20, 90) * 100))
    lines.append("我们全家现在还租房住，每个月房租{}元，过渡费也{}个月没有发了。恳请领导督促有关部门"
                 "尽快把补偿款和过渡费落实到位，给我们老百姓一个说法。".format(s["fee_small"] * 10, s["months2"]))
    lines.append("此致\n敬礼！\n反映人：{me}".format_map(s))
    p.content = "\n".join(lines)
    p.title = "关于{village}拆迁补偿款多年未到位的情况反映".format_map(s)
    p.created_at = day + timedelta(days=rng.randint(7, 40), seconds=rng.randrange(86400))
    assert START <= p.created_at <= LAST_ORIGINAL, p.created_at  # the story spans ~5 years
    return p


# ---------------------------------------------------------------------------------------
# Near-duplicate edits. Each takes a copy of a petition and changes it in place.
# ---------------------------------------------------------------------------------------

SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
# A number that a re-submission would plausibly change: amounts, counts, durations, dates.
# Building, unit and room numbers (栋/单元/室/号) are left alone.
NUMBER = re.compile(r"\d+(?:\.\d+)?(?=元|天|个|次|人|户|小时|分钟|分贝|盏|节|平方米|度|伏|头|多|月|日|点|层|所)")
HALF = str.maketrans("，。：；！？（）“”", ",.:;!?()\"\"")
FULL = {c: chr(ord(c) + 0xFEE0) for c in string.digits + string.ascii_letters}


def sentences(text: str) -> list[str]:
    return SENTENCE.findall(text)


def add_prefix(rng: random.Random, p: Petition) -> bool:
    prefix = rng.choice(PREFIXES)
    p.content = prefix + p.content
    if rng.random() < 0.4:
        p.title = prefix.strip("：， ") + "：" + p.title
    return True


def change_number(rng: random.Random, p: Petition) -> bool:
    matches = list(NUMBER.finditer(p.content))
    if not matches:
        return False
    m = rng.choice(matches)
    old, unit = m.group(), p.content[m.end():m.end() + 2]
    if "." in old:
        new = f"{float(old) + rng.choice([0.2, 0.3, 0.5]):.1f}"
    elif unit[0] in "月日点" and not p.content[:m.start()].endswith("个"):
        top = {"月": 12, "日": 28, "点": 12}[unit[0]]
        new = str(rng.choice([v for v in range(1, top + 1) if v != int(old)]))
    else:
        v = int(old)
        step = 10 ** max(0, len(old) - 2)  # 12000 -> 12000±1000s, 35 -> 35±1s
        new = str(max(1, v + rng.choice([-3, -2, -1, 1, 2, 3]) * step))
        if new == old:
            new = str(v + step)
    p.content = p.content[:m.start()] + new + p.content[m.end():]
    return True


def change_width(rng: random.Random, p: Petition) -> bool:
    """Retype the text on another keyboard/IME setting; NFKC folds most of it back."""
    how = rng.choice(["half_punct", "full_alnum", "spaces", "indent"])
    text = p.content
    if how == "half_punct":
        text = text.translate(HALF)
        if rng.random() < 0.5:
            text = re.sub(r"([,.;:!?])(?=\S)", r"\1 ", text)
    elif how == "full_alnum":
        text = "".join(FULL.get(c, c) for c in text).replace(" ", "\u3000")
    elif how == "spaces":
        text = re.sub(r"(\d+(?:\.\d+)?)", r" \1 ", text)
    else:  # a letter typed in a word processor: two ideographic spaces, a trailing space
        text = "\u3000\u3000" + text.translate(HALF if rng.random() < 0.5 else {}) + " "
    if text == p.content:
        return False
    p.content = text
    return True


def add_sentence(rng: random.Random, p: Petition) -> bool:
    parts = sentences(p.content)
    # Before the last sentence, which is usually the request ("请...依法处理").
    extra = rng.choice([s for s in EXTRA_SENTENCES if s not in p.content])
    parts.insert(rng.randint(1, max(1, len(parts) - 1)), extra)
    p.content = "".join(parts)
    return True


def remove_sentence(rng: random.Random, p: Petition) -> bool:
    parts = sentences(p.content)
    if len(parts) < 4:
        return False
    del parts[rng.randint(1, len(parts) - 2)]
    p.content = "".join(parts)
    return True


def add_typos(rng: random.Random, p: Petition) -> bool:
    spots = [i for i, c in enumerate(p.content) if c in TYPOS]
    if not spots:
        return False
    chars = list(p.content)
    for i in rng.sample(spots, min(len(spots), rng.randint(1, 2))):
        chars[i] = TYPOS[chars[i]]
    p.content = "".join(chars)
    return True


def reword_title(rng: random.Random, p: Petition) -> bool:
    options = [t.format_map(p.slots) for t in p.template.titles]
    options += CATEGORY_TITLES[p.category]
    options += [p.title.replace("投诉", "反映"), p.title.replace("反映", "投诉"),
                p.title + "，请尽快解决", "关于" + p.title + "的问题",
                re.sub(r"^关于(.+)的(投诉|反映|举报)$", r"\1", p.title)]
    options = [t for t in options if t and t != p.title]
    p.title = rng.choice(options)
    return True


def other_submitter(rng: random.Random, p: Petition) -> bool:
    """A neighbour files the same text: new name, phone and flat, same content."""
    p.name, p.phone = person_name(rng), phone(rng)
    slots = p.slots | {"door_no": rng.randint(1, 999), "unit": rng.randint(1, 6),
                       "room": f"{rng.randint(1, 28)}{rng.randint(1, 4):02d}",
                       "group": rng.randint(1, 9)}
    p.address = make_address(rng, p.template, slots)
    return True


EDITS = {
    "prefix": add_prefix,
    "changed_number": change_number,
    "punct_width": change_width,
    "sentence_added": add_sentence,
    "sentence_removed": remove_sentence,
    "typo": add_typos,
    "other_submitter": other_submitter,
    "reworded_title": reword_title,
}
# Order matters when several are combined: structure first, retyping last.
COMBINABLE = ["reworded_title", "sentence_added", "sentence_removed", "changed_number",
              "prefix", "typo", "punct_width"]


def near_duplicate(rng: random.Random, source: Petition, kind: str) -> Petition | None:
    p = replace(source, kind=kind, keep_fields=False)
    # An hour to 30 days later; a copy of a copy made late in 2026 still stays in 2026.
    room = int((END - source.created_at).total_seconds()) - 1
    p.created_at = source.created_at + timedelta(seconds=rng.randint(min(3600, room), min(30 * 86400, room)))
    if kind != "combined":
        return p if EDITS[kind](rng, p) else None
    chosen = rng.sample(COMBINABLE, rng.randint(2, 3))
    done = [k for k in COMBINABLE if k in chosen and EDITS[k](rng, p)]
    return p if len(done) >= 2 else None


# ---------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------

def build(rng: random.Random) -> tuple[list[Petition], Counter[str]]:
    stats: Counter[str] = Counter()
    base_count = (TOTAL_ROWS - sum(NEAR_DUPLICATES.values()) - EXACT_DUPLICATES
                  - SAME_PERSON_OTHER_COMPLAINT - SAME_TITLE_OTHER_COMPLAINT - 3)
    rows = [new_petition(rng, rng.choice(TEMPLATES)) for _ in range(base_count)]

    # Hard negatives: similar metadata, different complaints.
    for _ in range(SAME_PERSON_OTHER_COMPLAINT):
        other = rng.choice(rows)
        p = new_petition(rng, rng.choice([t for t in TEMPLATES if t is not other.template]))
        p.name, p.phone, p.kind, p.keep_fields = other.name, other.phone, "same_person_other_complaint", True
        if rng.random() < 0.7:
            p.address = other.address
        rows.append(p)
    # A generic title ("投诉物业") is one that different complaints really do share.
    generic = [p for p in rows[:base_count] if p.title in CATEGORY_TITLES[p.category]]
    for _ in range(SAME_TITLE_OTHER_COMPLAINT):
        other = rng.choice(generic)
        siblings = [t for t in TEMPLATES if t.category == other.category and t is not other.template]
        p = new_petition(rng, rng.choice(siblings))
        p.title, p.kind, p.keep_fields = other.title, "same_title_other_complaint", True
        other.keep_fields = True
        rows.append(p)

    # Edge values.
    for p in rng.sample(rows[:base_count], EMOJI_ROWS):
        if rng.random() < 0.3:
            p.title += rng.choice(EMOJI)
        else:
            p.content += rng.choice(EMOJI)
        stats["emoji"] += 1
    training = next(t for t in TEMPLATES if "{training}拒不退费" in t.titles)
    abc = new_petition(rng, training, training="ＡＢＣ少儿英语培训中心")
    abc.title, abc.kind = "ＡＢＣ少儿英语培训中心拒不退费", "fullwidth_latin"
    script = new_petition(rng, rng.choice(TEMPLATES))
    script.content += "<script>alert(1)</script>"
    script.kind = "html_script"
    long = long_petition(rng)
    long.kind = "long"
    for p in (abc, script, long):
        p.keep_fields = True
    rows += [abc, script, long]

    # Near-duplicates; some are made from an earlier one, as a third submission would be.
    originals = list(rows)
    copies: list[Petition] = []
    plan = [kind for kind, n in NEAR_DUPLICATES.items() for _ in range(n)]
    rng.shuffle(plan)
    for kind in plan:
        while True:
            pool = copies if copies and rng.random() < CHAIN_RATE else originals
            source = rng.choice(pool)
            if source.kind == "long":  # keep the one long row unique
                continue
            p = near_duplicate(rng, source, kind)
            if p is not None:
                copies.append(p)
                break
    rows += copies

    # Blank cells, as in rows typed in by hand at a reception desk.
    for p in rows:
        if p.keep_fields:
            continue
        for column, rate in NULL_RATES.items():
            if rng.random() < rate:
                setattr(p, column, "")
                stats[f"null_{column}"] += 1

    # Exact duplicates: the same form submitted twice.
    for source in rng.sample([p for p in rows if p.kind != "long"], EXACT_DUPLICATES):
        rows.append(replace(source, kind="exact_duplicate"))

    rows.sort(key=lambda p: p.created_at)  # stable: an exact duplicate follows its source
    stats.update(p.kind for p in rows)
    return rows, stats


def main() -> None:
    rng = random.Random(SEED)
    rows, stats = build(rng)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        for i, p in enumerate(rows, start=1):
            writer.writerow(p.row(i))

    near = sum(stats[k] for k in NEAR_DUPLICATES)
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes, {len(rows)} rows)")
    print(f"near-duplicates: {near} ({near / len(rows):.0%}), exact duplicates: {stats['exact_duplicate']}")
    for kind in [*NEAR_DUPLICATES, "exact_duplicate", "same_person_other_complaint",
                 "same_title_other_complaint", "emoji", "fullwidth_latin", "html_script", "long",
                 *(f"null_{c}" for c in NULL_RATES)]:
        print(f"  {kind:28} {stats[kind]}")


if __name__ == "__main__":
    main()
