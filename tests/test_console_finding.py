"""Finding things in the review console: the search page (/search?q=) over the stand-in desk
(testing/console.py) and its SQL on a real MariaDB and on SQLite (by id, by a short field,
by the words of the text, LIKE's wildcards taken as themselves, bounded, newest first, the
rows each is paired with); the queue page's titles, names, pages and skipped items."""

import datetime as dt
import re

import pytest
import sqlalchemy as sa

from dedup_pipeline.config import parse_config
from dedup_pipeline.console import privacy
from dedup_pipeline.console.paging import Page, paged
from dedup_pipeline.console.search import excerpt
from dedup_pipeline.sql import matchtable, migrate
from dedup_pipeline.sql.queue import Item
from dedup_pipeline.sql.search import Found, find
from dedup_pipeline.sql.source import SqlSource


def results(page: str) -> list[str]:
    """The ids of the rows a search page lists, in order."""
    return re.findall(r'<li class="result" data-row="([^"]+)"', page)


def listed(page: str) -> list[str]:
    """The keys of the items a queue page lists, in order."""
    return re.findall(r'data-key="((?:pair|group):[^"]+)"', page)


def item_row(page: str, key: str) -> str:
    """The table row of the queue page listing the item `key`."""
    return re.search(rf'<tr class="[^"]*" data-key="{re.escape(key)}">.*?</tr>', page, re.DOTALL).group(0)


# ---------------------------------------------------------------- the search page

def test_search_without_a_session_redirects_to_login_and_shows_no_row(client, console_desk):
    answer = client.get("/search?q=广场舞")
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/login")
    assert "广场舞" not in answer.text and "张1" not in answer.text


def test_search_by_id_finds_that_row(signed_in):
    assert results(signed_in.get("/search?q=5").text) == ["5"]


def test_search_by_name_finds_the_rows_whose_name_contains_it(signed_in):
    assert results(signed_in.get("/search?q=张5").text) == ["5"]


def phone_reviewer(app, desk):
    """A client signed in as `li`, a reviewer added with `--sees-phones`."""
    desk.add("li", "correct horse 1", sees_phones=True)
    reviewer = app.test_client()
    token = re.search(r'name="csrf_token" value="([^"]+)"', reviewer.get("/login").text).group(1)
    reviewer.post("/login", data={"name": "li", "password": "correct horse 1", "csrf_token": token})
    return reviewer


def test_search_by_phone_finds_the_rows_whose_phone_contains_it_for_a_reviewer_who_sees_phones(console_app,
                                                                                              console_desk):
    console_desk.table[2]["phone"] = "13912345678"
    assert results(phone_reviewer(console_app, console_desk).get("/search?q=1234567").text) == ["2"]


def test_search_by_phone_finds_nothing_for_a_reviewer_who_may_not_see_phones(signed_in, console_desk):
    console_desk.table[2]["phone"] = "13912345678"
    assert results(signed_in.get("/search?q=1234567").text) == []
    assert results(signed_in.get("/search?q=13912345678").text) == []  # nor the whole number


def test_a_reviewer_who_may_not_see_phones_still_finds_by_the_other_fields(signed_in, console_desk):
    console_desk.table[2]["phone"] = "13912345678"
    assert results(signed_in.get("/search?q=张2").text) == ["2"]
    assert results(signed_in.get("/search?q=2").text)[0] == "2"  # by its id


def test_the_search_leaves_out_the_columns_masked_for_the_reviewer(signed_in, console_desk, monkeypatch):
    asked = []
    monkeypatch.setattr(console_desk, "search", lambda text, unsearched=(): asked.append(list(unsearched))
                        or Found([], False, {}))
    signed_in.get("/search?q=138")
    assert asked == [["phone"]]


def test_search_by_words_finds_the_rows_with_every_word_newest_first(signed_in):
    assert results(signed_in.get("/search?q=广场舞 再次反映").text) == ["6", "2"]


def test_a_result_shows_its_title_name_date_and_the_text_around_the_word_found(signed_in):
    page = signed_in.get("/search?q=张1").text
    assert '<span class="result-title" title="标题">噪音扰民</span>' in page
    assert '<span class="result-name" title="姓名">张1</span>' in page and "2025-03-01 09:30" in page


def test_a_result_marks_the_words_found_in_its_title_and_text(signed_in):
    page = signed_in.get("/search?q=噪音 十点").text
    assert "<mark>噪音</mark>扰民</span>" in page and "晚上<mark>十点</mark>还不停" in page


def test_an_excerpt_is_the_text_from_a_little_before_the_first_word_found():
    text = "甲" * 100 + "目标" + "乙" * 200
    assert excerpt(text, ["目标"]) == [("same", "…" + "甲" * 30), ("hit", "目标"), ("same", "乙" * 88 + "…")]
    assert excerpt("短文", ["目标"]) == [("same", "短文")]


