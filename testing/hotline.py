"""A labelled 12345-hotline table for the matters stage (issue 52): the TUNING set.

Rows of many people about one concrete matter (an object + a problem + an episode), each
writer in their own words, among singletons, one person's re-submissions, policy questions
and form letters. The truth follows issue 52's rules (a matter needs two people; a policy
question is none; re-submissions and form letters join what they repeat; rows the rules would
call one matter are never labelled two: episodes of one object and problem are 120+ days apart).
It is made hard: sibling buildings, similar company names, one name in two districts,
adjacent intersections, two stretches of one road, one object with two problems, one object
and problem in two episodes; object names in many surface forms, sometimes only in the
address field; typos, colloquial writing, full-width digits. Everything follows from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

START = datetime(2025, 1, 1)
DAYS = 545                       # about 18 months
CITY = "西京"
DISTRICTS = ["高新区", "经开区", "新城区", "碑林区", "雁塔区", "莲湖区", "未央区", "灞桥区", "长安区", "临潼区"]
ODD_ENDINGS = ["大境", "之光", "壹号", "天地", "印象", "上城", "时代", "万象"]
CN_DIGITS = "零一二三四五六七八九十"
WIDE = str.maketrans("0123456789", "０１２３４５６７８９")

COMPOUND_WORDS = ["阳光", "锦绣", "金色", "翠华", "紫薇", "融侨", "绿地", "枫林", "曲江", "天朗", "御景", "龙湖",
                  "世纪", "幸福", "和谐", "东方", "明珠", "碧水", "蓝湾", "丽景", "金辉", "海棠", "桃园", "春晓",
                  "秋实", "松柏", "兴庆", "长乐", "安居", "建工", "电子", "纺织", "华润", "中铁", "雅荷", "盛世",
                  "青松", "白桦", "翡翠", "玉兰", "丹桂", "星河", "新港", "银河", "朝阳", "南湖", "北辰", "西城",
                  "凤凰", "泰和", "嘉园", "怡景", "书香", "水岸", "山水", "云顶", "天赐", "恒大", "保利", "龙记"]
COMPOUND_SUFFIXES = ["花园", "家园", "小区", "苑", "名苑", "华庭", "新村", "公寓", "嘉园", "雅居", "新城", "府", "里",
                     "佳苑", "国际", "公馆"]
COMPANY_PAIRS = [("永兴", "永鑫"), ("华泰", "华太"), ("宏达", "鸿达"), ("恒信", "恒鑫"), ("金诚", "金城"),
                 ("盛源", "圣源"), ("瑞丰", "瑞峰"), ("天成", "天诚"), ("嘉禾", "佳禾"), ("博远", "博源"),
                 ("众诚", "众成"), ("鑫达", "新达"), ("海川", "海创"), ("明德", "明得"), ("凯越", "凯悦"),
                 ("中联", "中天"), ("百胜", "佰盛"), ("同创", "同川"), ("安泰", "安达"), ("润丰", "润峰"),
                 ("鼎盛", "鼎晟"), ("远航", "远行"), ("汇丰", "汇峰"), ("长盛", "长胜"), ("锦程", "锦城")]
INDUSTRIES = ["物流", "建筑劳务", "餐饮管理", "科技", "保洁服务", "电子", "服装", "建材", "装饰工程",
              "教育咨询", "健身", "家政服务", "汽车销售", "食品"]
ROADS = ["中山路", "人民路", "解放路", "建设路", "和平路", "胜利路", "太白路", "朱雀大街", "含光路", "科技路",
         "丈八东路", "唐延路", "锦业路", "团结南路", "友谊西路", "咸宁路", "长乐路", "东关正街", "劳动路", "西影路",
         "雁塔北路", "雁塔南路", "长安北路", "长安南路", "未央路", "凤城五路", "凤城六路", "北关正街", "南二环",
         "东二环", "玉祥门大街", "大庆路", "枣园路", "纬二街", "光华路", "永松路", "明光路", "兴善寺东街"]
PLACES = ["体育馆", "图书馆", "南稍门", "小寨东", "电子城", "火车站东", "大雁塔北", "钟楼西", "省医院", "纺织城",
          "航天城", "北客站西", "万寿路口", "韩森寨", "文景路口", "市政府北", "三爻村", "杜城村", "沙井村", "鱼化寨"]
SITE_WORDS = ["万达广场二期", "地铁八号线小寨站", "万象城", "创业大厦", "国际会展中心", "荣民金融中心",
              "第一医院新住院楼", "绿地中心三期", "曲江文化中心", "高新体育中心", "棚户区改造安置房", "新能源产业园",
              "科技大厦B座", "立交桥改造工程", "雨污分流管网工程", "恒大文化旅游城", "融创东方宸院", "奥体中心配套"]
SCHOOL_NAMES = ["第三中学", "第八中学", "第二十六中学", "第八十三中学", "阳光小学", "曙光小学", "育才小学",
                "实验小学", "翠华路小学", "红星幼儿园", "蓝天幼儿园", "小太阳幼儿园", "博爱实验学校", "铁一中分校",
                "第五十中学", "高新第一小学"]
MARKET_WORDS = ["胡家庙", "大明宫", "北关", "小寨", "朱雀", "土门", "何家营", "韩森寨", "东郊", "电子城", "三桥",
                "吉祥村"]
SHOP_KINDS = ["烧烤", "火锅店", "饭店", "超市", "KTV", "健身房", "理发店", "面馆", "洗车店", "酒吧", "棋牌室", "美容院"]
SHOP_WORDS = ["老王", "串串香", "蜀香", "大刘", "好再来", "红星", "金牌", "胖哥", "小李", "聚贤", "兴旺", "吉祥",
              "麦香", "川渝", "东北", "老街", "阿牛", "悦动", "乐享", "名剪"]

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢"
GIVEN = "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超秀兰霞平刚桂英华建国建华志强淑珍玉兰海燕红梅晓东丹丹"

# The problems: for each, the object kind it is about, a short label for titles, and many
# phrasings (each writer picks their own), plus details that carry the kind's wording.
PROBLEMS: dict[str, dict] = {
    "heating": {"kind": "building", "label": ["暖气不热", "供暖问题", "暖气问题", "供热不达标"], "say": [
        "暖气一点都不热", "暖气片是凉的", "供暖温度不达标", "屋里温度只有十二三度", "暖气不热，家里冻得不行",
        "供暖到现在还不正常", "暖气摸着冰凉", "家里冷得穿羽绒服", "室温上不去，老人孩子都感冒了", "暖器不热",
        "暧气根本不热", "供热效果太差了", "集中供暖温度太低", "暖气只有温乎气", "到现在还没来暖气"],
        "detail": ["打了好几次热力公司电话都说在排查", "物业说是管道的问题", "交了供暖费却享受不到供暖",
                   "家里有八十多岁的老人", "晚上睡觉冻醒好几次", "测了室温只有14度", "楼上楼下都一样",
                   "孩子感冒发烧了", "开了电暖器电费很高", "希望尽快派人来检修管道"]},
    "lift": {"kind": "building", "label": ["电梯故障", "电梯问题", "电梯停运"], "say": [
        "电梯又坏了", "电梯经常停运", "电梯三天两头出故障", "电梯困人了", "电梯停了一个多星期没人修",
        "电梯运行时异响很大", "电梯门关不上", "电梯突然下坠了一下", "电梯坏了没人管", "电梯经常卡在半空"],
        "detail": ["住在高层的老人下不了楼", "物业说在等配件", "维保单位一直推脱", "每天爬二十多层楼",
                   "有人被困了四十分钟", "担心出安全事故", "维修基金也申请不下来", "孩子上学很不方便"]},
    "leak": {"kind": "building", "label": ["楼顶漏水", "漏水问题", "墙体渗水"], "say": [
        "楼顶漏水", "一下雨屋顶就渗水", "外墙渗水严重", "顶层天花板漏水", "楼道里漏水", "屋面防水坏了，家里墙都湿了",
        "下雨天家里到处接水", "墙皮被水泡得脱落"], "detail": [
        "家具都泡坏了", "墙上长满了霉斑", "找物业多次无果", "开发商说过了保修期", "维修基金的事没人管",
        "电线进水有安全隐患"]},
    "property": {"kind": "compound", "label": ["物业问题", "物业服务差", "投诉物业"], "say": [
        "物业服务太差", "物业不作为", "物业乱收费", "物业费涨价没有公示", "物业公司什么都不管",
        "物业擅自提高收费标准", "物业把公共收益据为己有"], "detail": [
        "业主多次反映都没结果", "卫生没人打扫", "门禁坏了也不修", "保安形同虚设", "业委会也成立不了"]},
    "parking": {"kind": "compound", "label": ["停车问题", "停车收费", "车位问题"], "say": [
        "停车费乱涨", "地下车位只卖不租", "小区停车位被外来车辆占用", "停车收费标准不合理", "车位租金一下涨了一倍",
        "消防通道上停满了车"], "detail": ["业主没地方停车", "物业拿车位牟利", "晚上回来根本找不到车位",
                                        "要求公开收费依据"]},
    "garbage": {"kind": "compound", "label": ["垃圾清运", "垃圾堆放", "环境卫生"], "say": [
        "垃圾好几天没人清运", "垃圾站臭气熏天", "垃圾堆成山了没人管", "垃圾桶满了溢出来", "垃圾清运不及时"],
        "detail": ["夏天苍蝇蚊子特别多", "味道大得不敢开窗", "老鼠到处跑", "影响居民身体健康"]},
    "wages": {"kind": "company", "label": ["拖欠工资", "讨薪", "欠薪", "工资被拖欠"], "say": [
        "拖欠工资三个月了", "到现在还没发工资", "欠我们好几个月的工资", "工资一直拖着不给", "老板跑了工资没人给",
        "拖欠农民工工资", "干了半年活一分钱没拿到", "欠薪不还", "不发工资", "工资拖欠了两个月"],
        "detail": ["一家老小等着钱过年", "找老板电话也不接", "公司说资金困难", "我们有几十个工人都一样",
                   "劳动合同也没签", "去公司找人门都锁了", "房租都交不起了"]},
    "insurance": {"kind": "company", "label": ["社保未缴", "社保问题", "不交社保"], "say": [
        "一直不给交社保", "社保断缴了半年", "社保没有缴纳", "扣了社保钱却没交", "社保停缴了", "没给员工缴纳社会保险",
        "五险一金都不交"], "detail": ["看病报销不了", "查了社保记录才发现", "影响孩子上学", "公司说以后补但一直没补",
                                   "员工都很着急"]},
    "deposit": {"kind": "company", "label": ["押金不退", "退款难", "押金问题"], "say": [
        "押金一直不退", "退卡不给退钱", "交了押金退不回来", "说好的押金迟迟不退", "办理退费一直拖延"],
        "detail": ["打客服电话没人接", "门店已经关门了", "很多人都被坑了", "金额好几千元"]},
    "night_noise": {"kind": "site", "label": ["夜间施工", "施工噪音", "噪音扰民"], "say": [
        "晚上施工噪音太大", "半夜还在施工", "夜间施工扰民", "凌晨两三点还在打桩", "晚上十一点以后还在作业",
        "夜里机器轰隆隆响", "深夜施工吵得睡不着", "24小时不停工，噪音扰民"], "detail": [
        "老人孩子根本睡不着", "第二天上班没精神", "打了110也没用", "有没有夜间施工许可证", "孩子要高考了"]},
    "dust": {"kind": "site", "label": ["扬尘污染", "施工扬尘", "灰尘大"], "say": [
        "扬尘特别大", "工地灰尘漫天", "渣土没有覆盖，风一吹全是土", "施工扬尘污染严重", "工地不洒水，尘土飞扬",
        "渣土车带泥上路，扬尘严重"], "detail": ["窗台上一层灰", "衣服都不敢晾在外面", "空气质量很差", "嗓子天天难受"]},
    "signal": {"kind": "junction", "label": ["红绿灯故障", "信号灯问题", "交通信号灯"], "say": [
        "红绿灯坏了", "信号灯不亮", "红绿灯一直闪黄灯", "信号灯时间设置不合理", "红绿灯故障好几天了",
        "左转灯太短", "路口红绿灯失灵"], "detail": ["路口秩序很乱", "早晚高峰堵得厉害", "差点发生车祸",
                                           "行人过马路很危险", "交警也没来疏导"]},
    "flooding": {"kind": "junction", "label": ["路口积水", "道路积水", "积水问题"], "say": [
        "一下雨就积水", "积水很深", "积水能没过膝盖", "下雨后积水好几天不退", "排水不畅积水严重"],
        "detail": ["车辆熄火在水里", "行人没法通行", "下水道可能堵了", "每年雨季都这样"]},
    "potholes": {"kind": "stretch", "label": ["路面破损", "道路坑洼", "路面坑洼"], "say": [
        "路面坑坑洼洼", "路面破损严重", "路上好多大坑", "路面塌陷了一块", "道路年久失修坑洼不平", "井盖下沉形成大坑"],
        "detail": ["电动车经常摔倒", "车辆颠得厉害", "下雨天坑里全是水", "晚上看不清很危险"]},
    "streetlight": {"kind": "stretch", "label": ["路灯不亮", "路灯故障", "照明问题"], "say": [
        "路灯不亮", "路灯坏了好久", "晚上路灯全黑", "一整段路灯都不亮", "路灯时亮时不亮"],
        "detail": ["晚上走路很害怕", "女孩子下夜班不安全", "已经有人摔倒了", "希望尽快修复照明"]},
    "bus_stop": {"kind": "stop", "label": ["公交站问题", "站台损坏", "候车亭"], "say": [
        "候车亭玻璃碎了", "站牌倒了", "站台被占用", "公交站牌信息错误", "候车亭顶棚漏雨", "站台没有遮阳棚"],
        "detail": ["等车的人很多", "老人没地方坐", "下雨天只能淋着", "存在安全隐患"]},
    "bus_skip": {"kind": "stop", "label": ["公交不停靠", "公交车甩站", "公交班次"], "say": [
        "公交车经常不停靠", "公交车甩站", "公交车过站不停", "班次太少等半个小时", "末班车提前收车"],
        "detail": ["上班经常迟到", "打电话给公交公司没用", "司机态度也不好", "希望加强管理"]},
    "school_fees": {"kind": "school", "label": ["学校乱收费", "违规收费", "收费问题"], "say": [
        "学校乱收费", "强制收取资料费", "违规收取补课费", "强制订购校服和教辅", "收取赞助费", "课后服务强制收费"],
        "detail": ["家长都敢怒不敢言", "不交就给孩子穿小鞋", "没有任何收费依据", "要求退还"]},
    "canteen": {"kind": "school", "label": ["食堂问题", "食品安全", "学校伙食"], "say": [
        "食堂饭菜有异物", "食堂卫生太差", "孩子吃了食堂饭拉肚子", "食堂饭菜质量差价格高", "食堂用过期食材"],
        "detail": ["好几个孩子都不舒服", "家长很担心", "希望市场监管部门检查", "要求公开食材来源"]},
    "stalls": {"kind": "market", "label": ["占道经营", "市场秩序", "乱摆摊"], "say": [
        "摊贩占道经营", "门口乱摆摊堵路", "商户把摊位摆到马路上", "占道经营严重"],
        "detail": ["车辆无法通行", "早上堵得水泄不通", "城管来了就跑走了就回来", "消防车都进不去"]},
    "short_weight": {"kind": "market", "label": ["缺斤少两", "短斤缺两", "计量作弊"], "say": [
        "缺斤少两", "秤有问题", "短斤缺两很严重", "买的菜回家一称少了好多", "商贩的秤动了手脚"],
        "detail": ["买一斤少二两", "好多老人都被坑了", "希望市场监管部门查一查", "投诉到市场管理处没人管"]},
    "fumes": {"kind": "shop", "label": ["油烟扰民", "油烟污染", "油烟问题"], "say": [
        "油烟太大", "油烟直排", "没有装油烟净化器", "油烟熏得家里没法住", "排烟管道对着居民窗户"],
        "detail": ["窗户都不敢开", "衣服上都是味", "老人呼吸道不好", "夏天更严重"]},
    "noise": {"kind": "shop", "label": ["噪音扰民", "经营噪音", "噪声污染"], "say": [
        "噪音太大", "音响开得特别响", "营业到凌晨吵得睡不着", "深夜还在喧哗", "外放音乐噪音扰民"],
        "detail": ["老人孩子休息不好", "跟老板说了也不管", "报警好几次", "希望执法部门管一管"]},
    "prepaid": {"kind": "shop", "label": ["预付卡退费", "办卡退费", "跑路"], "say": [
        "办的卡没法用了", "充值的钱退不了", "老板跑路了卡里的钱没了", "突然关门卡里还有好几千", "会员卡退费被拒"],
        "detail": ["很多会员都在找", "店门口贴了转让", "联系不上老板", "希望帮助追回"]},
}
POLICY = ["医保报销比例是多少", "落户政策有什么要求", "公积金怎么提取", "社保缴费基数怎么调整", "供暖补贴标准是多少",
          "新生入学需要什么材料", "灵活就业人员怎么交社保", "异地就医备案怎么办理", "二孩生育津贴怎么领", "退休金调整政策",
          "居住证怎么办理", "电梯加装有没有补贴政策", "失业金怎么领取", "人才引进落户条件", "老旧小区改造政策"]
OPENINGS = ["您好，", "你好，", "领导好，", "我要反映个问题，", "", "", "", "我是附近居民，", "我想投诉一下，",
            "请问，", "麻烦问一下，", "十万火急！", "再次反映："]
TIMES = ["这几天", "最近", "已经一个多星期了", "从上周开始", "今天又是这样", "一直这样", "这个月以来", "好长时间了",
         "昨天开始", "入冬以来", "半个月了"]
REQUESTS = ["请有关部门尽快处理。", "希望尽快解决！", "请帮忙协调一下。", "盼回复。", "恳请领导重视！",
            "请12345督促解决。", "谢谢！", "希望给个说法。", "请尽快派人来看看。", "再不处理我们就去上访了。", ""]
COLLOQUIAL = ["真是受不了了", "咋就没人管呢", "太气人了", "说了多少次了", "唉", "这算啥事啊", "真的无语", "哎呀"]
CATEGORY = {"building": "城乡建设", "compound": "住房保障", "company": "劳动保障", "site": "环境保护",
            "junction": "交通运输", "stretch": "城乡建设", "stop": "交通运输", "school": "教育", "market": "市场监管",
            "shop": "市场监管"}


@dataclass
class Hotline:
    rows: list[dict]
    matter: dict[int, str | None]
    person: dict[int, str]


@dataclass
class Obj:
    """A concrete object: its kind, a canonical id (the truth), and what its forms are built from."""
    kind: str
    key: str
    parts: dict = field(default_factory=dict)


def cn_number(n: int) -> str:
    """1..99 in Chinese numerals."""
    if n <= 10:
        return CN_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else CN_DIGITS[tens]) + "十" + (CN_DIGITS[ones] if ones else "")


class Maker:
    """Objects, people, rows and their truth, all drawn from one random source."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rows: list[dict] = []
        self.compounds = self._compounds()
        brands = [b for pair in COMPANY_PAIRS for b in pair]
        self.brand_home = {b: (self.rng.choice(DISTRICTS), self.rng.choice(INDUSTRIES)) for b in brands}
        self.people = 0
        self.used: set[str] = set()

    def _compounds(self) -> list[tuple[str, str, str]]:
        """(district, name, road) of every compound; names unique."""
        names = sorted({w + s for w in COMPOUND_WORDS for s in COMPOUND_SUFFIXES if not w.endswith(s)} |
                       {w + s for w in COMPOUND_WORDS[::3] for s in ODD_ENDINGS})     # names with no usual suffix
        self.rng.shuffle(names)
        return [(self.rng.choice(DISTRICTS), n, self.rng.choice(ROADS)) for n in names[:400]]

    # --- objects -------------------------------------------------------------------------
    def building(self, compound=None, number=None) -> Obj:
        district, name, road = compound or self.rng.choice(self.compounds)
        number = number or self.rng.randint(1, 24)
        return Obj("building", f"{name}#{number}", {"district": district, "name": name, "road": road, "no": number})

    def compound(self, compound=None) -> Obj:
        district, name, road = compound or self.rng.choice(self.compounds)
        return Obj("compound", name, {"district": district, "name": name, "road": road})

    def company(self, brand=None, district=None, industry=None) -> Obj:
        brand = brand or self.rng.choice(self.rng.choice(COMPANY_PAIRS))
        district = district or self.brand_home[brand][0]      # one company of a name, but for twins
        industry = industry or self.brand_home[brand][1]
        return Obj("company", f"{district}/{brand}", {"brand": brand, "district": district, "industry": industry,
                                                      "road": self.rng.choice(ROADS)})

    def site(self, word=None) -> Obj:
        word = word or self.rng.choice(SITE_WORDS)
        return Obj("site", word, {"name": word, "district": self.rng.choice(DISTRICTS)})

    def junction(self, a=None, b=None) -> Obj:
        a, b = a or self.rng.choice(ROADS), b or self.rng.choice(ROADS)
        while b == a:
            b = self.rng.choice(ROADS)
        return Obj("junction", "+".join(sorted((a, b))), {"a": a, "b": b})

    def stretch(self, road=None, ends=None) -> Obj:
        road = road or self.rng.choice(ROADS)
        ends = ends or self.rng.sample([r for r in ROADS if r != road], 2)
        return Obj("stretch", f"{road}:{'-'.join(sorted(ends))}", {"road": road, "ends": list(ends)})

    def stop(self, place=None) -> Obj:
        place = place or self.rng.choice(PLACES)
        return Obj("stop", place, {"name": place})

    def school(self, name=None) -> Obj:
        name = name or self.rng.choice(SCHOOL_NAMES)
        return Obj("school", name, {"name": name, "district": self.rng.choice(DISTRICTS)})

    def market(self, word=None) -> Obj:
        word = word or self.rng.choice(MARKET_WORDS)
        return Obj("market", word, {"name": word})

    def shop(self, word=None, kind=None) -> Obj:
        word, kind = word or self.rng.choice(SHOP_WORDS), kind or self.rng.choice(SHOP_KINDS)
        return Obj("shop", word + kind, {"word": word, "kind": kind, "road": self.rng.choice(ROADS)})

    def object_for(self, problem: str) -> Obj:
        kind = PROBLEMS[problem]["kind"]
        return {"building": self.building, "compound": self.compound, "company": self.company, "site": self.site,
                "junction": self.junction, "stretch": self.stretch, "stop": self.stop, "school": self.school,
                "market": self.market, "shop": self.shop}[kind]()

    # --- surface forms ---------------------------------------------------------------------
    def digits(self, n: int) -> str:
        """A number as a writer types it: 3, ３ or 三."""
        r = self.rng.random()
        return cn_number(n) if r < 0.3 else str(n).translate(WIDE) if r < 0.4 else str(n)

    def building_form(self, n: int) -> str:
        r = self.rng
        forms = [f"{self.digits(n)}号楼", f"{self.digits(n)}栋", f"{n}#楼", f"{self.digits(n)}幢", f"{n}#",
                 f"第{self.digits(n)}栋", f"{self.digits(n)}号楼", f"{n}号"]
        return r.choice(forms)

    def compound_form(self, o: Obj) -> str:
        p, r = o.parts, self.rng
        name = p["name"]
        forms = [name, name, name + ("小区" if not name.endswith("小区") else ""), p["district"] + name,
                 f"{p['road']}上的{name}", f"{CITY}市{p['district']}{name}", f"{name}小区" if r.random() < .5 else name]
        return r.choice(forms)

    def company_form(self, o: Obj, with_district: bool) -> str:
        p, r = o.parts, self.rng
        brand, ind = p["brand"], p["industry"]
        forms = [f"{CITY}市{brand}{ind}有限公司", f"{brand}{ind}有限公司", f"{brand}公司", f"{brand}{ind}",
                 f"{p['road']}那边的{brand}公司", f"{brand}{ind}公司", f"{CITY}{brand}{ind}有限责任公司",
                 f"{brand}{ind}有限公司"]
        name = r.choice(forms)
        if with_district:
            name = r.choice([f"{p['district']}的{name}", f"{p['district']}{name}", f"{name}（{p['district']}）",
                             f"位于{p['district']}的{name}"])
        return name

    def junction_form(self, o: Obj) -> str:
        a, b = (o.parts["a"], o.parts["b"]) if self.rng.random() < .5 else (o.parts["b"], o.parts["a"])
        return self.rng.choice([f"{a}与{b}交叉口", f"{a}和{b}交叉路口", f"{a}{b}路口", f"{a}与{b}十字路口",
                                f"{a}、{b}交汇处", f"{a}跟{b}交叉的路口", f"{a}{b}十字", f"{a}与{b}交口"])

    def stretch_form(self, o: Obj) -> str:
        road, (b, c) = o.parts["road"], o.parts["ends"]
        if self.rng.random() < .5:
            b, c = c, b
        return self.rng.choice([f"{road}（{b}至{c}段）", f"{road}从{b}到{c}这一段", f"{road}{b}到{c}之间",
                                f"{road}{b}至{c}段", f"{b}到{c}之间的{road}", f"{road}（{b}—{c}）路段"])

    def form(self, o: Obj, with_district: bool = False) -> str:
        r, p = self.rng, o.parts
        if o.kind in ("building", "compound"):
            return self.compound_form(o)
        if o.kind == "company":
            return self.company_form(o, with_district)
        if o.kind == "site":
            return r.choice([f"{p['name']}工地", f"{p['name']}项目", f"{p['name']}项目工地", f"{p['name']}施工工地",
                             f"{p['name']}的工地", f"{p['district']}{p['name']}项目"])
        if o.kind == "junction":
            return self.junction_form(o)
        if o.kind == "stretch":
            return self.stretch_form(o)
        if o.kind == "stop":
            return r.choice([f"{p['name']}公交站", f"{p['name']}站", f"{p['name']}站台", f"{p['name']}公交车站"])
        if o.kind == "school":
            name = p["name"]
            short = name.replace("第", "").replace("中学", "中") if name.startswith("第") else name
            return r.choice([name, short, f"{CITY}市{name}", f"{p['district']}{name}", name])
        if o.kind == "market":
            return r.choice([f"{p['name']}农贸市场", f"{p['name']}菜市场", f"{p['name']}市场", f"{p['name']}菜场"])
        return r.choice([f"{p['word']}{p['kind']}", f"{p['word']}{p['kind']}", f"{p['road']}上的{p['word']}{p['kind']}",
                         f"那家{p['word']}{p['kind']}", f"{p['word']}{p['kind']}店" if p["kind"] == "烧烤"
                         else f"{p['word']}{p['kind']}"])

    def typo(self, text: str) -> str:
        """Sometimes a typo or a dropped character, as people type on phones."""
        r = self.rng
        if r.random() < .15:
            swaps = [("楼", "搂"), ("已经", "以经"), ("的", "得"), ("在", "再"), ("反映", "反应"), ("部门", "部们")]
            a, b = r.choice(swaps)
            text = text.replace(a, b, 1)
        return text

    # --- people and rows -------------------------------------------------------------------
    def person(self, home: Obj | None = None) -> dict:
        """A new writer: a name, a phone (sometimes none), a home address (in `home`'s building if given)."""
        self.people += 1
        r = self.rng
        name = r.choice(SURNAMES) + "".join(r.sample(GIVEN, r.choice((1, 2))))
        phone = "" if r.random() < .06 else f"1{r.choice('3578')}{r.randint(0, 999_999_999):09d}"
        if home is not None and home.kind in ("building", "compound"):
            district, cname, road, no = home.parts["district"], home.parts["name"], home.parts["road"], \
                home.parts.get("no") or r.randint(1, 24)
        else:
            district, cname, road = r.choice(self.compounds)
            no = r.randint(1, 24)
        unit, room = r.randint(1, 4), r.randint(1, 28) * 100 + r.randint(1, 4)
        address = r.choice([f"{district}{road}{r.randint(1, 300)}号{cname}{no}号楼{unit}单元{room}",
                            f"{cname}{no}-{unit}-{room}", f"{CITY}市{district}{cname}{no}栋{unit}单元{room}室",
                            f"{district}{cname}小区{no}号楼{room}", f"{cname}{self.digits(no)}号楼{unit}单元"])
        return {"key": f"p{self.people}", "name": name, "phone": phone, "address": address}

    def text(self, o: Obj | None, problem: str, where: str) -> tuple[str, str]:
        """A writer's own title and content about `o`'s `problem`, naming the object as `where` says."""
        r, spec = self.rng, PROBLEMS[problem]
        say = r.choice(spec["say"])
        details = r.sample(spec["detail"], r.randint(0, min(2, len(spec["detail"]))))
        if o is None:
            mention = ""
        elif where == "text":
            mention = self.form(o, with_district=o.parts.get("twin", False) and r.random() < .9)
            if o.kind == "building":
                mention = r.choice([f"{mention}{self.building_form(o.parts['no'])}",
                                    f"{mention}{self.building_form(o.parts['no'])}",
                                    f"{mention}的{self.building_form(o.parts['no'])}"])
        elif where == "compound_only":                       # the building is in the address field
            mention = self.form(o) + r.choice(["", "我们楼", "我家", "我们这栋楼"])
        else:                                                # all of it is in the address field
            mention = r.choice(["我们小区", "我家", "我们楼", "我们这栋楼", "家里"])
        if mention and where == "text" and r.random() < .2:  # a landmark beside the object's name
            landmark = r.choice([f"{r.choice(SHOP_WORDS)}{r.choice(SHOP_KINDS)}", r.choice(PLACES) + "公交站",
                                 r.choice(self.compounds)[1], r.choice(SCHOOL_NAMES)])
            mention = r.choice([f"{landmark}旁边的{mention}", f"{mention}（{landmark}对面）",
                                f"{landmark}附近的{mention}"])
        time = r.choice(TIMES)
        body = r.choice([f"{mention}{time}{say}", f"{time}{mention}{say}", f"{mention}{say}，{time}都这样",
                         f"我反映一下{mention}的问题，{say}", f"{say}！地点：{mention}", f"{time}{say}，就是{mention}"
                         if mention else f"{time}{say}"])
        parts = [r.choice(OPENINGS) + body, *details]
        if r.random() < .25:
            parts.insert(r.randint(1, len(parts)), r.choice(COLLOQUIAL))
        content = self.typo("，".join(parts) + "。" + r.choice(REQUESTS))
        label = r.choice(spec["label"])
        short = "" if o is None or where != "text" or r.random() < .5 else self.form(o)
        title = r.choice([f"{short}{label}", label, f"关于{short}{label}的问题", "反映问题", f"投诉{short}{label}",
                          "求助", f"{label}（再次反映）" if r.random() < .2 else label])
        if short and o.kind != "building" and r.random() < .15:     # named in the title only
            content = content.replace(mention, r.choice(["这家", "那里", "这个地方", "该处"]), 1)
            title = r.choice([f"{short}{label}", f"关于{short}{label}的问题", f"投诉{short}{label}"])
        return title, content

    def row(self, writer: dict, title: str, content: str, day: float, category: str) -> dict:
        when = START + timedelta(days=day)
        return {"title": title, "name": writer["name"], "phone": writer["phone"], "address": writer["address"],
                "category": category, "content": content, "created_at": when.strftime("%Y-%m-%d %H:%M:%S"),
                "_person": writer["key"]}

    def where(self, o: Obj) -> str:
        """Where a writer names the object: mostly the text; for a building, sometimes the address."""
        if o.kind != "building":
            return "text"
        x = self.rng.random()
        return "text" if x < .7 else "compound_only" if x < .9 else "address"

    def complaint(self, o: Obj, problem: str, writer: dict, day: float, matter: str | None, resubmit: float) -> list:
        """One writer's row about `o`, and sometimes their re-submissions (same or new words)."""
        where = self.where(o)
        title, content = self.text(o, problem, where)
        out = [(self.row(writer, title, content, day, CATEGORY[o.kind]), matter)]
        while self.rng.random() < resubmit:
            day += self.rng.uniform(0.5, 9)
            if self.rng.random() < .5:
                title, content = self.text(o, problem, where)      # said again in other words
            else:
                content = self.rng.choice(["再次反映：", "第二次反映，", "还没解决！", ""]) + content
            out.append((self.row(writer, title, content, day, CATEGORY[o.kind]), matter))
            resubmit *= .5
        return out

    def matter(self, o: Obj, problem: str, people: int, start: float, name: str) -> list:
        """`people` writers about one object and problem in one episode, a few of them a form letter."""
        r, out = self.rng, []
        span = min(60.0, 3 + people * r.uniform(.3, 1.5))
        form = None
        if people >= 6 and r.random() < .25:                # a form letter some of them sign
            form = self.text(o if o.kind != "building" else o, problem, "text")
        for i in range(people):
            home = o if o.kind in ("building", "compound") else None
            writer = self.person(home)
            day = start + (0 if i == 0 else r.uniform(0, span))
            if form and r.random() < .4:
                out.append((self.row(writer, *form, day, CATEGORY[o.kind]), name))
            else:
                out.extend(self.complaint(o, problem, writer, day, name, resubmit=.2))
        return out


