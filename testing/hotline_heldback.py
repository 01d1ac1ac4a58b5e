"""The HELD-BACK labelled 12345-hotline table (issue 52): the matters method is judged on it
and never tuned on it. Written from the rules of a matter alone, by someone who never read
testing/hotline.py nor the method.

How it is made. A fictional city (江城) is drawn from the seed: eight districts, forty roads
(twelve main roads each crossed by five streets in order, giving intersections and the
stretches between them), 165 compounds of 4-32 buildings, ~90 companies (more for the hard
negatives), sites, bus stops, schools, markets and prepaid-card shops, each with its surface
forms (3号楼 / 三号楼 / 3栋 / 3#楼 / 3幢 / full-width ３号楼; a compound with or without 小区 or
its district, or by its bare stem; a company's registered name, its short name,
"金融路那边的永兴公司"; both orders of an intersection and the colloquial 中山人民路口).
Then *groups* are planned: one group is one (object, problem, episode), 19 problem kinds each
tied to a kind of object, its rows within a window of days (heating only in the two winters).
Each person of a group writes their own row: a random mix of an opener or an operator's
summary (来电人反映：...), who they are, the object in one of its forms (for residents
sometimes only in the address field), the problem in their words (a dozen-plus phrasings per
kind, each with spun alternatives and the writer's own numbers), details, a consequence, a
request, a closing; titles short, mostly generic or naming the problem. Some people file again (再次反映 ..., the same or new words);
in some large groups several people send one form letter. Digits of either width, half-width
punctuation, homophone typos.

The truth follows from construction: a group becomes a matter when it has two or more
distinct persons, else its rows have matter None; policy questions (医保报销比例, 落户政策,
公积金提取, 社保转移, ... with no object, some naming the asker's employer or compound) are
None however many ask. No two groups share an (object, problem) within 75 days, so a lone
complaint never silently belongs to a planned matter.

Why it is hard. Text similarity groups topics, not matters: hundreds of heating rows share
the kind's wording, while one matter's rows share little beyond the object's name. Hard
negatives, as made at the default 8,000 rows and seed 7 (planned counts scale with `rows`; a
planned set falls away when its object and problem are already taken), every side a matter
of two or more people unless said otherwise:

- 28 sets of sibling buildings (2-3 buildings of one compound, one problem, starting within
  four days of each other);
- 14 pairs of companies with similar names (永兴建材 / 永兴物流), one problem, overlapping;
- 10 pairs of one company name in two districts (the bare short name sometimes all a row gives);
- 10 pairs of adjacent intersections on one main road, one problem, overlapping;
- 9 pairs of adjacent stretches of one road (they share an end), one problem, overlapping;
- 24 objects with two problems at once (wages and social insurance, noise and dust, ...);
- 21 objects with one problem in two episodes 100+ days apart (last and this winter's heating);
- 220 one-person issues naming an object, 1-3 re-submissions each (matter None);
- 640 policy-question rows (matter None);
- ~50 residents who write in two different matters of their compound (same name, phone, address).
Form letters (one text, several senders) and re-submissions belong to their matter.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

START, END = datetime(2024, 11, 1), datetime(2026, 4, 30, 22, 0)
WINTERS = [(datetime(2024, 11, 15), datetime(2025, 3, 5)), (datetime(2025, 11, 15), datetime(2026, 3, 5))]
EPISODE_GAP = 75  # days between two groups of one (object, problem); two episodes are 100+ apart
CITY = "江城"

# ------------------------------------------------------------------ vocabulary: the city

DISTRICTS = ["东湖区", "西岭区", "南浦区", "北塘区", "江滨区", "高新区", "临江区", "青山区"]
ROADS = ["中山路", "人民路", "解放路", "建设路", "文化路", "长江路", "黄河路", "新华路", "和平路", "胜利路",
         "光明路", "青年路", "工业路", "学府路", "金融路", "朝阳路", "东风路", "五一路", "红旗路", "友谊路",
         "健康路", "迎宾路", "滨河路", "育才路", "纬二路", "经三路", "团结路", "振兴路", "花园路", "北环路",
         "南环路", "机场路", "兴业路", "科技路", "桃园路", "松山路", "凤凰路", "龙江路", "翠柳街", "银杏大道"]
STEMS = ["锦绣", "翠湖", "丽景", "阳光", "金桂", "紫荆", "滨江", "康乐", "怡和", "书香", "枫林", "梧桐", "东方", "春晖", "明珠", "水岸", "绿洲", "盛世",
         "御景", "天润", "南湖", "北辰", "清水", "龙湖", "碧水", "金域", "香榭", "玉兰", "海棠", "桂园", "荷塘", "柳岸", "松鹤", "鹤鸣", "凤鸣", "嘉和",
         "嘉禾", "新城", "世纪", "时代", "悦澜", "澜湾", "星河", "星光", "半岛", "凯旋", "帝景", "君悦", "瑞景", "祥和", "福润", "万和", "永安", "长乐",
         "安居", "乐居", "宜居", "颐和", "静园", "文苑", "博雅", "翰林", "书院", "金色", "银河", "蓝湾", "绿城", "青城", "红星", "旭日", "曙光", "晨曦",
         "锦江", "锦华", "富康", "富丽", "金鼎", "金泰", "泰和", "恒昌", "鸿福", "鸿运", "宏图", "兴隆", "裕华", "裕丰", "丰泽", "润泽", "沁园", "芳园",
         "芳草", "百合", "丁香", "紫薇", "杏林", "桃源", "梅园", "竹园", "兰亭", "雅苑", "逸景", "水榭", "清风", "明月", "秋实", "春华", "冬青", "夏都",
         "南岸", "北岸", "江畔", "河畔", "湖畔", "山水", "云顶", "云栖", "天玺", "天成", "天悦", "龙苑", "凤苑", "麒麟", "紫金", "金地", "望江", "观澜",
         "听涛", "揽月", "映山", "青枫", "翠竹", "碧桂", "金茂", "融景", "华庭", "华章", "锦苑", "馨园", "馨港", "康城", "和谐", "幸福", "温馨", "安康",
         "平安", "吉祥", "如意", "朝晖", "彩虹", "白鹭", "天鹅", "黄鹂", "喜鹊", "百花", "牡丹", "芙蓉", "茉莉", "蔷薇", "石榴", "樱花", "香樟", "银桦",
         "红枫", "蓝天", "白云", "青山", "绿水", "秀水", "锦程", "鹏程", "远洋", "滨海", "东城", "西城", "南城", "北城", "中心", "新都", "新港", "港湾"]
OLD_STEMS = ["纺织厂", "机床厂", "铁路", "电力", "粮食局", "教师", "棉纺厂", "化肥厂", "钢厂", "供销社", "卫生局",
             "邮电", "水泥厂", "自来水公司", "建工"]
SUFFIXES = ["小区", "花园", "家园", "苑", "里", "新村", "公寓", "华府", "名苑", "佳园", "嘉园", "雅居"]
OLD_SUFFIXES = ["家属院", "宿舍", "新村", "小区"]
BRANDS = ["永兴", "宏达", "鑫源", "华泰", "恒通", "金盛", "瑞丰", "顺发", "盛达", "德润", "新宇", "汇通", "联创", "远航", "博远", "华星", "众诚", "信达",
          "利民", "隆昌", "宏远", "中联", "佳禾", "诚信", "宝丰", "昌盛", "东升", "富民", "广源", "海天", "和信", "弘毅", "金鹏", "凯达", "立新", "明辉",
          "品诚", "启航", "荣昌", "三和", "盛源", "泰丰", "万通", "旺达", "祥瑞", "鑫泰", "亚星", "益民", "永达", "振华", "正和", "中天", "卓越", "志诚",
          "银丰", "冠华", "九州", "鼎盛", "通达", "安泰", "百川", "德丰", "福瑞", "恒兴", "华安", "金诺", "久安", "坤泰", "龙腾", "名扬", "宁远", "瑞祥",
          "盛华", "天宇", "新星", "兴旺", "云帆", "泽润", "致远", "恒源", "大成", "鸿基", "嘉信", "金源", "联华", "茂源", "千禧", "润达", "森宇", "天利",
          "伟业", "欣荣", "耀华", "源泰", "兆丰"]
BRANDS += [a + b for a in "鑫瑞金宏佳合汇聚" for b in "达丰泰昌隆通茂兴" if a + b not in BRANDS]
INDUSTRIES = ["建材", "物流", "机械制造", "服装", "食品", "电子科技", "建筑工程", "劳务", "物业服务", "餐饮管理",
              "家具", "纺织", "汽车配件", "印刷", "环保科技", "商贸", "包装", "装饰工程", "保安服务", "网络科技"]
FACTORY = {"建材", "机械制造", "服装", "食品", "家具", "纺织", "汽车配件", "印刷", "包装"}
SHOP_BRANDS = ["力美", "悦动", "型格", "尚美", "金色童年", "小博士", "阳光宝贝", "蓝鲸", "飞鱼", "乐活", "康体", "名剪", "美丽人生", "青橙", "优尚", "博学",
               "启明星", "智慧树", "星辰", "动感", "极限", "超越", "水之韵", "丽人", "魅力", "艺匠", "首席", "新概念", "贝贝", "童趣", "健客", "铁馆", "优力",
               "维斯", "卡莱", "浪潮", "小天鹅", "乐学", "知行", "点睛"]
SHOP_TYPES = ["健身", "健身会所", "瑜伽馆", "美容美发", "美发沙龙", "教育", "英语培训", "游泳馆", "洗车行",
              "干洗店", "舞蹈培训", "书法培训", "美甲店", "母婴游泳馆", "台球俱乐部"]
STOP_PLACES = ["人民医院", "体育馆", "公园", "图书馆", "汽车站", "大桥", "工业园", "中医院", "妇幼保健院",
               "科技馆", "实验中学", "菜市场", "商场", "广场", "客运站", "文化宫", "电厂", "党校"]
SITE_TAILS = ["湾", "府", "城", "园", "壹号", "天地", "公馆", "中心"]
CN = "零一二三四五六七八九十"
SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任"
            "沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤")
GIVEN_NAMES = ["伟", "芳", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳", "杰", "娟", "涛", "明", "超", "霞", "平", "刚", "华", "鹏",
               "宇", "斌", "波", "辉", "玲", "凯", "秀英", "秀兰", "桂英", "建国", "建华", "志强", "海燕", "玉兰", "红梅", "子涵", "欣怡", "俊杰",
               "晓东", "春花", "秋菊", "冬梅", "淑珍", "凤英", "桂芝", "德明", "德华", "永刚", "文斌", "立新", "爱国", "红霞", "玉梅", "建平", "海波",
               "雪梅", "晓红", "亚军", "小龙", "国庆", "丽娟", "志华", "金凤", "雅婷", "浩然", "思远", "宏伟", "文华", "翠兰", "春梅", "明亮", "国强",
               "振华", "晓燕", "丽萍", "建军", "卫东", "桂兰", "玉珍", "秀芳", "金花", "永红", "海涛", "志刚", "红英", "玉华", "家豪", "一鸣", "梓萱"]
PHONE_HEADS = ["130", "131", "132", "133", "135", "136", "137", "138", "139", "150", "151", "152", "153", "155",
               "156", "157", "158", "159", "170", "176", "177", "178", "180", "181", "182", "183", "185", "186",
               "187", "188", "189", "191", "193", "195", "198", "199"]

# ------------------------------------------------------------------ vocabulary: the problems
# Templates: [a|b|] picks one alternative (empty allowed), {slot} is the writer's own value.


@dataclass(frozen=True)
class Problem:
    kind: str  # the kind of object it is about
    category: str
    titles: tuple[str, ...]
    says: tuple[str, ...]  # the problem as a predicate of the object
    details: tuple[str, ...]
    amounts: tuple[int, int] = (100, 3000)


PROBLEMS: dict[str, Problem] = {
    "heating": Problem("building", "供热", ("暖气不热", "供暖不达标", "暖气问题", "采暖投诉", "供热问题", "家里太冷"), (
        "暖气[一直|根本|压根|老是|就]不热，[屋里|家里|室内][温度|]才{temp}度[左右|上下|]",
        "供暖[不达标|达不到标准]，[家里|屋里]量了[一下|]才{temp}度",
        "暖气片摸着[是凉的|冰凉冰凉的|跟没烧一样]",
        "暖气[温乎乎的|半温不热的]，跟没开[一样|似的|差不多]",
        "[今年|这个采暖季][的暖气|]就没[热过|暖和过][一天|]",
        "从{since}[开始|起]就[没有暖气了|停了暖气|不供热了]",
        "整[栋|个]楼暖气都不热，[家里|屋里]冷得[待不住|坐不住|伸不出手]",
        "暖气[管道|]不循环，[上面几层|高层|我们这几层][冰凉|全是凉的]",
        "供热温度[严重|明显]不足，[室温|屋里][只有|仅|才]{temp}[℃|度]",
        "[屋里|家里]暖和不起来，晚上[穿着羽绒服|盖两床被子]睡[觉|]",
        "交了采暖费[暖气|]却[不热|冰凉]",
        "暖气时热时不热，这[几|两]天[干脆|索性]停了",
        "回水管是凉的，[热力公司|供热站][说|却说][正常|没问题]",
        "室内温度长期[低于|达不到][国家|规定][的|][标准|18度]",
        "[屋里|家里]冷得能[看到|哈出]白气，暖气[跟没有一样|等于没有]",
        "供暖[到现在|至今]不正常，[家里|屋里]只有{temp}度",
    ), (
        "[我们|我家|今年][交了|刚交]{amount}[元|块][采暖费|取暖费|的暖气费]", "已经[冻了|]{days}天了",
        "[给|找][热力公司|供热站|物业][打了|打过]{n}[次|回][电话|][都说排查|也没人来|没结果]",
        "物业[说是|推说是|非说][管网|热力|管道]的问题，[让找热力|让我们自己找|不归他们管]", "[维修的|修暖气的|热力的][人|师傅]来[看了|转了]一[次|圈]就[没下文了|再没来过|不管了]",
        "[楼上楼下|整个单元|左邻右舍]都一样，不是[我一家|个别现象]", "家里有[个|位|]{age}岁的老人[，受不了|，天天喊冷|]", "[孩子|小孩|孙子][冻感冒了|都冻病了|发烧了|天天咳嗽]",
        "[自己|只好][买了|开着][电暖器|空调|小太阳]，[电费|一个月电费][多花|多了|多出]{n}百多",
        "[测温的|供热站的人|热力的]来[量过|测过][，|，当时][说|也承认]不达标[也没人管|但没下文|就走了]",
    ), (1500, 3600)),
    "lift": Problem("building", "物业管理", ("电梯故障", "电梯坏了", "电梯问题", "电梯维修", "电梯停运"), (
        "电梯坏了{days}天了[没人修|还没修好|没人管]", "电梯[经常|三天两头|隔三差五]停运", "电梯[三天两头|老是]出故障，[还|]困过人",
        "电梯动不动就卡在[半截|两层中间]", "唯一[一部|的]电梯停了，上下楼只能[爬楼梯|走楼梯]",
        "电梯运行[时|起来][异响很大|咣当咣当响]，晃得[厉害|吓人]", "电梯门关不上，[按钮|按键]也失灵",
        "电梯停用[了|]好几天，物业说[等配件|在修]", "电梯[年检|检验]过期了还在用", "电梯故障频发，{since}又把人关[里面|在里头]了",
        "电梯[不能用了|用不了了|罢工了]", "电梯坏了一直修不好", "电梯开开停停[没人管|也没人检修]", "电梯[突然|]下坠[了一下|好几米]，吓死人",
    ), (
        "[我家|我][住|在]{floor}[楼|层]", "[家里|我家][老人|老母亲|老父亲]腿脚不[好|方便][下不了楼|出不了门]", "物业说[维修基金|大修基金][批不下来|用不了|还在走流程]",
        "[已经|前后|]报修{n}次[了|，没用]",
        "[上个月|年初|前不久][刚交了|才交]{amount}[元|块]电梯费", "[快递|外卖|送水的][都|][送不上来|不愿意上来]",
        "有[个|位][老人|小孩][被困了|关在里面][好久|快一个小时|四十多分钟]",
        "[孕妇|抱孩子的|老人][只能|得]一层[层|一层]爬", "物业[推给|说找|让找][电梯公司|维保单位|厂家]", "维保[公司|单位|的人][一直|就是|迟迟][不来|不到|没露面]",
    ), (200, 1200)),
    "leak": Problem("building", "房屋质量", ("漏水", "房屋漏水", "楼顶漏雨", "渗水问题", "漏水求助"), (
        "楼顶防水坏了，一下雨[屋里|家里]就漏", "顶楼漏水严重，墙皮都泡[掉|起来]了", "楼道[里|]水管爆了，水一直往下[流|淌]",
        "外墙渗水，[卧室|客厅]墙面[发霉|长毛]", "楼上下水管漏[水|]，渗到[我家|]天花板", "屋顶漏雨，家里[拿盆|用桶]接水",
        "地下室积水[很深|一直不退]，[一股|满是][臭味|霉味]", "[单元里|楼道里]上水管[破了|裂了|漏了]，[楼梯|台阶|过道][全是水|都是水|能养鱼了]",
        "房顶漏了好久了，一下[大|]雨就滴滴答答", "楼体[开裂|有裂缝]往里渗水", "公共管道漏水，墙都湿透了",
        "楼里漏水[找物业也不管|物业推来推去]", "[雨水|水]顺着外墙往家里灌",
    ), (
        "[屋里|家里][的|][家具|衣柜|地板|床][都|全][泡坏了|发霉了]", "[已经|前后|这都|足足]{days}[天了|天了还没解决|天]",
        "物业说要[动用|申请][维修基金|大修资金][，得等|，一直拖|，要签字]", "[找了|跑了]{n}[次|趟]物业[，没用|都说等|]",
        "[开发商|物业][说|推说][过了保修期|不归他管]", "[电线|插座|电表箱]都[湿了|泡了]，[怕|担心][漏电|出事]", "[天花板|墙角|墙面][大片|一大块][发黑|发霉|掉皮]",
    )),
    "water": Problem("compound", "供水", ("停水", "没有水", "供水问题", "自来水", "停水投诉"), (
        "突然停水了，也没[提前|]通知", "停水{days}天了，一点水都没有", "自来水断断续续的，水压特别低",
        "从{since}起就停水，到现在[还没来|也没恢复]", "水龙头一点水都[没有|不出]", "高层根本上不来水",
        "连着好几天没水，做饭洗漱都成问题", "又停水了，这个月都第{n}次了", "[出来的|]水是浑的，[黄汤一样|跟泥汤似的]，没法用",
        "白天没水，半夜才来一点", "供水管道爆[裂|了]后一直停水", "说是维修管道停水，结果一停就是好几天",
        "[用水|自来水][一直|老是]供不上",
    ), (
        "家里[老人|孩子|一大家子][等着|急着]用水", "[买了|扛了]{n}桶[矿泉水|纯净水][凑合|顶着|做饭]", "物业[说是|推说是][自来水公司|水务|供水公司]的事",
        "打[水务|供水|自来水公司][热线|电话][没人接|占线|一直忙]",
        "[厕所|马桶][都|][冲不了|没法用]", "[没有|没看到|没贴][任何|][停水公告|停水通知]", "只能[去|到][亲戚家|外面|公园][接水|打水]",
    )),
    "garbage": Problem("compound", "环境卫生", ("垃圾清运", "垃圾问题", "环境卫生", "垃圾没人管", "卫生脏乱"), (
        "垃圾好几天没人[清运|拉]了", "垃圾堆[成山|得老高]，臭气熏天", "垃圾桶满了溢到地上，苍蝇乱飞",
        "垃圾站没人管，天一热味道特别大", "门口的垃圾一个星期没拉走", "装修垃圾堆在楼下没人清",
        "垃圾清运不及时，老鼠都出来了", "保洁撤了，垃圾没人收", "垃圾房外面全是袋子，路都过不去",
        "垃圾乱堆乱放，环境脏乱差", "生活垃圾堆在院里{days}天了", "物业停了垃圾清运",
    ), (
        "[夏天|天热|太阳一晒][了|][味道|那个味][熏得人|让人|实在]受不了", "[孩子|小孩子][在旁边|天天在那]玩[很不卫生|容易生病]", "物业费[都|早就][交了|交过]{amount}[元|块]",
        "[找物业|问物业][说|回复][没钱|合同到期了|在找新的清运公司]",
        "[拍了照片|有照片为证|有视频]", "[野猫野狗|蟑螂|老鼠][到处都是|满地跑]",
    ), (600, 3000)),
    "parking": Problem("compound", "物业管理", ("乱停车", "消防通道", "停车问题", "车辆乱停", "占用消防通道"), (
        "消防通道被私家车堵死了", "乱停车严重，消防车根本进不来", "外来车辆随便停，[里面|院里]堵得走不动",
        "车都停在消防通道上，物业不管", "有人在楼下私装地锁占车位", "车辆乱停乱放，老人孩子出门都危险",
        "大门口被车堵着，早上出不去", "僵尸车长期占着车位", "绿化带都被压坏了，停满了车",
        "车停得横七竖八，救护车进不来", "消防通道天天停满车", "晚上车都停在路中间",
    ), (
        "[上次|前段时间|去年]有[老人|个老太太][犯病|摔了][救护车|120][进不来|开不进来]", "[跟|和|找]物业[说了|反映了|提了]{n}[次|回]", "[保安|门卫][说管不了|不管事|根本不拦]",
        "[我家|我们家|][楼下|门口]就是消防通道",
        "[一到晚上|下班以后|周末][最严重|更厉害|堵得死死的]",
    )),
    "smell": Problem("compound", "环境卫生", ("污水外溢", "臭味扰民", "下水道堵塞", "化粪池", "异味投诉"), (
        "化粪池满了往外冒，臭得没法开窗", "下水道堵了，污水漫到路上", "[院里|里面]一股臭味，[好像|估计]是污水井的",
        "楼下污水井反味，[夏天|天一热]特别严重", "化粪池好久没清掏了，到处是臭味", "污水外溢，臭味熏得人头疼",
        "下水反味，屋里都是臭的", "排污管堵塞，粪水流到地面上", "一到[晚上|傍晚|夜里]就有[刺鼻的|一股][臭味|怪味]",
        "污水横流，蚊虫滋生", "窨井冒水，臭气熏天",
    ), (
        "[已经|前后|这都|足足]{days}[天了|天了还没解决|天]", "[家里|屋里|我家][窗户|窗][都不敢开|一直关着]", "物业[来掏过一次|说没有清掏车|疏通过一回][又堵了|没几天又堵]",
        "[孩子|老人|家里人]闻了[恶心|头晕|吃不下饭]",
    )),
    "wages": Problem("company", "劳动保障", ("拖欠工资", "讨薪", "欠薪", "工资问题", "农民工工资"), (
        "拖欠[我们|我的|工人]工资{months}个月了", "到现在还欠着工资没发", "干完活不给钱，一直拖着",
        "老板拖欠工资，[找他|去要]就说没钱", "欠薪{months}个月，[总共|一共]{amount}元", "工资一直拖着不发，[过年|回家]都[回不了家|没钱]",
        "说好月底发工资，拖了[好几个月|快半年]", "我们{count}多个工人的工资都没结", "[我|]辞职[后|以后|都俩月了][工资|钱]一分[没结|没给]",
        "干了{months}个月只发了生活费", "工资条都没有，钱也不给", "承诺的工资一拖再拖", "扣着[我的|]工资不发",
    ), (
        "[我|光我][一个人|自己]就[被欠了|被拖了|有]{amount}[元|块]", "去[公司|厂里|办公室]要[钱|工资|]，[门卫|保安][不让进|把我们拦住了]",
        "[老板|老板娘|负责人][电话打不通|电话关机|把我们拉黑了|躲着不见]", "[劳动监察|劳动仲裁|人社局][那边|][也去过了|也找过|去了好几趟]",
        "[我们|工地上|车间里][有|一共]{count}多[个人|号人|个工友]", "家里[等着|急着][钱用|交学费|看病|还房贷]", "[工头|班组长|包工头][说|推说][上面没拨款|甲方没结账]",
        "[有|我有|我们都有][考勤记录|打卡记录|工资单][和|还有][聊天记录|微信记录|欠条]", "[财务|人事|会计][说|一直说][等回款|下个月|再等等]",
    ), (3000, 60000)),
    "insurance": Problem("company", "社会保障", ("社保问题", "不交社保", "社保断缴", "五险一金", "养老保险"), (
        "没给我们交社保", "一直不给缴纳社会保险", "社保断缴了{months}个月", "工资里扣了社保钱，[查了|一查]根本没交",
        "入职{months}个月了也不给上保险", "养老保险停缴了，公司说资金困难", "医保卡用不了，一查公司停缴了",
        "社保欠费好几个月", "只给[一部分人|管理层]交了社保", "说好的五险一金没有落实", "欠缴社保，影响我们看病报销",
        "[去社保局|在网上]查，[显示|]{since}以后就没交",
    ), (
        "我在[这|公司|厂里][干了|上班]{months}[个月|年]", "[马上|还有一年多就|明年]要退休了，[断缴|断了][影响|会影响][退休|领养老金]",
        "[孩子|小孩][上学|入学|报名]要[社保证明|缴社保记录]", "[找人事|问行政|找财务][，说|，回复][统一办|等通知|在处理]",
        "[老婆|家属|孩子][住院|看病][报不了销|刷不了卡]",
    ), (500, 8000)),
    "noise": Problem("site", "环境保护", ("夜间施工", "噪音扰民", "施工噪声", "晚上施工", "扰民"), (
        "天天晚上施工到凌晨", "夜里十一二点还在打桩", "半夜施工噪音太大，吵得睡不着", "晚上{hour}点多还在干活，机器轰隆隆的",
        "夜间施工扰民严重", "凌晨两三点还有渣土车进出，响声很大", "夜间浇筑混凝土，整夜不停",
        "一到晚上就开始施工，根本没法休息", "晚上施工的噪音震得窗户都响", "深更半夜还在切割钢筋",
        "通宵作业，噪声扰民", "连续好几个晚上施工到天亮",
    ), (
        "[家里|我家][孩子|闺女|儿子][要高考|上学|要中考]", "[老人|老父亲|我妈][心脏不好|失眠|血压高]", "[问了|工地的人][说|说是]有[夜间施工许可|夜间施工证]",
        "[打110|报警][来了|叫了|][也没用|管不了]",
        "[已经|前后|这都|足足]{days}[天了|天了还没解决|天]", "[第二天|白天][还得|要][上班|干活]",
    )),
    "dust": Problem("site", "环境保护", ("扬尘污染", "工地扬尘", "灰尘太大", "扬尘", "环境污染"), (
        "扬尘特别大，窗户都不敢开", "土堆没盖网，一刮风满天灰", "渣土车带泥上路，路上全是土", "扬尘污染严重，阳台上一层灰",
        "施工不洒水，尘土飞扬", "车辆出入不冲洗，路面全是泥", "裸土没有覆盖，灰尘很大", "灰大得出门都得戴口罩",
        "拆迁扬尘没有任何防护", "扬尘治理措施形同虚设", "[大风|风]一[吹|刮][沙土|尘土|沙子]直往[家里|屋里]灌", "雾炮机就是摆设，从来不开",
    ), (
        "[衣服|被子][都|][不敢晒|没法晒]", "[孩子|老人][咳嗽|鼻炎犯了|嗓子疼]", "[车上|窗台上|桌子上][天天|每天|一天就]一层[土|灰]",
        "[已经|前后|这都|足足]{days}[天了|天了还没解决|天]", "[拍了视频|有照片|证据都有]",
    )),
    "traffic_light": Problem("crossing", "交通管理", ("红绿灯", "信号灯故障", "交通安全", "信号灯", "路口问题"), (
        "红绿灯坏了，车和人都乱走", "信号灯不亮了好几天", "红绿灯时间设置不合理，绿灯只有十几秒", "信号灯一直闪黄灯",
        "行人绿灯太短，老人走一半就变灯了", "红绿灯坏了没人修，差点撞到人", "左转灯不亮，经常堵车",
        "信号灯被树挡住看不见", "[早晚|]高峰红绿灯配时[太长|不合理]，堵得厉害", "红绿灯黑了", "红绿灯故障，交警也不在",
        "信号灯乱了，两个方向同时绿灯",
    ), (
        "[上下班|接孩子|买菜][每天|天天]都[经过|走][这|这里]", "[昨天|前天|上周][差点|险些][出事|发生车祸|撞上]", "附近[有学校|是小学][，|，上下学][孩子多|小孩过马路危险]",
        "[已经|持续|]{days}[天了|天|多天]", "[堵了|等了][半个多|一个多|大半个]小时",
    )),
    "road_damage": Problem("stretch", "市政设施", ("道路破损", "路面坑洼", "修路", "路面塌陷", "井盖问题"), (
        "路面坑坑洼洼，好多大坑", "路被压坏了，一下雨全是积水", "马路塌了一个[大|]坑", "路面破损严重，电动车经常摔",
        "井盖松动，车一过就哐哐响", "井盖丢了，留[个|了一个]大洞", "路面开裂下沉", "修了一半的路就不管了",
        "沥青都翻起来了", "路面塌陷，很危险", "人行道砖都翘起来了", "路上大坑小坑，晚上看不清",
    ), (
        "[昨天|前几天|上周][有人|一个老人|外卖小哥][骑车|骑电动车|走路]摔了", "[已经|持续|]{days}[天了|天|多天]", "[开车|骑车|走路][得|只能]绕着走",
        "[晚上|天黑|下雨天][更危险|根本看不见]",
    )),
    "street_light": Problem("stretch", "市政设施", ("路灯不亮", "路灯", "照明问题", "路灯坏了"), (
        "路灯不亮，晚上黑漆漆的", "一整段路灯都坏了", "路灯坏了好久没人修", "晚上没有路灯，走路害怕",
        "路灯白天亮晚上不亮", "路灯[一闪一闪的|时亮时不亮]", "好几根路灯杆子歪了，灯也不亮", "天一黑[整条路|这一片]漆黑",
        "路灯[全灭了|一盏都不亮]", "[晚上|夜里]照明[太差|全无]", "路灯[线路|电缆]被偷了[以后|]就没亮过",
    ), (
        "[女孩子|下夜班的|老人][晚上|夜里][不敢走|害怕|不敢出门]", "[前几天|上周|昨晚][有人|有个老人][摔倒了|摔伤了]", "[已经|前后|这都|足足]{days}[天了|天了还没解决|天]",
    )),
    "bus": Problem("stop", "公共交通", ("公交线路", "公交问题", "线路调整", "公交站", "坐车难"), (
        "{route}路公交改线[以后|后]不停这站了", "{route}路车取消了，出行很不方便", "公交站被撤了，要走好远[去|才能]坐车",
        "{route}路发车间隔太长，等一个小时都来不了", "公交线路调整后，孩子上学没车坐了", "{route}路末班车提前了",
        "站牌拆了，也没说挪哪了", "线路改了以后要倒两趟车", "{route}路车经常过站不停", "公交站没了，老人去医院很不方便",
        "{route}路调整线路没征求[意见|群众意见]", "好好的公交线路说改就改",
    ), (
        "[每天|天天][上下班|接送孩子][都|][坐这趟车|靠这趟车]", "[附近|周围|这一片][住了|有][好几千人|好几个小区]", "[打车|绕路]一天[多花|得多花][好几十块|几十块钱]",
        "[坐车的|这站][老年人|学生][特别|非常]多", "[已经|持续|]{days}[天了|天|多天]",
    )),
    "school_fee": Problem("school", "教育", ("乱收费", "学校收费", "教育收费", "收费问题", "家长反映"), (
        "乱收费，让交{amount}元资料费", "强制订校服，一套{amount}元", "要求家长交补课费", "收取所谓的赞助费",
        "班主任让每人交{amount}元班费，没有明细", "午托费涨到{amount}元一个月", "强制征订教辅材料",
        "课后服务费收了不开课", "收费不开发票", "收了{amount}元的学习用品费", "变相收费，家长敢怒不敢言",
        "托管费说收就收，不交就不让孩子参加",
    ), (
        "[孩子|我家孩子][在|上|读]{grade}年级", "[家长群里|班级群|老师私信][通知的|发的]", "不[交|给][怕|担心]孩子[被穿小鞋|受影响]",
        "[问了|听说][别的学校|其他学校][都不收|没这个费]",
    ), (80, 2500)),
    "market_dirty": Problem("market", "市场监管", ("市场卫生", "环境脏乱", "菜市场", "卫生问题"), (
        "卫生很差，污水横流", "垃圾和污水臭得厉害", "杀活禽的味道太大", "周边脏乱差", "鱼摊的污水直接往路上排",
        "[地上|过道]全是烂菜叶，[没人|也没人]打扫", "夏天苍蝇[成群|满天飞]", "排水沟堵了，[一股|满是]腥臭味",
        "垃圾[堆在|扔在]门口好几天", "下水[不通|堵死]，地面[全是|都是]污水", "[后门|门口]那片[脏得|臭得]不像样",
    ), (
        "[我家|我|]就住在[旁边|对面|隔壁]", "[窗户|门|窗][都|][不敢开|一直关着]", "[已经|前后|这都|足足]{days}[天了|天了还没解决|天]",
    )),
    "market_road": Problem("market", "城市管理", ("占道经营", "马路市场", "摊贩占道", "交通堵塞"), (
        "摊位占道经营，路都堵了", "门口摊贩乱摆，车过不去", "早市摆到马路中间", "[商户|摊贩]把货摆到人行道上",
        "三轮车[卖菜的|小贩]占了半条路", "早上[六七点|一大早]摊子摆得[满满当当|到处都是]", "占道经营[严重|没人管]，公交都过不去",
        "[门口|外面]马路成了菜市场", "[城管|执法的]一走又摆出来了", "流动摊贩[堵着|挡着]小区门口",
    ), (
        "[上班|送孩子|出门][天天|每天|经常]被堵", "[喇叭|吆喝声|叫卖声][吵得不行|从早到晚]", "[已经|持续|]{days}[天了|天|多天]",
    )),
    "prepaid": Problem("shop", "市场监管", ("预付卡", "退费", "商家跑路", "会员卡退款", "消费纠纷"), (
        "突然关门了，卡里还有{amount}元没用", "办了预付卡，现在人去楼空", "老板跑路了，会员卡里的钱退不了",
        "店门关了，电话也打不通", "充了{amount}元，没[上|用]几次就停业了", "说是[装修|升级|整改]暂停营业，到现在[都没开|也没开门]",
        "关店不退钱", "我们{count}多个会员的钱都没着落", "商家拒绝退款[，说没钱|]", "刚让我续费{amount}元，[第二天|没几天]就关门",
        "门上贴了张通知就没人了", "停业[了|]，储值卡余额不退",
    ), (
        "[当时|]办卡[时|的时候][说|承诺|保证][随时可以退|不会关|可以转让]", "[有|我有|大家都有][收据|付款记录][和|、][合同|会员协议]",
        "[店长|前台|老板|销售][把我们|把我][拉黑了|删了]", "[群里|会员群|微信群][已经|早就][解散了|没人说话了]",
    ), (500, 9000)),
}

KIND_EFFECTS = {
    "building": ["[家里|一家][老人孩子|老老小小]跟着受罪", "[日子|这日子]没法过了", "[全楼|整栋楼][住户|的人]意见[很大|都很大]", "邻居们[都在群里骂|天天在群里吵]"],
    "compound": ["几百户人家受影响", "业主们意见很大", "生活受到严重影响", "物业根本不作为"],
    "company": ["我们都是靠工资养家的", "工友们都很着急", "公司还在正常经营", "我们都是外地来打工的"],
    "site": ["周边居民苦不堪言", "附近好几个小区都受影响", "严重影响休息", "工地的人态度很差"],
    "crossing": ["非常危险", "这个路口车流量很大", "早晚高峰特别乱"],
    "stretch": ["存在很大安全隐患", "这条路车多人多", "附近居民出行困难"],
    "stop": ["附近居民出行很不方便", "老人看病都成问题", "大家意见很大"],
    "school": ["家长们意见很大", "加重了家庭负担", "不知道合不合规定"],
    "market": ["周边居民深受其扰", "附近住户意见很大"],
    "shop": ["很多会员都在找", "我们的钱都打了水漂", "涉及好几百人"],
}
REQUESTS = [
    "请尽快处理。", "希望有关部门管一管。", "麻烦帮忙协调一下。", "请督促整改。", "盼回复。", "请给个说法。",
    "希望能尽快解决。", "请相关部门尽快派人来看看。", "恳请领导重视。", "望早日解决为盼。", "请责令其立即整改。",
    "希望政府出面。", "请帮我们解决一下。", "请依法处理。", "希望给我们一个答复。", "拜托[了|你们]，快点[解决|处理]吧。",
    "请核实处理。", "能不能管管？", "到底有没有人管？", "请尽快回复我。", "要求处理到位。", "请帮忙督办。",
]
KIND_REQUESTS = {
    "building": ["请督促物业尽快维修。", "要求退还部分费用。", "请供热单位上门检查。"],
    "company": ["要求[公司|老板]尽快[支付|把钱给了]。", "请劳动部门介入。", "希望帮我们讨个公道。", "请督促补缴。"],
    "site": ["请环保部门查处。", "请城管执法。", "要求停止夜间施工。"],
    "crossing": ["请交警部门尽快维修。", "建议调整配时。"],
    "stretch": ["请市政尽快修复。", "请派人来修。"],
    "stop": ["请恢复原线路。", "建议保留这个站点。"],
    "school": ["请教育局查一查。", "要求退还费用。"],
    "market": ["请市场监管部门管理。", "请城管来整治。"],
    "shop": ["要求退还余额。", "请市场监管部门介入。", "希望追回我们的钱。"],
}
OPENERS = ["您好，", "你好，", "领导好！", "12345您好，", "喂，你好，", "尊敬的领导：", "我想反映个事，", "打扰了，",
           "市长您好：", "各位领导好，", "你好我要投诉，", "我要反映一个问题，", "麻烦您，", "求助！"]
OPERATOR = ["来电人反映：", "市民来电称，", "来电反映：", "市民反映，", "网友留言：", "来电人表示，", "市民来电反映，"]
CLOSINGS = ["谢谢！", "谢谢了。", "辛苦了。", "急！", "麻烦了。", "感谢！", "谢谢领导。", "万分感谢。"]
RESUBMIT = ["再次反映：", "第二次反映，", "之前反映过，没人处理，", "还是之前那个问题，", "【重复】", "上次打过电话了，",
            "第3次反映：", "补充：", "又来反映，", "追问：", "重复来电：", "前几天反映的事还没解决，"]
GENERIC_TITLES = ["反映问题", "投诉", "求助", "诉求", "问题反映", "市民诉求", "投诉建议", "反映情况", "请求处理", "急",
                  "民生问题", "咨询投诉"]
FORM_OPENERS = ["我们是{group}，联名反映：", "全体{group}联名信：", "关于{obj}{title}的联名反映：", "{group}集体反映："]
TYPOS = {"气": "器", "欠": "歉", "梯": "题", "费": "废", "资": "咨", "漏": "露", "噪": "燥", "扬": "杨", "施": "师",
         "障": "账", "缴": "交", "物": "务", "修": "休", "处": "出", "晚": "完", "灯": "登", "坏": "怀"}
FULL = str.maketrans("0123456789", "０１２３４５６７８９")
HALF = str.maketrans("，。：；！？（）", ",.:;!?()")

POLICY: dict[str, tuple[str, tuple[str, ...]]] = {
    "医保报销": ("医疗保障", (
        "想问一下[职工|居民]医保住院报销比例是多少", "门诊[慢性病|慢特病]报销[比例|标准]怎么算", "医保[起付线|封顶线]是多少",
        "在[省外|外地]住院[回来|]能报多少", "[居民|城乡]医保和职工医保报销有什么区别", "买的药[能不能|可不可以]走医保报销",
        "大病保险怎么报，要[什么材料|哪些手续]", "做[手术|检查]的费用医保报不报", "[特药|进口药]能不能报销",
    )),
    "落户": ("户籍管理", (
        "想咨询[一下|]落户政策", "买了房能不能落户", "大专学历可以直接落户吗", "[老人|父母]投靠子女落户需要什么条件",
        "人才落户[需要|要]准备哪些材料", "[集体户|人才市场集体户]怎么迁出", "孩子随迁落户怎么办", "租房能不能落户",
    )),
    "公积金": ("住房公积金", (
        "公积金怎么提取", "租房可以提取公积金吗，一年能提多少", "离职以后公积金能不能[全部|]取出来",
        "公积金贷款[额度|最高]能贷多少", "[装修|还房贷]能不能提取公积金", "异地购房[怎么|能否]用公积金",
        "公积金[提取|转移]要[去哪|什么材料]", "[单位|公司]没给交公积金，自己能交吗",
    )),
    "社保转移": ("社会保障", (
        "[养老保险|社保]从外地转过来怎么办", "社保[关系|]转移[需要|要]什么手续", "换了城市工作，社保怎么转",
        "[医保|养老]转移接续要多久", "外省的社保能合并吗", "[灵活就业|个人]社保转到单位怎么办",
    )),
    "养老补缴": ("社会保障", (
        "养老保险断了几年能不能补缴", "快到退休年龄了[缴费|]不够15年怎么办", "退休[年龄|时间]怎么算",
        "养老金[怎么计算|能领多少]", "[灵活就业|个体户]怎么交养老保险", "延迟退休[政策|]对我有没有影响",
    )),
    "异地就医": ("医疗保障", (
        "异地就医备案怎么办理", "在外地[看病|住院]需要[先|]备案吗", "[随子女|长期]在外地居住，医保怎么结算",
        "异地备案[有效期|能用多久]", "备案后[在外地|]能直接刷卡吗",
    )),
    "居住证": ("户籍管理", (
        "居住证怎么办理", "[办|申请]居住证要[什么材料|住满多久]", "居住证[到期|过期]了怎么续", "没有房本能[办|申领]居住证吗",
    )),
    "生育津贴": ("社会保障", (
        "生育津贴怎么申领", "[男方|丈夫]交的生育保险能报吗", "生育[津贴|保险][标准|能领多少]", "[产假|生育假]有多少天",
        "[二胎|三胎]有没有补贴",
    )),
    "失业金": ("社会保障", (
        "失业金怎么领", "[主动|自己]辞职能领失业金吗", "失业保险金[能领几个月|标准是多少]", "领失业金[影响|会不会影响]社保吗",
    )),
    "入学政策": ("教育", (
        "[小学|初中]入学[需要|要]哪些材料", "随迁子女入学[政策|条件]是什么", "[学区|片区]是怎么划分的",
        "没有房子[孩子|]能不能在这上学", "[幼升小|小升初]报名[什么时候|怎么报]",
    )),
}
POLICY_DETAILS = ["我[今年|]{age}岁", "我在这边[工作|打工]{months}年了", "[户口|老家]在外省", "之前在[南方|外地]交过{months}个月",
                  "[网上|官网]看了没看明白", "打了好几个电话都说不清楚", "家里[老人|孩子]要用", "[单位|公司]说让我自己问"]
POLICY_OPENERS = ["您好，", "你好，", "想咨询一下，", "请问，", "麻烦问一下，", "打扰了，", "12345您好，", "咨询："]
POLICY_ASKS = ["想咨询一下。", "请告知。", "麻烦给解答一下。", "想了解具体政策。", "请问怎么办理？", "谢谢解答。",
               "希望有人回电话说明。", "具体怎么操作？"]


# ------------------------------------------------------------------ the table's shape


@dataclass
class Hotline:
    rows: list[dict]
    matter: dict[int, str | None]
    person: dict[int, str]


@dataclass
class Person:
    key: str
    name: str
    phone: str
    address: str
    home: tuple[str, int] | None = None  # (compound key, building) where they live, if known


@dataclass
class Place:
    """One object a writer names: its identity (key) and how writers say it."""

    key: str
    kind: str
    district: str
    road: str
    forms: list[str]
    compound: Place | None = None
    building: int = 0
    buildings: int = 0
    stem: str = ""
    route: int = 0

    def say(self, rng: random.Random) -> str:
        """One surface form; a building as its compound's form joined to the building's."""
        if self.kind == "building":
            joint = rng.choice(["", "", "", "的", "小区"])
            head = self.compound.say(rng)
            joint = "" if joint == "小区" and head.endswith("小区") else joint
            return head + joint + building_form(rng, self.building)
        return rng.choice(self.forms)

    def words(self) -> list[str]:
        """Every string writers use for this object (for measuring wording outside names)."""
        if self.kind == "building":
            b = self.building
            return self.compound.words() + [f"{b}号楼", f"{cn(b)}号楼", f"{b}栋", f"{b}#楼", f"{b}幢", f"{b}号",
                                            f"{b}号楼".translate(FULL), f"{b}栋".translate(FULL)]
        return list(self.forms) + ([self.stem] if self.stem else [])


@dataclass
class Group:
    """One (object, problem, episode): a matter when two or more people write about it."""

    key: str
    place: Place
    problem: str
    start: datetime
    days: int
    persons: int
    since: datetime
    members: list[str] = field(default_factory=list)  # person keys
    rows: list[int] = field(default_factory=list)  # its row ids (draft indexes until numbered)


@dataclass
class Made:
    """The table and what it was made of: each group, and the hard negatives by kind."""

    hotline: Hotline
    groups: dict[str, Group]
    negatives: dict[str, list[tuple[str, ...]]]  # kind -> keys of groups made to be close
    row_group: dict[int, str]  # row id -> its group key ("" for a policy question)
    policy: list[int]  # row ids
    form_letter: list[int]  # row ids sent as one text by several people
    resubmission: list[int]  # row ids filed again by their person


# ------------------------------------------------------------------ small helpers


def cn(n: int) -> str:
    """A number under 100 in Chinese numerals (3 -> 三, 12 -> 十二, 25 -> 二十五)."""
    if n < 10:
        return CN[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else CN[tens]) + "十" + (CN[ones] if ones else "")


def building_form(rng: random.Random, b: int) -> str:
    form = rng.choice([f"{b}号楼", f"{b}号楼", f"{cn(b)}号楼", f"{b}栋", f"{b}#楼", f"{b}幢", f"{b}号楼", f"{cn(b)}栋"])
    return form.translate(FULL) if rng.random() < 0.1 else form


def spin(rng: random.Random, template: str, values: dict) -> str:
    """The template with one alternative of each [a|b|c] and the writer's values."""
    text = re.sub(r"\[([^\[\]]*)\]", lambda m: rng.choice(m.group(1).split("|")), template)
    return text.format_map(values)


