"""The house has no knots (shared/DESIGN.md, "Layout"): no circle between modules of
dedup_pipeline, the core imports nothing outside the core and no database, nothing outside
store/ imports pymongo, nothing outside sql/ (and migrations/) imports SQLAlchemy. Imports are
read with `ast`, at module level and inside functions, since a lazy import hides a circle."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dedup_pipeline"
NAME = "dedup_pipeline"
IO_MODULES = ("pymongo", "sqlalchemy", "flask", "bson", "pyspark", "alembic", "secantusdb")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def nodes(tree: ast.AST, typing_too: bool) -> list[ast.AST]:
    """Every node of `tree`; without `typing_too`, none under `if TYPE_CHECKING:` (names for
    type hints only, never imported when the program runs)."""
    found, todo = [], [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        if (not typing_too and isinstance(node, ast.If)
                and "TYPE_CHECKING" in {n.id if isinstance(n, ast.Name) else getattr(n, "attr", None)
                                        for n in ast.walk(node.test)}):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return found


def imports_of(name: str, path: Path, known: set[str], typing_too: bool = True) -> set[str]:
    """Every module `name` imports, anywhere in its text, as absolute names; a package's
    `from package import module` counts as importing the module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in nodes(ast.parse(path.read_text(encoding="utf-8")), typing_too):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.add(target)
            found |= {f"{target}.{alias.name}" for alias in node.names
                      if f"{target}.{alias.name}" in known}
    return found


def graph() -> dict[str, set[str]]:
    """{module: the modules of dedup_pipeline it imports}."""
    mods = modules()
    known = set(mods)
    edges = {}
    for name, path in mods.items():
        inside = set()
        for target in imports_of(name, path, known):
            while target and target not in known:  # `import a.b.c` of an attribute
                target = target.rpartition(".")[0]
            if target and target != name and target != NAME:
                inside.add(target)
        edges[name] = inside
    return edges


def all_imports(typing_too: bool = True) -> dict[str, set[str]]:
    mods = modules()
    return {name: imports_of(name, path, set(mods), typing_too) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan), each sorted."""
    index, low, stack, on, parts, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(parts)


def a_circle(part: list[str], edges: dict[str, set[str]]) -> list[str]:
    """One circle through the first module of a strongly connected part, for the message."""
    start, members = part[0], set(part)
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for w in sorted(edges[path[-1]] & members):
            if w == start:
                return path + [start]
            if w not in seen:
                seen.add(w)
                paths.append(path + [w])
    return part


def test_no_circle_between_modules():
    edges = graph()
    found = [" → ".join(a_circle(part, edges)) for part in cycles(edges)]
    assert found == [], "circles between modules:\n" + "\n".join(found)


LEAVES = {f"{NAME}.errors"}  # below everything: the package's error classes, pure, importing nothing of it


def test_the_core_imports_only_the_core_and_no_io():
    """The core depends on nothing that depends on it: no source, store, job, report or
    configuration module (a type hint under TYPE_CHECKING is no import), and no database,
    web or cluster library."""
    wrong = {}
    for name, targets in all_imports(typing_too=False).items():
        if name.startswith(f"{NAME}.core"):
            bad = sorted(t for t in targets
                         if (t.startswith(f"{NAME}.") and not t.startswith(f"{NAME}.core") and t not in LEAVES)
                         or t.split(".")[0].lower() in IO_MODULES)
            if bad:
                wrong[name] = bad
    assert wrong == {}
    for leaf in LEAVES:
        assert not {t for t in all_imports()[leaf] if t.startswith(NAME)}, f"{leaf} is a leaf"


def outside(prefix: str, library: str) -> dict[str, list[str]]:
    return {name: sorted(t for t in targets if t.split(".")[0] == library)
            for name, targets in all_imports().items()
            if not name.startswith(f"{NAME}.{prefix}")
            and any(t.split(".")[0] == library for t in targets)}


def test_nothing_outside_store_imports_pymongo():
    assert outside("store", "pymongo") == {}


# Not cut yet (issue 51): the outbox worker claims and marks its entries in SQL itself, the
# binary-log follower locks rows and reads the server's logs. These go to sql/ next; the list
# only shrinks, and nothing else may join it.
SQLALCHEMY_NOT_YET = {f"{NAME}.jobs.worker", f"{NAME}.jobs.binlog"}


def test_nothing_outside_sql_imports_sqlalchemy():
    found = outside("sql", "sqlalchemy")
    assert sorted(set(found) - SQLALCHEMY_NOT_YET) == [], found
    assert sorted(SQLALCHEMY_NOT_YET - set(found)) == [], "cut: take it off SQLALCHEMY_NOT_YET"


def test_the_reader_sees_lazy_imports():
    """The test itself: an import inside a function counts as much as one at the top."""
    edges = graph()
    assert edges  # the package is read
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
