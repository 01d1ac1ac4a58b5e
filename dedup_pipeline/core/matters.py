"""Matters (热点事项, issue 52): rows of different people about one concrete object, one problem,
in one episode.

A row contributes a Mark (its object's canonical key, its problem, its day, its person) or
nothing (no concrete object, no problem, or a question about a rule). The problem is read by
a vocabulary of literal phrases (data/matter-problems-zh.txt), found in one scan of a text.
Two marks are linked (`linked`, the one pairwise decision) when they raise one problem (or
problems writers give one matter under, `KIN`: a junction's jam and its lights), are at
most `window` days apart and name one object (`same_object`: equal keys, or names that differ
only as writers vary them: 龙苑 / 龙苑名苑, 永兴 / 江城永兴物流, a district or a phase said or not;
a business may carry the street number it stands at, 鸿源汽贸|addr:建设南路198号, and is then
one with the rows that give only that number); every pair that may be linked
shares a link key (`link_keys`: the object's block and the problem), so a store finds a new
row's candidates by key. Matters are the connected parts of the links holding at least two
distinct people: adding rows one at a time, in any order, gives exactly the batch's partition
(`matters_of` finds the same parts without comparing every pair of a block).

The default window is 30 days: a hotline case is answered within 15 working days (about
three weeks), so a month in which nobody raised the object's problem means the case was
closed; the same complaint after that (next winter's heating) is a new episode.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import NamedTuple

from dedup_pipeline.core.objects import (
    Found,
    address_building,
    address_home,
    address_objects,
    building_after,
    clean,
    compound_stem,
    district_of,
    extended,
    first_object,
    framed,
    objects_in,
    street_number,
    trade_split,
    words_pattern,
)

WINDOW_DAYS = 30
READING = 6                 # bump when objects.py or the reading here changes what marks a row gets
_ANY_PLACE = frozenset({"place"})
_HOMES = frozenset({"building", "compound"})
_ORGS = frozenset({"company", "shop"})
_PARKS = ("工业园", "科技园", "产业园", "物流园")         # where many businesses are: not the one whose workers write
BUILDING_NEAR = 24          # a building number counts when named this many characters after the compound


@dataclass(frozen=True)
class Phrase:
    """One way a problem is said: a literal (`then` empty), or one of `first` followed within
    `gap` characters, in one sentence, by one of `then`."""
    first: tuple[str, ...]
    then: tuple[str, ...] = ()
    gap: int = 0


@dataclass(frozen=True)
class Problem:
    """A problem category: its name, the object kinds it can be about, its phrases; a
    general one (the property company's service) is the problem only when no other is raised."""
    name: str
    kinds: frozenset[str]
    phrases: tuple[Phrase, ...]
    general: bool = False
    order: tuple[str, ...] = ()     # the kinds as listed: the first named wins (a market over its road)


class Mark(NamedTuple):
    """What one row contributes to the matters: the object's key, the problem, the day
    (a proleptic ordinal) and the person who wrote it."""
    object: str
    problem: str
    day: int
    person: str


class Reading(NamedTuple):
    """What was read in a row, for `explain`: the mark (None when the row makes none), where
    the object was found ("text", "text+address" or "address"), and why there is no mark."""
    mark: Mark | None
    source: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Vocabulary:
    """The problems in their order of priority, `policy` (a question about a rule) apart, and
    an index of the literals a phrase starts with (a `then` is looked for only after its first
    side is found), for a single scan of a text: `starts` (a literal's first two characters ->
    the literals, longest first), `uses` (literal -> the (problem, phrase) positions whose
    first side it is, each with its phrase; problem len(problems) is `policy`), `pairs` (finds
    each two characters a literal may start with, overlapping: a first character some literal
    has, then a second some has; the second test leaves a third of the matches to build),
    `singles` (one-character literals) and `keys` (those of `starts`, to meet the pairs found in
    one set operation); `twos` (the keys that are literals themselves: present when found),
    `longer` (key -> its literals of three characters or more, tested as substrings; only the
    keys that have some); `plain` and `gapped` (literal -> the positions it says alone, added
    at once, and those whose `then` must follow, with what finds that, `_follows`: `uses` split
    so, to keep the Python per literal small); `unfolded`, whether no literal holds what `clean`
    writes (ASCII digits, letters, #), so that a raw text may be scanned for them; `ends`, what
    ends a compound's name said without its suffix (any literal, 小区, 物业, …)."""
    problems: tuple[Problem, ...]
    policy: Problem | None
    starts: dict[str, tuple[str, ...]]
    uses: dict[str, tuple[tuple[tuple[int, int], Phrase], ...]]
    pairs: re.Pattern
    singles: re.Pattern
    keys: frozenset[str]
    twos: frozenset[str]
    longer: dict[str, tuple[str, ...]]
    plain: dict[str, tuple[tuple[int, int], ...]]
    gapped: dict[str, tuple[tuple[tuple[int, int], re.Pattern], ...]]
    unfolded: bool
    ends: re.Pattern = re.compile("(?!)")


# What ends a name said without its suffix, besides the vocabulary's words (世茂大都会停水).
_NAME_ENDS = ("小区", "物业", "业主", "居民", "单元", "门口")

GAPS = {"+": 8, "^": 2}
_NOT_DIGIT = re.compile(r"\D")
_ASKS = re.compile("咨询|请问|想问|问一下|怎么|如何")          # asking how a rule works (not 能不能管管？)
_CLEANING_WRITES = re.compile("[0-9A-Za-z#]")        # in a literal: scanned only after cleaning
_CLAUSE_ENDS = "。！？；.!?;"
_CLAUSE_END = re.compile(f"[{_CLAUSE_ENDS}]")                # a sentence: 工资，拖了半年 is said together
_NOT_CLAUSE_END = f"[^{_CLAUSE_ENDS}]"


@cache
def problems() -> Vocabulary:
    """The bundled problem vocabulary (data/matter-problems-zh.txt)."""
    text = resources.files("dedup_pipeline").joinpath("data/matter-problems-zh.txt").read_text("utf-8")
    return vocabulary_of(text)


def _rules() -> str:
    """What marks are read by: the reading's version and the bundled vocabulary's digest (a
    store re-marks its rows when this changes)."""
    text = resources.files("dedup_pipeline").joinpath("data/matter-problems-zh.txt").read_bytes()
    return f"{READING}-{hashlib.blake2b(text, digest_size=4).hexdigest()}"


RULES = _rules()


def vocabulary_of(text: str) -> Vocabulary:
    """A vocabulary from lines `name<TAB>kinds<TAB>phrases` (a name starting with ~: general)."""
    phrasings: dict[str, list[Phrase]] = {}
    kinds: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, of, said = line.split("\t")
        phrasings.setdefault(name, []).extend(phrase_of(p) for p in said.split())
        kinds[name] = tuple(k for k in of.split(",") if k != "-")
    every = [Problem(n.lstrip("~"), frozenset(kinds[n]), tuple(ps), n.startswith("~"), kinds[n])
             for n, ps in phrasings.items()]
    found = tuple(p for p in every if p.name != "policy")
    policy = next((p for p in every if p.name == "policy"), None)
    starts: dict[str, set[str]] = {}
    uses: dict[str, list[tuple[tuple[int, int], Phrase]]] = {}
    for i, problem in enumerate((*found, policy) if policy else found):
        for k, phrase in enumerate(problem.phrases):
            for literal in phrase.first:                     # a `then` is looked for only after its first
                starts.setdefault(literal[:2], set()).add(literal)
                uses.setdefault(literal, []).append(((i, k), phrase))
    firsts = "".join(sorted({k[0] for k in starts if len(k) == 2}))
    seconds = "".join(sorted({k[1] for k in starts if len(k) == 2}))
    singles = "".join(sorted(k for k in starts if len(k) == 1))
    return Vocabulary(found, policy, {c: tuple(sorted(ls, key=len, reverse=True)) for c, ls in starts.items()},
                      {lit: tuple(at) for lit, at in uses.items()},
                      re.compile(f"(?=([{re.escape(firsts)}][{re.escape(seconds)}]))"),
                      re.compile(f"[{re.escape(singles)}]" if singles else "(?!)"), frozenset(starts),
                      frozenset(lit for lit in uses if len(lit) == 2),
                      {c: longer for c, ls in starts.items() if (longer := tuple(lit for lit in ls if len(lit) > 2))},
                      {lit: tuple(at for at, phrase in used if not phrase.then) for lit, used in uses.items()},
                      {lit: tuple((at, _follows(lit, phrase)) for at, phrase in used if phrase.then)
                       for lit, used in uses.items()},
                      not any(_CLEANING_WRITES.search(lit) for lit in uses),
                      words_pattern("|".join(sorted({*uses, *_NAME_ENDS}, key=len, reverse=True))))


def phrase_of(text: str) -> Phrase:
    """暖气 -> a literal; 拖欠/没发+工资 -> 拖欠 or 没发, then within 8 characters 工资."""
    for joint, gap in GAPS.items():
        if joint in text:
            first, then = text.split(joint)
            return Phrase(tuple(first.split("/")), tuple(then.split("/")), gap)
    return Phrase(tuple(text.split("/")))


def person_of(row: Mapping) -> str:
    """Who wrote a row: the phone's digits, else the name and the address."""
    digits = _NOT_DIGIT.sub("", str(row.get("phone") or ""))
    if len(digits) >= 7:
        return digits[2:] if len(digits) == 13 and digits.startswith("86") else digits   # +86 138…
    return f"{(row.get('name') or '').strip()}|{clean(str(row.get('address') or ''))}"


def day_of(created: object) -> int:
    """A date, datetime or 'YYYY-MM-DD…' string as a day number."""
    if isinstance(created, dt.datetime):
        return created.date().toordinal()
    if isinstance(created, dt.date):
        return created.toordinal()
    return _day(str(created)[:10])


@lru_cache(maxsize=1024)
def _day(date: str) -> int:
    """A 'YYYY-MM-DD' string as a day number, once per day (the rows of a day share it)."""
    return dt.date.fromisoformat(date).toordinal()


def said(text: str, vocabulary: Vocabulary) -> set[tuple[int, int]]:
    """The (problem, phrase) positions said in a cleaned text."""
    return said_in("", text, vocabulary)[1]


def said_in(title: str, content: str, vocabulary: Vocabulary,
            present: set[str] | None = None) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """The (problem, phrase) positions said in a cleaned title and in a cleaned content: the
    literals present (`_present`, unless given), each adding its plain positions at once and
    its gap phrases' positions when their `then` follows."""
    in_title: set[tuple[int, int]] = set()
    in_content: set[tuple[int, int]] = set()
    plain, gapped = vocabulary.plain, vocabulary.gapped
    for lit in _present(f"{title}。{content}" if title else content, vocabulary) if present is None else present:
        if title and lit in title:
            in_title.update(plain[lit])
            for at, follows in gapped[lit]:
                if at not in in_title and follows.search(title):
                    in_title.add(at)
        if lit in content:
            in_content.update(plain[lit])
            for at, follows in gapped[lit]:
                if at not in in_content and follows.search(content):
                    in_content.add(at)
    return in_title, in_content


def _present(text: str, vocabulary: Vocabulary) -> set[str]:
    """The vocabulary's literals in a text: found in one scan by their first two characters
    (in C, no character by character loop in Python), the longer ones then by substring tests."""
    keys = vocabulary.keys.intersection(vocabulary.pairs.findall(text))
    present = set(vocabulary.twos.intersection(keys))
    longer = vocabulary.longer
    for two in longer.keys() & keys:
        for lit in longer[two]:
            if lit in text:
                present.add(lit)
    present.update(vocabulary.singles.findall(text))
    return present


def _unspaced(value: object) -> str:
    """A field as text without its whitespace (the first step of `clean`, all that a scan for
    the vocabulary's literals needs before cleaning, see `read`)."""
    return "".join(str(value or "").split())


def _follows(first: str, phrase: Phrase) -> re.Pattern:
    """What finds `first` followed, within the phrase's gap and in one sentence, by one of its
    `then` (a `then` holding a sentence's end can never be so; compiled once per literal and
    phrase: one search in C instead of a loop over the places `first` is at)."""
    then = "|".join(re.escape(t) for t in phrase.then if not _CLAUSE_END.search(t))
    if not then:
        return re.compile("(?!)")
    return re.compile(f"{re.escape(first)}(?:{_NOT_CLAUSE_END}){{0,{phrase.gap}}}(?:{then})")


def ranked_problems(title: str, content: str, vocabulary: Vocabulary) -> list[Problem]:
    """The problems a cleaned title and content raise, the most said first (a phrase in the
    title counts three times), general ones after the others, ties to the one said first."""
    return _ranked(*said_in(title, content, vocabulary), vocabulary, f"{title}。{content}")


def _ranked(in_title: set[tuple[int, int]], in_content: set[tuple[int, int]], vocabulary: Vocabulary,
            text: str = "") -> list[Problem]:
    """The problems said, ranked (see `ranked_problems`): a writer states the complaint before
    the closing words (请供热单位上门检查 after a lift complaint), so of two said as often, the
    one said first wins; the vocabulary's order when `text` is not given or they start alike."""
    counts: dict[int, int] = {}
    for found, weight in ((in_title, 3), (in_content, 1)):
        for i, _ in found:
            counts[i] = counts.get(i, 0) + weight
    counts.pop(len(vocabulary.problems), None)                  # policy: not a problem
    ranked = sorted((vocabulary.problems[i].general, -n, i) for i, n in counts.items())
    if text and len(ranked) > 1 and ranked[0][:2] == ranked[1][:2]:
        at = _first_said(text, in_title | in_content, vocabulary)
        ranked.sort(key=lambda r: (r[0], r[1], at.get(r[2], len(text)), r[2]))
    return [vocabulary.problems[i] for _, _, i in ranked]


def _first_said(text: str, found: set[tuple[int, int]], vocabulary: Vocabulary) -> dict[int, int]:
    """Where each problem found is first said in a text (the first side of its phrases)."""
    at: dict[int, int] = {}
    for i, k in found:
        if i < len(vocabulary.problems):
            for literal in vocabulary.problems[i].phrases[k].first:
                where = text.find(literal)
                if where >= 0 and where < at.get(i, len(text)):
                    at[i] = where
    return at


def _asks_policy(found: set[tuple[int, int]], vocabulary: Vocabulary) -> bool:
    """Whether what was said includes the vocabulary's `policy` phrases (a question about a rule)."""
    n = len(vocabulary.problems)
    return any(i == n for i, _ in found)


def read(row: Mapping, person: str | None = None, vocabulary: Vocabulary | None = None) -> Reading:
    """The object and problem of a row, and so its mark; or why it has none."""
    vocabulary = vocabulary or problems()
    title, content = _unspaced(row.get("title")), _unspaced(row.get("content"))
    # The literals are looked for before cleaning, in one scan: cleaning only writes ASCII
    # digits, letters and #, so it adds no literal of a vocabulary without them, and those
    # present after it are those of before still in the text. Many rows of a table of other
    # complaints name no problem: they are done without cleaning.
    literals = _present(f"{title}。{content}" if title else content, vocabulary) if vocabulary.unfolded else None
    if literals is not None and not literals:
        return Reading(None, reason="no problem named")
    title, content = clean(title, places=True), clean(content, places=True)
    text = f"{title}。{content}"
    in_title, in_content = said_in(title, content, vocabulary,
                                   None if literals is None else {lit for lit in literals if lit in text})
    ranked = _ranked(in_title, in_content, vocabulary, text)
    if not ranked:
        return Reading(None, reason="no problem named")
    if _asks_policy(in_title | in_content, vocabulary) and _ASKS.search(text):
        return Reading(None, reason="a question about policy, not a complaint about an object")
    address = Address(str(row.get("address") or ""))
    day, who = day_of(row.get("created_at")), person if person is not None else person_of(row)
    seen: dict[str, list[Found]] = {}
    for problem in ranked:
        found = first_object(text, problem.order, seen)
        if found:
            found = extended(text, found, vocabulary.ends)
            if found.kind == "compound" and address and found.key not in address:
                found = _home_said(text, address) or found          # the writer's compound, when named, first
            key, source = _object_key(found, problem, text, address)
            if found.kind in _ORGS and address and (at := street_number(address.cleaned)):
                key = f"{key}|addr:{at}"                              # 鸿源汽贸 at 建设南路198号
            return Reading(Mark(key, problem.name, day, who), source)
    for problem in ranked:
        if problem.kinds & _HOMES and (named := framed(text, vocabulary.ends)):
            found = (_home_said(text, address) if address else None) or named[0]
            key, source = _object_key(found, problem, text, address)
            return Reading(Mark(key, problem.name, day, who), source)
        key = _home_key(problem, text, address)
        if key:
            return Reading(Mark(key, problem.name, day, who), "address")
        there = address and address_objects(address.cleaned, problem.kinds - _HOMES)
        if there:                                # the place of the matter (事发地址): 73路公交线路, …交叉口
            return Reading(Mark(f"{there[0].kind}:{there[0].key}", problem.name, day, who), "address")
        if problem.kinds & _ORGS and address and (at := street_number(address.cleaned)):
            return Reading(Mark(f"addr:{at}", problem.name, day, who), "address")   # 我们单位, at 建设南路198号
    elsewhere = [f for f in objects_in(text, _ANY_PLACE, seen)
                 if not (ranked[0].kinds & _ORGS and f.key.endswith(_PARKS))]
    if elsewhere:                                # a place of a kind the vocabulary did not foresee for it
        return Reading(Mark(f"place:{elsewhere[0].key}", ranked[0].name, day, who), "text")
    return Reading(None, reason=f"no object named for {ranked[0].name}")


class Address(str):
    """A row's address field as written, cleaned when first needed (most rows never need it)."""

    @property
    def cleaned(self) -> str:
        """The address cleaned, once per distinct address (a writer's comes again with each of
        their rows; a plain property: a cached_property takes a lock)."""
        return _cleaned(self)


_cleaned = lru_cache(maxsize=4096)(clean)


def _home_said(text: str, address: Address) -> Found | None:
    """The address field's compound when the text names it too, else None: two fields agreeing
    on a name, whatever it ends with (怡景壹号, 世纪印象), are surer than a name the text's
    rules found alone (楼体开裂往里 read as a 里)."""
    home = address_home(address.cleaned)
    if not home:
        return None
    stem = compound_stem(home[0].key)
    at = text.find(stem)
    return Found("compound", home[0].key, at, at + len(stem)) if len(stem) >= 2 and at >= 0 else None


def _home_key(problem: Problem, text: str, address: Address) -> str | None:
    """For a problem of a compound or a building the text names neither of (我家暖气不热), the
    writer's own: the compound of the address field, the building from the text or the address."""
    home = address_home(address.cleaned) if problem.kinds & {"building", "compound"} else []
    if not home:
        return None
    building = building_after(text, 0, strict=True) or address_building(address.cleaned, home[0].key)
    district = district_of(address.cleaned, home[0], address.cleaned)
    name = f"{home[0].key}@{district}" if district else home[0].key
    if "building" in problem.kinds and building:
        return f"building:{name}#{building}"
    return f"compound:{name}"


def _object_key(found: Found, problem: Problem, text: str, address: Address) -> tuple[str, str]:
    """The canonical key of the object found, with the building for building-level problems
    (from the text near the compound's name, else from the address when it names the compound)."""
    if found.kind != "compound":
        return f"{found.kind}:{found.key}", "text"
    district = district_of(text, found, address.cleaned if address else "")
    name = f"{found.key}@{district}" if district else found.key
    if "building" not in problem.kinds:
        return f"compound:{name}", "text"
    near = building_after(text[:found.end + BUILDING_NEAR], found.end)
    if near is not None:
        return f"building:{name}#{near}", "text"
    far = address_building(address.cleaned, found.key)
    if far is not None:
        return f"building:{name}#{far}", "text+address"
    return f"compound:{name}", "text"


def mark_of(row: Mapping, person: str | None = None, vocabulary: Vocabulary | None = None) -> Mark | None:
    """What a row contributes to the matters, or None (no concrete object, or no problem)."""
    return read(row, person, vocabulary).mark


def mark_to_json(mark: Mark) -> str:
    """A mark as compact JSON (stored per row): [object, problem, day, person]."""
    return json.dumps([mark.object, mark.problem, mark.day, mark.person], ensure_ascii=False, separators=(",", ":"))


def mark_from_json(text: str) -> Mark:
    """The mark `mark_to_json` wrote."""
    obj, problem, day, person = json.loads(text)
    return Mark(obj, problem, int(day), person)


class Parsed(NamedTuple):
    """An object key as `same_object` reads it: the blocks every object it may be one with
    shares one of, its name (the stem of a compound's, the trade name of an organisation), the
    qualifier (a compound's generic suffix, a company's trade), the whole name, the district
    said ('' when none) and its kind family ('' for an object that is only ever its own key);
    `phase`, a building's phase when said (2 of 2期7栋: one building with 7栋, not with 1期7栋)."""
    blocks: tuple[str, ...]
    phase: str
    name: str
    qualifier: str
    whole: str
    district: str
    family: str


@lru_cache(maxsize=1 << 16)
def parsed(obj: str) -> Parsed:
    """An object key read for `same_object`. A compound or a building is blocked by the last
    two characters of its stem (龙苑 of 龙苑名苑) and of its whole name (名邸 of 绿地名邸: a
    brand dropped), with the building; a company or a shop (one family: an organisation by
    its trade name) by its trade name's last two, the district apart (said or not); a site,
    stop, market, school or place by its name's last two."""
    kind, _, rest = obj.partition(":")
    name, _, building = rest.partition("#")
    if kind in ("compound", "building"):
        name, _, district = name.partition("@")
        stem = compound_stem(name)
        phase, _, number = building.rpartition("期")
        blocks = tuple(dict.fromkeys((f"{kind}:{stem[-2:]}#{number}", f"{kind}:={name[-2:]}#{number}")))
        return Parsed(blocks, phase, stem, name[len(stem):], name, district, kind)
    if kind in ("company", "shop"):
        named, _, district = name.partition("@")
        brand, trade = named.partition("/")[::2] if kind == "company" else trade_split(named)
        return Parsed((f"org:{brand[-2:]}",), "", brand, trade, brand, district, "org")
    if kind in ("site", "stop", "market", "school", "place"):
        name, _, district = name.partition("@")
        return Parsed((f"{kind}:{name[-2:]}",), "", name, "", name, district, kind)
    return Parsed((obj,), "", name, "", name, "", "")


def same_object(a: str, b: str) -> bool:
    """Whether two object keys may name one object (`same_one`); a key of several names joined
    by | (a business by its name and by the street number it stands at) is one with a key one
    of its names is one with, unless both say where they stand and differ."""
    if a == b:
        return True
    if "|" in a or "|" in b:
        names_a, names_b = a.split("|"), b.split("|")
        at_a, at_b = [n for n in names_a if n.startswith("addr:")], [n for n in names_b if n.startswith("addr:")]
        if at_a and at_b and at_a != at_b:
            return False                        # 兴隆机械 at 太榆路194号 and 兴隆机械 at 寇庄西路61号: two
        return any(same_one(x, y) for x in names_a for y in names_b)
    return same_one(a, b)


def same_one(a: str, b: str) -> bool:
    """Whether two object keys may name one object: equal keys; or, sharing a block (`parsed`),
    of one district or one not said, names one the other's end (a place, a line or a brand
    before a name: 江城永兴 = 永兴, 宝丰世纪府 = 世纪府, 绿地名邸 = 名邸, 4路胜利路体育馆 = 胜利路体育馆;
    not after a digit: 13中学 != 3中学): whole names so, or stems whose qualifiers agree or one
    is not said (龙苑 = 龙苑名苑 but 阳光花园 != 阳光家园; 永兴公司 = 永兴物流 but 永兴物流 != 永兴建材;
    永兴 != 永鑫; 兴隆@晋源区 != 兴隆@万柏林区; a trade said shorter: 力信服装 = 力信服装实业)."""
    if a == b:
        return True
    pa, pb = parsed(a), parsed(b)
    if not pa.family or pa.family != pb.family or not set(pa.blocks) & set(pb.blocks):
        return False
    if not _districts_agree(pa.district, pb.district) or (pa.phase and pb.phase and pa.phase != pb.phase):
        return False
    if pa.family in ("compound", "building") and _ends(pa.whole, pb.whole):
        return True
    if pa.family == "org":
        return _ends(pa.name, pb.name) and _trades_agree(pa.qualifier, pb.qualifier)
    return _ends(pa.name, pb.name) and (pa.qualifier == pb.qualifier or not pa.qualifier or not pb.qualifier
                                        or {pa.qualifier, pb.qualifier} == _VILLAGE_NAMES)


_VILLAGE_NAMES = {"村", "社区"}     # a village is also named by its 社区 (its residents' committee): 大涌村 = 大涌社区


# Trades one business is named by in its full name, its short name and its sign (汽车销售服务有限公司,
# 汽贸, 4S店): a trade's family by the words it holds.
_TRADE_FAMILIES = (("汽", "车", "4S"), ("装修", "装饰"), ("教育", "培训"), ("纸",), ("健身", "体育"))


def _trades_agree(a: str, b: str) -> bool:
    """Whether two companies' trades may be one's: one not said, one holding the other (劳务 in
    建筑劳务), or of one family (汽贸 and 汽车销售服务); not 劳务 and 建材, 电子 and 精密."""
    if not a or not b or a in b or b in a:
        return True
    return any(any(w in a for w in family) and any(w in b for w in family) for family in _TRADE_FAMILIES)


def _districts_agree(a: str, b: str) -> bool:
    """Whether two districts said may be one place: equal (by their last characters: 万柏林区 is
    柏林区 when cut short), or one not said, or of two levels (湾口区 and 福港街道: a subdistrict may
    lie in the district)."""
    return not a or not b or a[-3:] == b[-3:] or a.endswith(("区", "县")) != b.endswith(("区", "县"))


def _ends(a: str, b: str) -> bool:
    """Whether one name is the other's end, not right after a digit (13中学, 3中学)."""
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    return bool(shorter) and longer.endswith(shorter) and not longer[-len(shorter) - 1:-len(shorter)].isdigit()


def link_keys(mark: Mark) -> tuple[tuple[str, str], ...]:
    """The keys a row is filed under: a store finds the rows it may link with by these (every
    object it may be one with shares one of its blocks, see `parsed`)."""
    return tuple((block, kin(mark.problem)) for block in _blocks(mark.object))


@lru_cache(maxsize=1 << 16)
def _blocks(obj: str) -> tuple[str, ...]:
    """The blocks of each name of an object key (`parsed`), once each."""
    return tuple(dict.fromkeys(block for name in obj.split("|") for block in parsed(name).blocks))


# Problems writers give one matter under, by what they see of it: a junction's jam is its lights'
# timing (没有左转灯，堵成一锅粥 is read as either), so they link as one.
KIN = {"traffic": "signal"}


def kin(problem: str) -> str:
    """The problem a problem links as (`KIN`): itself for most."""
    return KIN.get(problem, problem)


def linked(a: Mark, b: Mark, window: int = WINDOW_DAYS) -> bool:
    """Whether two marks are linked: one problem (or its kin), one object, at most `window` days apart."""
    return kin(a.problem) == kin(b.problem) and abs(a.day - b.day) <= window and same_object(a.object, b.object)


def joins(mark: Mark, stored: Iterable[tuple[int, Mark]], window: int = WINDOW_DAYS) -> list[int]:
    """The ids of the stored rows (those filed under the new row's keys) it links with:
    the new row joins their parts, merging them when there are several."""
    return [row for row, other in stored if linked(mark, other, window)]


class Parts:
    """The link graph's connected parts (union-find), each with its distinct people; rows
    added one at a time, in any order, give the batch's partition."""

    def __init__(self, window: int = WINDOW_DAYS) -> None:
        self.window = window
        self.parent: dict[int, int] = {}
        self.people: dict[int, set[str]] = {}
        self.filed: dict[tuple[str, str], list[tuple[int, Mark]]] = {}

    def root(self, row: int) -> int:
        """The part's root: its smallest row id."""
        while self.parent[row] != row:
            self.parent[row] = self.parent[self.parent[row]]
            row = self.parent[row]
        return row

    def place(self, row: int, mark: Mark) -> None:
        """A row as a part of its own (no links looked for)."""
        if row not in self.parent:
            self.parent[row], self.people[row] = row, {mark.person}

    def add(self, row: int, mark: Mark | None) -> list[int]:
        """A new row, filed under its keys and linked to the stored rows it links with: the
        roots of the parts it joined, all merged into the one of the smallest row id."""
        if mark is None:
            return []
        stored = [entry for key in link_keys(mark) for entry in self.filed.get(key, ())]
        joined = sorted({self.root(other) for other in joins(mark, stored, self.window)})
        self.place(row, mark)
        for key in link_keys(mark):
            self.filed.setdefault(key, []).append((row, mark))
        for other in joined:
            self.union(row, other)
        return joined

    def union(self, a: int, b: int) -> None:
        """One part of the parts of two rows, rooted at the smaller root."""
        a, b = self.root(a), self.root(b)
        if a != b:
            keep, gone = min(a, b), max(a, b)
            self.parent[gone] = keep
            self.people[keep] |= self.people.pop(gone)

    def matter_of(self, row: int) -> int | None:
        """The row's matter (the smallest row id of its part), None when its part has one person."""
        if row not in self.parent:
            return None
        root = self.root(row)
        return root if len(self.people[root]) >= 2 else None

    def matters(self) -> dict[int, int]:
        """Row -> matter for every row in a matter."""
        return {row: m for row in self.parent if (m := self.matter_of(row)) is not None}


def matters_of(marks: Mapping[int, Mark | None], window: int = WINDOW_DAYS) -> dict[int, int]:
    """The batch: row -> matter (its smallest row id) for every row in a part of two people
    or more. Within a block, rows of one object key are sorted by day and linked to the next
    unless a gap exceeds the window; rows of two keys that may be one object, each to the
    first and last row of the other within the window (enough for the same parts: the other's
    rows in a span of 2 windows are at most two runs). Never pair by pair."""
    parts = Parts(window)
    blocks: dict[tuple[str, str], dict[str, list[tuple[int, int]]]] = {}
    for row, mark in marks.items():
        if mark is not None:
            parts.place(row, mark)
            for key in link_keys(mark):
                blocks.setdefault(key, {}).setdefault(mark.object, []).append((mark.day, row))
    for by_object in blocks.values():
        for entries in by_object.values():
            entries.sort()
            for (day, row), (prev_day, prev) in zip(entries[1:], entries):
                if day - prev_day <= window:
                    parts.union(row, prev)
        objects = sorted(by_object)
        for i, a in enumerate(objects):
            for b in objects[i + 1:]:
                if same_object(a, b):
                    _cross(parts, by_object[a], by_object[b], window)
    return parts.matters()


def _cross(parts: Parts, these: list[tuple[int, int]], those: list[tuple[int, int]], window: int) -> None:
    """Each of `these` linked to the first and last of `those` (sorted by day) within the window."""
    days = [day for day, _ in those]
    for day, row in these:
        lo, hi = bisect_left(days, day - window), bisect_right(days, day + window)
        if lo < hi:
            parts.union(row, those[lo][1])
            parts.union(row, those[hi - 1][1])


@dataclass(frozen=True)
class Why:
    """Whether two rows are linked as one matter, and why: what was read in each, days apart."""
    linked: bool
    a: Reading
    b: Reading
    days_apart: int | None
    reason: str


def why(a: Reading, b: Reading, window: int = WINDOW_DAYS) -> Why:
    """Whether two rows are linked into one matter and the reason, in words."""
    if a.mark is None or b.mark is None:
        missing = a if a.mark is None else b
        return Why(False, a, b, None, f"{'first' if missing is a else 'second'} row: {missing.reason}")
    apart = abs(a.mark.day - b.mark.day)
    if not same_object(a.mark.object, b.mark.object):
        reason = f"different objects: {a.mark.object} / {b.mark.object}"
    elif kin(a.mark.problem) != kin(b.mark.problem):
        reason = f"one object, different problems: {a.mark.problem} / {b.mark.problem}"
    elif apart > window:
        reason = f"one object and problem, {apart} days apart (more than {window}): another episode"
    elif a.mark.person == b.mark.person:
        return Why(True, a, b, apart, "one person: a re-submission, a matter only with another person")
    else:
        return Why(True, a, b, apart, f"one matter: {a.mark.object}, {a.mark.problem}, {apart} days apart")
    return Why(False, a, b, apart, reason)