def person_name(rng: random.Random) -> str:
    return rng.choice(SURNAMES) + rng.choice(GIVEN_NAMES)


def phone(rng: random.Random) -> str:
    return rng.choice(PHONE_HEADS) + "".join(rng.choice("0123456789") for _ in range(8))


def day_text(rng: random.Random, day: datetime, at: datetime) -> str:
    """A date as a writer says it, relative to when they write."""
    ago = (at.date() - day.date()).days
    options = [f"{day.month}月{day.day}日", f"{day.month}月{day.day}号", f"{day.day}号", f"{day.month}.{day.day}"]
    if 0 < ago <= 7:
        options += ["上周", "前几天", "这周"]
    if ago <= 2:
        options += ["昨天", "前天"]
    if ago > 300:
        options.append(f"{day.year}年{day.month}月{day.day}日")
    return rng.choice(options)


# ------------------------------------------------------------------ the city


class Town:
    """The objects of the city, each with its forms; pools are drawn without replacement."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        stems = STEMS[:]
        rng.shuffle(stems)
        self.compounds = [self._compound(s, i) for i, s in enumerate(stems[:150])]
        self.compounds += [self._compound(s, 150 + i, old=True) for i, s in enumerate(OLD_STEMS)]
        self.market_stems, self.site_stems, self.kinder_stems = stems[150:175], stems[175:], stems[:40]
        self.crossroads = self._crossroads()
        self.companies: list[Place] = []
        self.used_brands: set[str] = set()
        self.pools = {
            "company": [self.company() for _ in range(90)],
            "site": [self._site(i) for i in range(70)],
            "stop": [self._stop(i) for i in range(70)],
            "school": [self._school(i) for i in range(60)],
            "market": [self._market(i) for i in range(25)],
            "shop": [self._shop(i) for i in range(90)],
            "crossing": [self.crossing(m, i) for m in self.crossroads for i in range(len(self.crossroads[m]))],
            "stretch": [self.stretch(m, i) for m in self.crossroads for i in range(len(self.crossroads[m]) - 1)],
            "compound": self.compounds,
        }

    def _compound(self, stem: str, i: int, old: bool = False) -> Place:
        rng = self.rng
        suffix = rng.choice(OLD_SUFFIXES if old else SUFFIXES)
        name, district, road = stem + suffix, rng.choice(DISTRICTS), rng.choice(ROADS)
        forms = [name, name, district + name, f"{CITY}市{district}{name}"]
        forms += [name + "小区"] if suffix != "小区" else [stem + "小区"]
        if suffix in ("花园", "家园", "华府", "名苑", "佳园", "嘉园", "新村", "小区") and not old:
            forms.append(stem)
        if old:
            forms += [stem + "院", "老" + stem + suffix]
        forms.append(f"{road}{name}")
        return Place(f"c{i}", "compound", district, road, forms, buildings=rng.randint(4, 32), stem=stem)

    def building(self, compound: Place, b: int) -> Place:
        return Place(f"{compound.key}b{b}", "building", compound.district, compound.road, [], compound=compound,
                     building=b, stem=compound.stem)

    def _crossroads(self) -> dict[str, list[str]]:
        """Twelve main roads, each crossed by five other roads in order along it."""
        rng, out = self.rng, {}
        for main in ROADS[:12]:
            others = [r for r in ROADS if r != main]
            out[main] = rng.sample(others, 5)
        return out

    def _brand(self) -> str:
        free = [b for b in BRANDS if b not in self.used_brands]
        brand = self.rng.choice(free) if free else ""
        while not brand or brand in self.used_brands:  # more companies than brands: three-character ones
            brand = self.rng.choice(BRANDS)[0] + self.rng.choice(BRANDS)
        self.used_brands.add(brand)
        return brand

    def company(self, brand: str = "", industry: str = "", district: str = "", two_districts: bool = False) -> Place:
        """A company; with `two_districts` its registered name carries the district."""
        rng = self.rng
        brand, industry = brand or self._brand(), industry or rng.choice(INDUSTRIES)
        district, road = district or rng.choice(DISTRICTS), rng.choice(ROADS)
        short = brand + industry
        if two_districts:
            full = f"{CITY}市{district}{short}有限公司"
            forms = [full, full, district + short, f"{district[:-1]}那边的{short}", f"{road}上的{short}公司",
                     f"{district}的{short}", short]
        else:
            full = rng.choice([f"{CITY}{short}有限公司", f"{CITY}市{short}有限公司", f"{CITY}{short}有限责任公司"])
            forms = [full, full, short, short + "公司", f"{road}那边的{brand}公司", f"{road}上的{short}公司"]
            forms += [short + "厂", f"{brand}{industry}厂"] if industry in FACTORY else [f"{brand}{industry}公司"]
        key = f"co{len(self.companies)}"
        place = Place(key, "company", district, road, forms, stem=brand)
        self.companies.append(place)
        return place

    def alone_company(self) -> Place:
        """A company whose brand no other company uses; the bare 永兴公司 then names it alone."""
        place = self.company()
        place.forms += [place.stem + "公司", place.stem + "公司"]
        return place

    def _site(self, i: int) -> Place:
        rng = self.rng
        road, district, style = rng.choice(ROADS), rng.choice(DISTRICTS), i % 4
        if style == 0:
            stem, dev = self.site_stems[i % len(self.site_stems)], rng.choice(BRANDS)
            tail = rng.choice(SITE_TAILS)
            forms = [f"{dev}·{stem}{tail}项目工地", f"{stem}{tail}工地", f"{stem}{tail}项目", f"{road}上那个{stem}{tail}工地",
                     f"{dev}{stem}{tail}的工地", f"{dev}地产在{road}的工地"]
        elif style == 1:
            line = rng.randint(1, 6)
            forms = [f"地铁{line}号线{road}站工地", f"{road}地铁站工地", f"地铁工地（{road}站）", f"{line}号线{road}站施工现场",
                     f"{road}修地铁的工地"]
        elif style == 2:
            a, b = rng.sample(ROADS, 2)
            forms = [f"{a}改造工程", f"{a}({b}段)道路改造工地", f"{a}修路的工地", f"{a}靠{b}那边的施工工地"]
            road = a
        else:
            stem = self.site_stems[i % len(self.site_stems)]
            forms = [f"{stem}安置房项目工地", f"{stem}安置小区工地", f"{road}{stem}安置房工地", f"{stem}回迁房工地"]
        return Place(f"s{i}", "site", district, road, forms)

    def _stop(self, i: int) -> Place:
        rng, road = self.rng, ROADS[i % len(ROADS)]
        base = road + STOP_PLACES[(i * 7) % len(STOP_PLACES)]
        route = rng.randint(1, 180)
        forms = [f"{base}站", f"{base}公交站", f"{base}站台", f"{route}路{base}站", f"{base}那个公交站", f"{base}站点"]
        return Place(f"p{i}", "stop", rng.choice(DISTRICTS), road, forms, route=route)

    def _school(self, i: int) -> Place:
        road, district = ROADS[(i * 3) % len(ROADS)], self.rng.choice(DISTRICTS)
        if i < 25:
            n = i + 1
            forms = [f"{CITY}市第{cn(n)}中学", f"{cn(n)}中", f"市{cn(n)}中", f"{CITY}{cn(n)}中", f"第{cn(n)}中学",
                     f"{CITY}市第{cn(n)}中学"]
        elif i < 45:
            forms = [f"{road}小学", f"{CITY}市{road}小学", f"{road}小学", f"{district}{road}小学"]
        else:
            stem = self.kinder_stems[i - 45]
            forms = [f"{stem}幼儿园", f"{district}{stem}幼儿园", f"{stem}幼", f"{stem}幼儿园（{road}园区）"]
        return Place(f"k{i}", "school", district, road, forms)

    def _market(self, i: int) -> Place:
        rng, stem, road = self.rng, self.market_stems[i], self.rng.choice(ROADS)
        forms = [f"{stem}农贸市场", f"{stem}菜市场", f"{stem}市场", f"{stem}菜场", f"{road}上的{stem}市场", f"{stem}农贸市场"]
        return Place(f"m{i}", "market", rng.choice(DISTRICTS), road, forms)

    def _shop(self, i: int) -> Place:
        rng = self.rng
        road = rng.choice(ROADS)
        brand, kind = SHOP_BRANDS[i % len(SHOP_BRANDS)], SHOP_TYPES[(i * 5 + i // len(SHOP_BRANDS)) % len(SHOP_TYPES)]
        name = brand + kind
        forms = [name, name + "店", f"{road}上的{name}", f"{name}（{road}店）", f"{name}{road}店", name]
        return Place(f"h{i}", "shop", rng.choice(DISTRICTS), road, forms)

    def crossing(self, main: str, i: int) -> Place:
        """The intersection of `main` with its i-th crossing road, in its many spellings."""
        cross = self.crossroads[main][i]
        short = main[:-1] if main.endswith("路") and len(main) == 3 else main
        forms = [f"{main}与{cross}交叉口", f"{main}和{cross}交叉路口", f"{cross}与{main}交叉口", f"{main}{cross}路口",
                 f"{short}{cross}口", f"{main}、{cross}交汇处", f"{cross}{main}十字路口", f"{main}/{cross}路口",
                 f"{main}与{cross}十字路口"]
        return Place(f"x{main}{i}", "crossing", "", main, forms)

    def stretch(self, main: str, i: int) -> Place:
        """The stretch of `main` between its i-th and (i+1)-th crossing roads."""
        a, b = self.crossroads[main][i], self.crossroads[main][i + 1]
        forms = [f"{main}（{a}至{b}段）", f"{main}{a}到{b}那一段", f"{a}和{b}之间的{main}", f"{main}从{a}口到{b}口",
                 f"{main}{a}至{b}路段", f"{main}{b}到{a}这段"]
        return Place(f"r{main}{i}", "stretch", "", main, forms)


# ------------------------------------------------------------------ groups and their timing


class Plan:
    """The groups, the (object, problem) episodes taken, and the people."""

    def __init__(self, rng: random.Random, town: Town):
        self.rng, self.town = rng, town
        self.groups: dict[str, Group] = {}
        self.taken: dict[tuple[str, str], list[tuple[datetime, datetime]]] = {}
        self.people: dict[str, Person] = {}
        self.residents: dict[str, list[str]] = {}  # compound key -> person keys living there
        self.negatives: dict[str, list[tuple[str, ...]]] = {}

    def free(self, place: Place, problem: str, start: datetime, days: int, gap: int = EPISODE_GAP) -> bool:
        """No other group of this object and problem within `gap` days of this window."""
        end = start + timedelta(days=days)
        return all(end + timedelta(days=gap) < s or e + timedelta(days=gap) < start
                   for s, e in self.taken.get((place.key, problem), []))

    def add(self, place: Place, problem: str, start: datetime, days: int, persons: int) -> Group:
        self.taken.setdefault((place.key, problem), []).append((start, start + timedelta(days=days)))
        key = f"g{len(self.groups) + 1:04d}"
        since = start - timedelta(days=self.rng.randint(0, 6), hours=self.rng.randint(0, 12))
        group = Group(key, place, problem, start, days, persons, max(since, START - timedelta(days=5)))
        self.groups[key] = group
        return group

    def start(self, problem: str, days: int, near: datetime | None = None, spread: int = 0) -> datetime:
        """A start for a window of `days`: heating in a winter, near `near` when given."""
        rng = self.rng
        if near is not None:
            at = near + timedelta(days=rng.randint(0, spread), hours=rng.randint(0, 23))
        elif problem == "heating":
            lo, hi = rng.choice(WINTERS)
            at = lo + timedelta(seconds=rng.randint(0, max(1, int((hi - lo).total_seconds()) - days * 86400)))
        else:
            at = START + timedelta(seconds=rng.randint(0, int((END - START).total_seconds()) - (days + 20) * 86400))
        return min(at, END - timedelta(days=days + 1))

    def place_for(self, problem: str) -> Place:
        """A random object of the kind the problem is about (a building of a random compound)."""
        kind = PROBLEMS[problem].kind
        if kind == "building":
            compound = self.rng.choice(self.town.compounds)
            return self.town.building(compound, self.rng.randint(1, compound.buildings))
        return self.rng.choice(self.town.pools[kind])

    def group(self, problem: str, persons: int, days: int, place: Place | None = None, near: datetime | None = None,
              spread: int = 0, tries: int = 200) -> Group | None:
        """A group on a free (object, problem, window), drawing the object when none is given."""
        for _ in range(tries):
            where = place or self.place_for(problem)
            at = self.start(problem, days, near, spread)
            if self.free(where, problem, at, days):
                return self.add(where, problem, at, days, persons)
        return None


def size(rng: random.Random, hot_share: float) -> int:
    """Distinct people of a matter: hot (5-60, most under 10) with `hot_share`, else 2-4."""
    if rng.random() < hot_share:
        lo, hi = rng.choices([(5, 8), (9, 14), (15, 25), (26, 60)], weights=[0.6, 0.25, 0.1, 0.05])[0]
        return rng.randint(lo, hi)
    return rng.choices([2, 3, 4], weights=[0.55, 0.3, 0.15])[0]


def window(rng: random.Random, persons: int) -> int:
    """Days over which a group's first rows arrive: larger matters last longer."""
    if persons >= 15:
        return rng.randint(14, 50)
    if persons >= 5:
        return rng.randint(5, 30)
    return rng.randint(1, 20)