def test_a_result_links_to_its_pairs_its_group_and_its_queue_item(signed_in):
    page = signed_in.get("/search?q=张1").text
    assert 'href="/pair?a=1&amp;b=2"' in page and "在待审队列中（相似对）" in page
    page = signed_in.get("/search?q=张5").text
    assert 'href="/pair?a=4&amp;b=5"' in page and 'href="/group?row=4&amp;row=5&amp;row=6"' in page


def test_search_says_when_more_rows_match_than_it_lists(signed_in, console_desk):
    console_desk.search_limit = 2
    page = signed_in.get("/search?q=广场舞").text
    assert len(results(page)) == 2 and "只列出前 2 条" in page


def test_search_that_finds_nothing_says_so(signed_in):
    assert "没有找到符合条件的记录" in signed_in.get("/search?q=不存在的词").text


def test_database_text_in_results_is_shown_as_text_never_as_markup(signed_in):
    page = signed_in.get("/search?q=alert").text
    assert results(page) == ["4", "3"]
    assert "<script>alert" not in page and "<img" not in page and "<svg" not in page
    assert "&lt;svg onload=<mark>alert</mark>(1)&gt;" in page and "&#34;&gt;&lt;img src=x onerror=" in page


def test_the_query_is_shown_back_as_text(signed_in):
    page = signed_in.get('/search?q="><script>x</script>').text
    assert "<script>x" not in page and 'value="&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in page


def test_every_row_a_search_shows_passes_through_privacy_for_the_search_page(signed_in, monkeypatch):
    seen = []
    monkeypatch.setattr(privacy, "shown", lambda rows, page: seen.append((page, [r["id"] for r in rows])) or rows)
    signed_in.get("/search?q=广场舞 再次反映")
    assert seen == [("search", [6, 2])]


def test_every_page_has_the_search_box_once_signed_in(signed_in, client):
    assert 'action="/search"' in signed_in.get("/").text
    assert 'action="/search"' not in client.get("/login").text


# ---------------------------------------------------------------- the queue page

def test_the_queue_lists_each_items_titles_and_names(signed_in):
    page = signed_in.get("/").text
    row = item_row(page, "pair:1,2")
    assert '<td class="titles">噪音扰民</td>' in row and '<td class="names">张1、张2</td>' in row
    assert "&lt;svg onload=alert(1)&gt;" in item_row(page, "pair:3,4")


def test_the_queue_reads_its_pages_rows_in_one_call(signed_in, console_desk):
    signed_in.get("/")
    assert console_desk.read == [[1, 2, 3, 4, 5, 6]]


def test_the_queue_rows_pass_through_privacy_for_the_queue_page(signed_in, monkeypatch):
    seen = []
    monkeypatch.setattr(privacy, "shown", lambda rows, page: seen.append(page) or rows)
    signed_in.get("/")
    assert seen == ["queue"]


@pytest.fixture
def long_queue(console_desk, monkeypatch):
    """A queue of 120 pairs: (1, 2), (1, 3), ... (1, 121)."""
    items = [Item([1, n], 0.1) for n in range(2, 122)]
    monkeypatch.setattr(console_desk, "queue", lambda: items)
    return items


def test_the_queue_lists_fifty_items_a_page_and_says_how_many_in_all(signed_in, long_queue):
    page = signed_in.get("/").text
    assert listed(page) == [f"pair:1,{n}" for n in range(2, 52)]
    assert "第 1 / 3 页，共 120 项" in page and 'href="/?page=2"' in page and "上一页" not in page


def test_page_two_of_the_queue_lists_the_next_items(signed_in, long_queue):
    page = signed_in.get("/?page=2").text
    assert listed(page) == [f"pair:1,{n}" for n in range(52, 102)]
    assert '<td class="num">51</td>' in page
    assert 'href="/?page=1"' in page and "上一页" in page and 'href="/?page=3"' in page and "下一页" in page


def test_a_page_past_the_last_is_the_last_and_one_not_a_number_the_first(signed_in, long_queue):
    assert listed(signed_in.get("/?page=99").text) == [f"pair:1,{n}" for n in range(102, 122)]
    assert listed(signed_in.get("/?page=x").text)[0] == "pair:1,2"


def test_paged_gives_the_page_asked_for_of_any_list_with_the_place_of_its_first_item():
    page, items = paged(list(range(120)), "3")
    assert page == Page(3, 3, 120) and page.first == 101 and list(items) == list(range(100, 120))
    assert paged(list(range(120)), "9")[0].number == 3 and paged(list(range(120)), "-1")[0].number == 1
    assert paged([], None) == (Page(1, 1, 0), [])