def _sibling(m: Maker, o: Obj, problem: str) -> tuple[Obj, str]:
    """A hard negative of (o, problem): an alike object with the same problem, or the same object with another."""
    r = m.rng
    same_kind = [p for p, s in PROBLEMS.items() if s["kind"] == PROBLEMS[problem]["kind"] and p != problem]
    if o.kind == "building":
        others = [n for n in range(1, 25) if n != o.parts["no"]]
        if r.random() < .8:
            return m.building((o.parts["district"], o.parts["name"], o.parts["road"]), r.choice(others)), problem
    if o.kind == "company":
        brand = o.parts["brand"]
        pair = next(p for p in COMPANY_PAIRS if brand in p)
        if r.random() < .5:
            return m.company(pair[1] if pair[0] == brand else pair[0]), problem
        if r.random() < .6:                                  # one name in two districts
            o.parts["twin"] = True
            twin = m.company(brand, r.choice([d for d in DISTRICTS if d != o.parts["district"]]), o.parts["industry"])
            twin.parts["twin"] = True
            return twin, problem
    if o.kind == "junction" and r.random() < .8:             # adjacent: shares one road
        return m.junction(o.parts["a"]), problem
    if o.kind == "stretch" and r.random() < .8:               # the next stretch of the road
        return m.stretch(o.parts["road"], [o.parts["ends"][1], r.choice([x for x in ROADS if x not in
                                                                       (o.parts["road"], *o.parts["ends"])])]), problem
    if o.kind == "shop" and r.random() < .5:                  # same name, another kind of shop
        return m.shop(o.parts["word"], r.choice([k for k in SHOP_KINDS if k != o.parts["kind"]])), problem
    if same_kind:
        return o, r.choice(same_kind)
    return m.object_for(problem), problem