PAIRED_PROBLEMS = {"company": ("wages", "insurance"), "site": ("noise", "dust"), "compound": ("water", "garbage"),
                   "market": ("market_dirty", "market_road"), "stretch": ("road_damage", "street_light")}
PROBLEM_WEIGHTS = {"heating": 12, "lift": 8, "leak": 5, "water": 7, "garbage": 5, "parking": 4, "smell": 4, "wages": 12,
                   "insurance": 5, "noise": 8, "dust": 5, "traffic_light": 5, "road_damage": 5, "street_light": 3,
                   "bus": 4, "school_fee": 4, "market_dirty": 2, "market_road": 2, "prepaid": 6}


def any_problem(rng: random.Random) -> str:
    return rng.choices(list(PROBLEM_WEIGHTS), weights=list(PROBLEM_WEIGHTS.values()))[0]


def hard_negatives(plan: Plan, scale: float, hot_share: float) -> None:
    """The close-but-distinct groups, each side of two or more people."""
    rng, town = plan.rng, plan.town
    n = lambda count: max(1, round(count * scale))
    note = lambda kind, groups: plan.negatives.setdefault(kind, []).append(
        tuple(g.key for g in groups if g is not None)) if sum(g is not None for g in groups) >= 2 else None

    for _ in range(n(28)):  # sibling buildings, one problem, the same week
        compound = rng.choice([c for c in town.compounds if c.buildings >= 6])
        problem = rng.choice(["heating", "heating", "lift", "leak"])
        first = rng.randint(1, compound.buildings - 2)
        blds = [first, first + 1] + ([first + 2] if rng.random() < 0.4 else [])
        at, made = plan.start(problem, 30), []
        for b in blds:
            persons = size(rng, hot_share)
            made.append(plan.group(problem, persons, window(rng, persons), town.building(compound, b), at, 4, tries=3))
        note("sibling_buildings", made)

    for _ in range(n(14)):  # similar company names: one brand, two trades
        brand = town._brand()
        a, b = rng.sample(INDUSTRIES, 2)
        pair = [town.company(brand, a), town.company(brand, b)]
        note("similar_company_names", overlapping(plan, rng, pair, rng.choice(["wages", "wages",
        "insurance"]), hot_share))

    for _ in range(n(10)):  # one company name in two districts
        brand, trade = town._brand(), rng.choice(INDUSTRIES)
        d1, d2 = rng.sample(DISTRICTS, 2)
        pair = [town.company(brand, trade, d1, True), town.company(brand, trade, d2, True)]
        note("name_in_two_districts", overlapping(plan, rng, pair, rng.choice(["wages", "insurance"]), hot_share))

    mains = list(town.crossroads)
    for _ in range(n(12)):  # adjacent intersections on one main road
        main = rng.choice(mains)
        i = rng.randint(0, len(town.crossroads[main]) - 2)
        pair = [town.crossing(main, i), town.crossing(main, i + 1)]
        note("adjacent_crossings", overlapping(plan, rng, pair, "traffic_light", hot_share))

    for _ in range(n(10)):  # two stretches of one road, sharing an end
        main = rng.choice(mains)
        i = rng.randint(0, len(town.crossroads[main]) - 3)
        pair = [town.stretch(main, i), town.stretch(main, i + 1)]
        note("road_stretches", overlapping(plan, rng, pair, rng.choice(["road_damage", "road_damage",
        "street_light"]),
                                           hot_share))

    for _ in range(n(24)):  # one object, two problems at once
        kind = rng.choice(list(PAIRED_PROBLEMS) + ["company", "site"])
        place = town.alone_company() if kind == "company" else rng.choice(town.pools[kind])
        p1, p2 = PAIRED_PROBLEMS[kind]
        persons = size(rng, hot_share)
        g1 = plan.group(p1, persons, window(rng, persons), place)
        g2 = None
        if g1 is not None:
            persons = size(rng, hot_share)
            g2 = plan.group(p2, persons, window(rng, persons), place, g1.start - timedelta(days=3), 8)
        note("other_problem", [g1, g2])

    for _ in range(n(22)):  # one object and problem, two episodes months apart
        problem = rng.choice(["heating", "heating", "heating", "lift", "water", "wages", "noise", "prepaid"])
        place = plan.place_for(problem) if problem != "wages" else town.alone_company()
        persons = size(rng, hot_share)
        if problem == "heating":
            (lo1, hi1), (lo2, _) = WINTERS
            g1 = plan.group(problem, persons, window(rng, persons), place, lo1, (hi1 - lo1).days - 50)
            persons = size(rng, hot_share)
            g2 = plan.group(problem, persons, window(rng, persons), place, lo2, 60) if g1 else None
        else:
            g1 = plan.group(problem, persons, window(rng, persons), place, START, 180)
            persons = size(rng, hot_share)
            g2 = plan.group(problem, persons, window(rng, persons), place,
                            g1.start + timedelta(days=g1.days + 110), 150) if g1 else None
        note("other_episode", [g1, g2])