def test_the_items_this_reviewer_skipped_are_marked(signed_in):
    signed_in.post("/skip", data={"key": "pair:1,2", "csrf_token": signed_in.csrf})
    page = signed_in.get("/").text
    assert "skipped" in item_row(page, "pair:1,2") and "已跳过" in item_row(page, "pair:1,2")
    assert "skipped" not in item_row(page, "pair:3,4")


# ---------------------------------------------------------------- the search's SQL, MariaDB and SQLite

ROWS = [
    {"id": 1, "title": "噪音扰民", "name": "张三", "phone": "13800001111", "content": "广场舞音响太大，晚上十点还不停",
     "created_at": dt.datetime(2025, 3, 1)},
    {"id": 2, "title": "噪音扰民", "name": "张三丰", "phone": "13900002222", "content": "再次反映：广场舞音响太大",
     "created_at": dt.datetime(2025, 3, 5)},
    {"id": 3, "title": "物业收费", "name": "李四", "phone": "13700003333", "content": "物业费上涨 50% 没有公示",
     "created_at": dt.datetime(2025, 3, 3)},
    {"id": 4, "title": "物业收费", "name": "王_五", "phone": "13600004444", "content": "物业费上涨五成没有公示",
     "created_at": dt.datetime(2025, 3, 4)},
    {"id": 13, "title": "道路破损", "name": "赵六", "phone": "13500001313", "content": "路面坑洼",
     "created_at": dt.datetime(2025, 3, 2)},
]


@pytest.fixture(params=["mariadb", "sqlite"])
def petitions(request, tmp_path):
    """A source of ROWS and its configuration: on MariaDB and on SQLite."""
    url = request.getfixturevalue("mysql_url") if request.param == "mariadb" else f"sqlite:///{tmp_path}/p.db"
    table = sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                     *(sa.Column(c, sa.String(40)) for c in ("title", "name", "phone")),
                     sa.Column("content", sa.Text), sa.Column("created_at", sa.DateTime))
    engine = sa.create_engine(url)
    table.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(table.insert(), ROWS)
    engine.dispose()
    config = parse_config({"source": {"url": url, "table": "petition"},
                           "fields": {"title": "short", "name": "short", "phone": "short", "content": "long",
                                      "created_at": "ignore"},
                           "report": {"date_column": "created_at"}}, {})
    with SqlSource(config) as source:
        yield source


def found(source, text, limit=50):
    return [row["id"] for row in find(source, text, limit).rows]


def test_sql_search_by_id_puts_that_row_first(petitions):
    assert found(petitions, "4") == [4]  # 4 is also in row 4's phone, in no other row
    assert found(petitions, "1") == [1, 2, 4, 3, 13]  # the oldest row, by its id, then every row with a 1, newest first


def test_sql_search_by_name_exact_first_then_containing(petitions):
    assert found(petitions, "张三") == [1, 2]  # 张三 exactly, then 张三丰 (the newer)


def test_sql_search_by_phone_contains(petitions):
    assert found(petitions, "0000333") == [3]


def test_sql_search_leaves_out_the_fields_named_unsearched(petitions):
    assert find(petitions, "0000333", unsearched=["phone"]).rows == []
    assert find(petitions, "13700003333", unsearched=["phone"]).rows == []  # not even the whole field
    assert [r["id"] for r in find(petitions, "李四", unsearched=["phone"]).rows] == [3]


def test_sql_search_by_words_needs_every_word(petitions):
    assert found(petitions, "广场舞") == [2, 1]
    assert found(petitions, "广场舞  十点") == [1]
    assert found(petitions, "广场舞 物业") == []


def test_sql_search_takes_like_wildcards_as_themselves(petitions):
    assert found(petitions, "%") == [3]
    assert found(petitions, "_") == [4]
    assert found(petitions, "物业费上涨%公示") == []


def test_sql_search_is_bounded_and_says_when_there_are_more(petitions):
    result = find(petitions, "1", limit=2)
    assert [row["id"] for row in result.rows] == [1, 2] and result.more
    assert not find(petitions, "1", limit=5).more


def test_sql_search_of_nothing_finds_nothing(petitions):
    assert find(petitions, "   ").rows == []


def test_sql_search_gives_the_rows_each_is_paired_with(petitions):
    migrate.upgrade(petitions.config)
    with petitions.engine.begin() as conn:
        table = matchtable.reflect(conn)
        matchtable.upsert(conn, table, matchtable.both_directions([(1, 2, 0.1), (3, 4, 0.2), (1, 13, 0.3)], "batch"),
                          "petition")
    assert find(petitions, "张三").partners == {1: [2, 13], 2: [1]}