def make(rows: int = 8000, seed: int = 7) -> Hotline:
    """About `rows` labelled hotline rows (exactly `rows`), ids 1..n in created_at order."""
    m, r = Maker(seed), random.Random(seed + 1)
    scale = rows / 8000
    made: list[tuple[dict, str | None]] = []
    n_matters, count = round(690 * scale), 0
    episodes: dict[tuple[str, str], list[float]] = {}
    problems = list(PROBLEMS)
    while count < n_matters:
        problem = r.choice(problems)
        o = m.object_for(problem)
        start = r.uniform(0, DAYS - 70)
        group = [(o, problem, start)]
        x = r.random()
        if x < .45:                                           # a hard negative beside it, the same weeks
            so, sp = _sibling(m, o, problem)
            group.append((so, sp, start + r.uniform(-5, 10)))
        elif x < .6:                                          # the same matter again, another episode
            group.append((o, problem, (start + r.uniform(150, 330)) % (DAYS - 70)))
        for obj, prob, day in group:
            if not free(episodes, obj, prob, day) or count >= n_matters:
                continue
            count += 1
            hot = r.random() < .375
            people = (r.randint(20, 60) if r.random() < .08 else 5 + int(r.expovariate(1 / 5))) if hot \
                else r.choice((2, 2, 2, 3, 3, 4))
            made.extend(m.matter(obj, prob, people, max(0.0, day), f"m{count}"))
    while len(made) < rows:                                   # the rest: one person each
        x = r.random()
        writer = m.person()
        day = r.uniform(0, DAYS)
        if x < .12:                                           # a policy question: no object
            q = r.choice(POLICY)
            content = r.choice(OPENINGS) + r.choice(["想咨询一下", "请问", "我想问问", ""]) + q + r.choice(
                ["？", "，谢谢。", "？我住在附近。", "，在哪里办理？"])
            made.append((m.row(writer, r.choice(["政策咨询", "咨询", q[:6]]), content, day, "政策咨询"), None))
        else:                                                 # a singleton, sometimes re-submitted
            for _ in range(50):
                problem = r.choice(problems)
                o = m.object_for(problem)
                if free(episodes, o, problem, day):
                    break
            else:
                continue
            made.extend(m.complaint(o, problem, writer, day, None, resubmit=.25 if x < .35 else 0))
    made = made[:rows]
    made.sort(key=lambda pair: pair[0]["created_at"])
    return _labelled(made)


def free(episodes: dict, o: Obj, problem: str, day: float, apart: float = 120) -> bool:
    """Whether no episode of this object and problem is within `apart` days (then it is taken):
    rows that the rules would call one matter are never labelled as two."""
    days = episodes.setdefault((o.kind + ":" + o.key, problem), [])
    if any(abs(day - d) < apart for d in days):
        return False
    days.append(day)
    return True


def _labelled(made: list[tuple[dict, str | None]]) -> Hotline:
    """Ids in order; a matter that lost people to truncation and has fewer than two is none."""
    out_rows, matter, person = [], {}, {}
    for i, (row, name) in enumerate(made, start=1):
        person[i] = row.pop("_person")
        out_rows.append({"id": i, **row})
        matter[i] = name
    people: dict[str, set[str]] = {}
    for i, name in matter.items():
        if name is not None:
            people.setdefault(name, set()).add(person[i])
    for i, name in matter.items():
        if name is not None and len(people[name]) < 2:
            matter[i] = None
    return Hotline(out_rows, matter, person)