def overlapping(plan: Plan, rng: random.Random, places: list[Place], problem: str, hot_share: float) -> list:
    """One group per place, one problem, their windows overlapping."""
    at, made = plan.start(problem, 40), []
    for place in places:
        persons = size(rng, hot_share)
        made.append(plan.group(problem, persons, window(rng, persons), place, at, 10, tries=5))
    return made


# ------------------------------------------------------------------ people and rows


def resident_address(rng: random.Random, compound: Place, b: int) -> str:
    """A resident's address in one of the forms a hotline records them."""
    unit, room = rng.randint(1, 4), rng.randint(1, 28) * 100 + rng.randint(1, 4)
    name = compound.forms[0]
    form = rng.choice([
        f"{compound.district}{name}{b}号楼{unit}单元{room}", f"{name}{b}-{unit}-{room}",
        f"{CITY}市{compound.district}{compound.road}{rng.randint(1, 300)}号{name}{b}栋{unit}单元{room}室",
        f"{name}{cn(b)}号楼{room}", f"{name}小区{b}号楼{unit}单元{room}室" if not name.endswith("小区") else f"{name}{b}号楼{room}",
        f"{name}{b}#{unit}单元{room}", f"{compound.district}{name}{b}幢{room}室",
    ])
    return form.translate(FULL) if rng.random() < 0.05 else form


def elsewhere(rng: random.Random, town: Town) -> tuple[str, tuple[str, int]]:
    compound = rng.choice(town.compounds)
    b = rng.randint(1, compound.buildings)
    if rng.random() < 0.25:
        road = rng.choice(ROADS)
        return f"{rng.choice(DISTRICTS)}{road}{rng.randint(1, 400)}号", None
    return resident_address(rng, compound, b), (compound.key, b)


def new_person(plan: Plan, home: tuple[Place, int] | None) -> Person:
    """A new person, living at `home` (compound, building) when given, else anywhere."""
    rng = plan.rng
    key = f"u{len(plan.people) + 1:05d}"
    if home is not None:
        compound, b = home
        address, where = resident_address(rng, compound, b), (compound.key, b)
    else:
        address, where = elsewhere(rng, plan.town)
    person = Person(key, person_name(rng), phone(rng), address, where)
    plan.people[key] = person
    if where is not None:
        plan.residents.setdefault(where[0], []).append(key)
    return person


def member(plan: Plan, group: Group) -> Person:
    """Who writes next in a group: a resident for compound and building problems (now and
    then one who already wrote about another matter of theirs), otherwise anyone."""
    rng, place = plan.rng, group.place
    compound = place.compound if place.kind == "building" else place if place.kind == "compound" else None
    if compound is None:
        return new_person(plan, None)
    earlier = [k for k in plan.residents.get(compound.key, []) if k not in group.members
               and (place.kind == "compound" or plan.people[k].home[1] == place.building)]
    if earlier and rng.random() < 0.05:
        return plan.people[rng.choice(earlier)]
    b = place.building if place.kind == "building" else rng.randint(1, compound.buildings)
    return new_person(plan, (compound, b))


def values(rng: random.Random, group: Group, at: datetime) -> dict:
    """The writer's own numbers for the template slots."""
    lo, hi = PROBLEMS[group.problem].amounts
    amount = rng.randint(lo, hi)
    amount = amount // 100 * 100 if amount > 2000 and rng.random() < 0.7 else amount
    return {"temp": rng.choice([12, 13, 14, 15, 15, 16, 16, 17, "十四五", "十五六"]), "amount": amount,
            "days": rng.choice([2, 3, 4, 5, 6, 7, 10, 12, 15, 20, "好几", "十来", "七八"]),
            "months": rng.choice([2, 3, 4, 5, 6, 8, "两", "三", "四"]),
            "count": rng.choice([10, 20, 30, 40, 50, 60, 80, 100, 200]), "n": rng.randint(2, 9),
            "floor": rng.randint(6, 33), "hour": rng.choice([11, 12, "十一", "十二", 1, 2]), "route": group.place.route,
            "since": day_text(rng, group.since, at), "age": rng.randint(60, 93), "grade": rng.choice("一二三四五六七八九")}


def mention(rng: random.Random, group: Group, person: Person, operator: bool) -> str:
    """The object as this writer names it: a form, or for a resident often only 'our building'."""
    place = group.place
    resident = person.home is not None and place.kind in ("building", "compound") and (
        place.key == person.home[0] or place.compound is not None and place.compound.key == person.home[0])
    if resident and rng.random() < 0.22:
        return rng.choice(["其所在楼栋", "其小区"] if operator else ["我们楼", "我家这栋楼", "我们这栋", "本楼", "我们小区", "我们单元", ""])
    if resident and place.kind == "building" and rng.random() < 0.25:
        return place.compound.say(rng)  # the building only in the address field
    said = place.say(rng)
    if place.kind in ("crossing", "stretch", "stop") and rng.random() < 0.3:
        said = rng.choice(["{}这边", "{}附近", "位于{}的", "{}那里"]).format(said)
    return said


def identity(rng: random.Random, group: Group, person: Person) -> str:
    kind = group.place.kind
    words = {
        "building": ["我是这栋楼的住户，", "我是业主，", "我家住{addr}，", "本人系该楼业主，", "我是老住户了，"],
        "compound": ["我是这个小区的业主，", "我家住{addr}，", "我们是小区居民，", "本人是业主，"],
        "company": ["我是一名工人，", "我在这家公司上班，", "我是[这里的|公司]员工，", "我们是[一线|车间的]工人，", "我是干装修的[师傅|工人]，"],
        "site": ["我住在[工地|施工现场]旁边，", "我家就在[工地|那边]对面，", "我是附近居民，"],
        "crossing": ["我每天[开车|骑车]经过这里，", "我是附近居民，", "我是一名司机，"],
        "stretch": ["我天天走这条路，", "我是附近的居民，", "我是[跑外卖|送快递]的，"],
        "stop": ["我是附近居民，", "我[每天|天天]坐公交上班，", "我家老人[经常|每天]坐车，"],
        "school": ["我是[学生|孩子]家长，", "我家孩子在这上学，", "我是{grade}年级学生家长，"],
        "market": ["我住在市场旁边，", "我是附近居民，", "我[每天|天天]去买菜，"],
        "shop": ["我是[这家店的|]会员，", "我在这办了卡，", "我是[学员|学员家长]，"],
    }[kind]
    return spin(rng, rng.choice(words), {"addr": person.address, "grade": rng.choice("一二三四五六")})


def sentence(text: str) -> str:
    return text if text.endswith(("。", "！", "？")) else text + "。"


def content(rng: random.Random, group: Group, person: Person, at: datetime) -> str:
    """One writer's own account of the group's problem."""
    problem, kind = PROBLEMS[group.problem], group.place.kind
    vals = values(rng, group, at)
    operator = rng.random() < 0.18
    parts = [rng.choice(OPERATOR)] if operator else ([rng.choice(OPENERS)] if rng.random() < 0.5 else [])
    if rng.random() < 0.4 and not operator:
        parts.append(identity(rng, group, person))
    says = rng.sample(problem.says, 2)
    where = mention(rng, group, person, operator)
    lead = spin(rng, says[0], vals)
    parts.append(sentence(where + ("" if not where or rng.random() < 0.7 else "，") + lead))
    if rng.random() < 0.35:
        parts.append(sentence(spin(rng, says[1], vals)))
    for d in rng.sample(problem.details, min(len(problem.details), rng.choice([0, 1, 1, 2, 2, 3]))):
        parts.append(sentence(spin(rng, d, vals)))
    if rng.random() < 0.3:
        parts.append(sentence(spin(rng, rng.choice(KIND_EFFECTS[kind]), vals)))
    if rng.random() < 0.8:
        parts.append(spin(rng, rng.choice(REQUESTS + KIND_REQUESTS.get(kind, []) * 2), vals))
    if rng.random() < 0.3:
        parts.append(rng.choice(CLOSINGS))
    text = "".join(parts)
    if operator:
        text = text.replace("我们", "他们").replace("我家", "其家").replace("我", "其")
    return text


def title(rng: random.Random, group: Group) -> str:
    problem = PROBLEMS[group.problem]
    r = rng.random()
    if r < 0.35:
        return rng.choice(GENERIC_TITLES)
    if r < 0.88:
        return rng.choice(problem.titles)
    return group.place.say(rng) + rng.choice(problem.titles)


def roughen(rng: random.Random, text: str) -> str:
    """Retyping noise: full-width digits, half-width punctuation, a homophone typo."""
    if rng.random() < 0.12:
        text = text.translate(FULL)
    if rng.random() < 0.15:
        text = text.translate(HALF)
    if rng.random() < 0.08:
        spots = [i for i, c in enumerate(text) if c in TYPOS]
        if spots:
            i = rng.choice(spots)
            text = text[:i] + TYPOS[text[i]] + text[i + 1:]
    return text


def draft(rng: random.Random, person: Person, at: datetime, title_: str, category: str, text: str) -> dict:
    """A row before numbering; a few cells left blank as hotlines do."""
    return {"title": title_ if rng.random() > 0.02 else "", "name": person.name,
            "phone": person.phone if rng.random() > 0.04 else "",
            "address": person.address if rng.random() > 0.04 else "",
            "category": category, "content": text, "created_at": at, "_person": person.key}


def category(rng: random.Random, group: Group) -> str:
    if rng.random() < 0.06:
        return rng.choice(sorted({p.category for p in PROBLEMS.values()}))
    return PROBLEMS[group.problem].category


def arrival(rng: random.Random, group: Group, first: bool) -> datetime:
    """When a member first writes: the first at the start, the others front-loaded in the window."""
    offset = 0.0 if first else group.days * rng.random() ** 1.6
    at = group.start + timedelta(days=offset, hours=rng.choice([0, 1, 2, 3, 5, 8]), minutes=rng.randint(0, 59))
    at = at.replace(hour=rng.choice([7, 8, 8, 9, 9, 10, 10, 11, 13, 14, 15, 16, 17, 19, 20, 21, 22, 23, 0]))
    return min(at, END)


def write_group(plan: Plan, group: Group, drafts: list[dict], extras: dict, resubmit_rate: float,
                resubmits: tuple[int, int] = (1, 2)) -> None:
    """Every member's first row, some re-submissions, and perhaps a form letter sent by several."""
    rng = plan.rng
    senders: list[int] = []
    if group.persons >= 6 and rng.random() < 0.3:
        senders = rng.sample(range(1, group.persons), rng.randint(3, min(8, group.persons - 1)))
    form_text = ""
    for i in range(group.persons):
        person = member(plan, group)
        group.members.append(person.key)
        at = arrival(rng, group, i == 0)
        if i in senders:
            if not form_text:
                who = {"company": "公司员工", "building": "本楼业主", "compound": "小区业主"}.get(group.place.kind, "附近居民")
                head = spin(rng, rng.choice(FORM_OPENERS), {"group": who, "obj": group.place.say(rng),
                                                            "title": PROBLEMS[group.problem].titles[0]})
                form_text = head + content(rng, group, person, at)
            text = form_text + (f"联系人：{person.name}。" if rng.random() < 0.4 else "")
            extras["form_letter"].append(len(drafts))
        else:
            text = roughen(rng, content(rng, group, person, at))
        row = draft(rng, person, at, title(rng, group), category(rng, group), text)
        group.rows.append(len(drafts))
        drafts.append(row | {"_group": group.key})
        if rng.random() < resubmit_rate:
            resubmit(plan, group, person, row, drafts, extras, rng.randint(*resubmits), i in senders)


def resubmit(plan: Plan, group: Group, person: Person, row: dict, drafts: list[dict], extras: dict, times: int,
             form: bool = False) -> None:
    """The person files again, days later: the same text or new words, marked as a repeat."""
    rng, at = plan.rng, row["created_at"]
    for _ in range(times):
        at = min(at + timedelta(days=rng.randint(1, 18), hours=rng.randint(0, 12)), END)
        copied = rng.random() < 0.5
        body = row["content"] if copied else roughen(rng, content(rng, group, person, at))
        text = rng.choice(RESUBMIT) + body
        name = rng.choice(["再次反映", "重复反映", "催办", row["title"], title(rng, group)])
        again = draft(rng, person, at, name, row["category"], text) | {"_group": group.key}
        extras["resubmission"].append(len(drafts))
        if copied and form:  # a form letter sent again is still the form letter
            extras["form_letter"].append(len(drafts))
        group.rows.append(len(drafts))
        drafts.append(again)


def policy_rows(plan: Plan, count: int, drafts: list[dict], extras: dict) -> None:
    """Questions about a policy, no object: never a matter, however many ask."""
    rng = plan.rng
    topics = list(POLICY)
    made = 0
    while made < count:
        topic = rng.choices(topics, weights=[6, 5, 6, 4, 4, 3, 2, 2, 2, 2])[0]
        cat, asks = POLICY[topic]
        person = new_person(plan, None)
        at = START + timedelta(seconds=rng.randint(0, int((END - START).total_seconds())))
        times = 1 + (rng.randint(1, 2) if rng.random() < 0.1 else 0)
        for t in range(times):
            parts = [rng.choice(POLICY_OPENERS)] if rng.random() < 0.6 else []
            if rng.random() < 0.12:  # names an object that is no matter here
                place = rng.choice(plan.town.companies + plan.town.compounds)
                parts.append(f"我在{place.say(rng)}上班，" if place.kind == "company" else f"我住{place.say(rng)}，")
            parts.append(spin(rng, rng.choice(asks), {}) + rng.choice(["？", "，", "。"]))
            for d in rng.sample(POLICY_DETAILS, rng.choice([0, 1, 1, 2])):
                parts.append(sentence(spin(rng, d, {"age": rng.randint(22, 64), "months": rng.randint(2, 15)})))
            parts.append(rng.choice(POLICY_ASKS))
            text = ("再次咨询：" if t else "") + roughen(rng, "".join(parts))
            name = rng.choice(["咨询", "政策咨询", topic + "咨询", topic, "询问" + topic, "问一下"])
            extras["policy"].append(len(drafts))
            if t:
                extras["resubmission"].append(len(drafts))
            drafts.append(draft(rng, person, at, name, cat, text) | {"_group": ""})
            at = min(at + timedelta(days=rng.randint(2, 30)), END)
            made += 1


# ------------------------------------------------------------------ the table


def build(rows: int = 8000, seed: int = 7) -> Made:
    """The table of about `rows` rows with what it was made of; the same seed, the same table."""
    rng = random.Random(seed)
    scale = rows / 8000
    hot_share = 260 / 690
    plan = Plan(rng, Town(rng))
    hard_negatives(plan, scale, hot_share)
    for _ in range(max(1, round(690 * scale)) - len(plan.groups)):  # the other matters
        problem = any_problem(rng)
        persons = size(rng, hot_share)
        plan.group(problem, persons, window(rng, persons))
    lone = [g for g in (plan.group(any_problem(rng), 1, 30) for _ in range(round(220 * scale))) if g is not None]
    drafts: list[dict] = []
    extras: dict[str, list[int]] = {"form_letter": [], "resubmission": [], "policy": []}
    lone_keys = {g.key for g in lone}
    for group in list(plan.groups.values()):
        if group.key in lone_keys:
            write_group(plan, group, drafts, extras, 1.0, (1, 3))
        else:
            write_group(plan, group, drafts, extras, 0.12)
    policy_rows(plan, round(640 * scale), drafts, extras)
    while len(drafts) < rows:  # singletons: one person, one complaint
        group = plan.group(any_problem(rng), 1, 1)
        if group is not None:
            write_group(plan, group, drafts, extras, 0.0)
    plan.negatives["one_person"] = [(g.key,) for g in lone]
    return numbered(plan, drafts, extras)


def numbered(plan: Plan, drafts: list[dict], extras: dict) -> Made:
    """Rows numbered 1..n by created_at; a group is a matter when two or more people wrote."""
    order = sorted(range(len(drafts)), key=lambda i: (drafts[i]["created_at"], i))
    new_id = {old: n for n, old in enumerate(order, start=1)}
    is_matter = {k: len(set(g.members)) >= 2 for k, g in plan.groups.items()}
    rows, matter, person, row_group = [], {}, {}, {}
    for old in order:
        d, rid = drafts[old], new_id[old]
        rows.append({"id": rid, "title": d["title"], "name": d["name"], "phone": d["phone"], "address": d["address"],
                     "category": d["category"], "content": d["content"],
                     "created_at": d["created_at"].strftime("%Y-%m-%d %H:%M:%S")})
        matter[rid] = d["_group"] if d["_group"] and is_matter[d["_group"]] else None
        person[rid], row_group[rid] = d["_person"], d["_group"]
    for group in plan.groups.values():
        group.rows = sorted(new_id[i] for i in group.rows)
    ids = lambda key: sorted(new_id[i] for i in extras[key])
    return Made(Hotline(rows, matter, person), plan.groups, plan.negatives, row_group, ids("policy"),
                ids("form_letter"), ids("resubmission"))


def make(rows: int = 8000, seed: int = 7) -> Hotline:
    """The held-back labelled hotline table (see the module docstring)."""
    return build(rows, seed).hotline
