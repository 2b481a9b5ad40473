"""Reading code by its syntax tree: binds, mutations, risks, and never a crash."""

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_tools.kernel_tools._reading import CodeReading, Risk, read_code

EXISTING = {"df", "rows", "arr", "counts", "x", "pd", "np", "os", "plt", "path"}

# (code, binds, mutates, risk kinds): binds and mutates exactly, risk kinds as a set.
CASES = [
    # negative cases: nothing risky
    ("x2 = 1", {"x2"}, set(), set()),
    ("print(df.head())", set(), set(), set()),
    ("df.to_csv()", set(), set(), set()),
    ("text = df.to_csv(index=False)", {"text"}, set(), set()),
    ("df2 = df.dropna()", {"df2"}, set(), set()),
    ("summary = df.groupby('a').agg({'b': 'mean'}).reset_index()", {"summary"}, set(), set()),
    ("n = len(df); m = sorted(rows)", {"n", "m"}, set(), set()),
    ("total = pd.concat([df, df])", {"total"}, set(), set()),
    ("df.dropna(inplace=False)", set(), set(), set()),
    ("import pandas as pd\nimport numpy as np", {"pd", "np"}, set(), set()),
    ("import math, json, re", {"math", "json", "re"}, set(), set()),
    ("with open(path) as fh:\n    text = fh.read()", {"fh", "text"}, {"fh"}, set()),
    ("y: int", set(), set(), set()),
    ("[v for v in rows if v]", set(), set(), set()),
    # binding forms
    ("a, (b, *c) = rows", {"a", "b", "c"}, set(), set()),
    ("[a, b] = 1, 2", {"a", "b"}, set(), set()),
    ("p = q = 0", {"p", "q"}, set(), set()),
    ("if (n := len(rows)) > 2:\n    pass", {"n"}, set(), set()),
    ("total: int = 3", {"total"}, set(), set()),
    ("for i, v in enumerate(rows):\n    pass", {"i", "v"}, set(), set()),
    ("try:\n    pass\nexcept ValueError as err:\n    pass", {"err"}, set(), set()),
    ("import os.path", {"os"}, set(), set()),
    ("import numpy.linalg as la", {"la"}, set(), set()),
    ("from collections import Counter as C", {"C"}, set(), set()),
    ("def f(a):\n    b = a\n    return b", {"f"}, set(), set()),
    ("class K:\n    size = 1", {"K"}, set(), set()),
    ("def f():\n    global g\n    g = 1", {"f", "g"}, set(), set()),
    ("[w := v for v in rows]", {"w"}, set(), set()),
    ("def f():\n    return [w := v for v in rows]", {"f"}, set(), set()),
    ("match rows:\n    case [first, *rest]:\n        pass", {"first", "rest"}, set(), set()),
    ("match rows:\n    case {'k': val, **others}:\n        pass", {"val", "others"}, set(), set()),
    # reassign and delete
    ("x = 1", {"x"}, set(), {"reassign"}),
    ("df = df.dropna()", {"df"}, set(), {"reassign"}),
    ("for x in rows:\n    pass", {"x"}, set(), {"reassign"}),
    ("def df():\n    pass", {"df"}, set(), {"reassign"}),
    ("def f():\n    global df\n    df = None", {"f", "df"}, set(), {"reassign"}),
    ("import json as df", {"df"}, set(), {"reassign"}),
    ("del df", {"df"}, set(), {"delete_variable"}),
    ("del fresh", {"fresh"}, set(), set()),
    # in place
    ("df['x'] = 1", set(), {"df"}, set()),
    ("df.loc[df.a > 1, 'b'] = 0", set(), {"df"}, set()),
    ("obj.attr.sub = 1", set(), {"obj"}, set()),
    ("arr += 1", {"arr"}, {"arr"}, {"reassign"}),
    ("df['x'] *= 2", set(), {"df"}, set()),
    ("del df['year']", set(), {"df"}, set()),
    ("del obj.attr", set(), {"obj"}, set()),
    ("rows.append(4)", set(), {"rows"}, set()),
    ("counts.update(other)", set(), {"counts", "other"}, set()),
    ("seen.add(1)", set(), {"seen"}, set()),
    ("arr.sort()", set(), {"arr"}, set()),
    ("df['a'].fillna(0, inplace=True)", set(), {"df"}, {"inplace"}),
    ("df.dropna(inplace=flag)", set(), {"df"}, {"inplace"}),
    ("df.sort_values('a', inplace=1)", set(), {"df"}, {"inplace"}),
    ("clean(df)", set(), {"df"}, set()),
    ("clean(frames=[df, rows], extra={'k': arr})", set(), {"df", "rows", "arr"}, set()),
    ("clean(*rows)", set(), {"rows"}, set()),
    ("list(map(rows.append, range(3)))", set(), {"rows"}, set()),
    ("print(df.shape, len(df.columns))", set(), set(), set()),
    ("def f():\n    df['x'] = 1", {"f"}, {"df"}, set()),
    ("def f(d):\n    d['x'] = 1\n    d.append(2)", {"f"}, set(), set()),
    ("lambda d: d.append(1)", set(), set(), set()),
    ("lambda: rows.append(1)", set(), {"rows"}, set()),
    # files
    ("df.to_csv('out.csv')", set(), set(), {"file_write"}),
    ("df.to_parquet(path='out.parquet')", set(), set(), {"file_write"}),
    ("df.to_excel(writer)", set(), {"writer"}, {"file_write"}),
    ("open('f.txt', 'w')", set(), set(), {"file_write"}),
    ("open('f.txt', mode='a')", set(), set(), {"file_write"}),
    ("open('f.txt', 'r+')", set(), set(), {"file_write"}),
    ("open('f.txt', mode)", set(), set(), {"file_write"}),
    ("open('f.txt', 'rb')", set(), set(), set()),
    ("from pathlib import Path\nPath('f').open('w')", {"Path"}, set(), {"file_write"}),
    ("np.save('a.npy', arr)", set(), {"arr"}, {"file_write"}),
    ("np.savez('a.npz', a=arr)", set(), {"arr"}, {"file_write"}),
    ("np.savetxt('a.txt', arr)", set(), {"arr"}, {"file_write"}),
    ("arr.tofile('a.bin')", set(), {"arr"}, {"file_write"}),
    ("plt.savefig('fig.png')", set(), set(), {"file_write"}),
    ("Path('d').mkdir()", set(), set(), {"file_write"}),
    ("Path('f').write_text('x')", set(), set(), {"file_write"}),
    ("Path('f').touch()", set(), set(), {"file_write"}),
    ("Path('f').rename('g')", set(), set(), {"file_write"}),
    ("import shutil\nshutil.copy('a', 'b')", {"shutil"}, set(), {"file_write"}),
    ("import shutil\nshutil.move('a', 'b')", {"shutil"}, set(), {"file_write"}),
    ("from shutil import copytree\ncopytree('a', 'b')", {"copytree"}, set(), {"file_write"}),
    ("os.makedirs('d')", set(), set(), {"file_write"}),
    ("os.rename('a', 'b')", set(), set(), {"file_write"}),
    ("import pickle\npickle.dump(df, fh)", {"pickle"}, {"df", "fh"}, {"file_write"}),
    ("import json\njson.dump(rows, fh)", {"json"}, {"rows", "fh"}, {"file_write"}),
    ("import json\ns = json.dumps(rows)", {"json", "s"}, set(), set()),
    ("import copy\nkept = copy.deepcopy(rows)", {"copy", "kept"}, set(), set()),
    ("get_ipython().system('ls')", set(), set(), {"dynamic_code"}),
    ("run = exec", {"run"}, set(), {"dynamic_code"}),
    ("os.remove('f')", set(), set(), {"file_delete"}),
    ("os.unlink('f')", set(), set(), {"file_delete"}),
    ("os.rmdir('d')", set(), set(), {"file_delete"}),
    ("import shutil\nshutil.rmtree('d')", {"shutil"}, set(), {"file_delete"}),
    ("Path('f').unlink()", set(), set(), {"file_delete"}),
    ("import os as o\no.remove(p)", {"o"}, {"p"}, {"file_delete"}),
    ("from os import remove\nremove(p)", {"remove"}, {"p"}, {"file_delete"}),
    ("from shutil import rmtree as wipe\nwipe('d')", {"wipe"}, set(), {"file_delete"}),
    ("rm = os.remove\nrm(p)", {"rm"}, {"p"}, {"file_delete"}),
    (
        "import shutil\nwipe = getattr(shutil, 'rmtree')\nwipe('d')",
        {"shutil", "wipe"},
        set(),
        {"file_delete"},
    ),
    ("rm = os.remove\nrm = print\nrm(p)", {"rm"}, {"p"}, set()),  # rebound: no longer a delete
    # programs
    ("import subprocess\nsubprocess.run(['ls'])", {"subprocess"}, set(), {"subprocess"}),
    ("from subprocess import run\nrun(['ls'])", {"run"}, set(), {"subprocess"}),
    ("import subprocess as sp\nsp.check_output('ls')", {"sp"}, set(), {"subprocess"}),
    ("os.system('ls')", set(), set(), {"subprocess"}),
    ("os.popen('ls')", set(), set(), {"subprocess"}),
    ("os.execvp('ls', ['ls'])", set(), set(), {"subprocess"}),
    ("import pty", {"pty"}, set(), {"subprocess"}),
    ("import multiprocessing", {"multiprocessing"}, set(), {"subprocess"}),
    # network
    ("import requests", {"requests"}, set(), {"network"}),
    ("import urllib.request", {"urllib"}, set(), {"network"}),
    ("from http import client", {"client"}, set(), {"network"}),
    ("import socket as s", {"s"}, set(), {"network"}),
    ("d = pd.read_csv('https://example.com/a.csv')", {"d"}, set(), {"network"}),
    ("d = pd.read_parquet('s3://bucket/a.parquet')", {"d"}, set(), {"network"}),
    ("d = pd.read_csv(filepath_or_buffer='http://example.com/a.csv')", {"d"}, set(), {"network"}),
    ("d = pd.read_csv(f'https://{host}/a.csv')", {"d"}, set(), {"network"}),
    ("d = pd.read_csv('data/a.csv')", {"d"}, set(), set()),
    ("requests.get('https://example.com')", set(), set(), {"network"}),
    # code built at run time
    ("exec('x = 1')", set(), set(), {"dynamic_code"}),
    ("y = eval('1 + 1')", {"y"}, set(), {"dynamic_code"}),
    ("c = compile('1', 'f', 'eval')", {"c"}, set(), {"dynamic_code"}),
    ("m = __import__('os')", {"m"}, set(), {"dynamic_code"}),
    ("globals()['df'] = 1", set(), set(), {"dynamic_code"}),
    ("v = vars()", {"v"}, set(), {"dynamic_code"}),
    ("os.__dict__['remove'](p)", set(), {"p"}, {"dynamic_code"}),
    ("f.__globals__['df'] = 1", set(), {"f"}, {"dynamic_code"}),
    ("setattr(df, 'a', 1)", set(), {"df"}, {"dynamic_code"}),
    ("delattr(rows[0], 'a')", set(), {"rows"}, {"dynamic_code"}),
    ("v = getattr(df, name)", {"v"}, set(), {"dynamic_code"}),
    ("v = getattr(df, 'shape')", {"v"}, set(), set()),
    ("import sys\nsys.modules['x'] = None", {"sys"}, {"sys"}, {"dynamic_code", "system"}),
    ("import importlib", {"importlib"}, set(), {"dynamic_code"}),
    ("from os.path import *", set(), set(), {"dynamic_code"}),
    # imports outside the safe list
    ("import torch", {"torch"}, set(), {"import"}),
    ("from polars import DataFrame", {"DataFrame"}, set(), {"import"}),
    ("from . import sibling", {"sibling"}, set(), {"import"}),
    # the process
    ("os.environ['A'] = '1'", set(), {"os"}, {"system"}),
    ("os.chdir('/tmp')", set(), set(), {"system"}),
    ("import sys\nsys.exit(0)", {"sys"}, set(), {"system"}),
    ("exit()", set(), set(), {"system"}),
    ("quit()", set(), set(), {"system"}),
    ("import sys\nsys.path.append('x')", {"sys"}, set(), {"system"}),
    ("os.kill(1, 9)", set(), set(), {"system", "subprocess"}),
    ("import signal\nsignal.signal(2, h)", {"signal"}, {"h"}, {"system", "import"}),
    ("import atexit\natexit.register(h)", {"atexit"}, {"h"}, {"system", "import"}),
    ("pd.set_option('display.max_rows', 5)", set(), set(), {"system"}),
    ("pd.options.display.max_rows = 5", set(), {"pd"}, {"system"}),
    ("np.seterr(all='ignore')", set(), set(), {"system"}),
    ("plt.rcParams['figure.dpi'] = 200", set(), {"plt"}, {"system"}),
    # a name that may share another's object: changing it in place changes the other's
    ("v = arr[:5]\nv[:] = 0", {"v"}, {"v", "arr"}, set()),
    ("b = rows\nb.append(1)", {"b"}, {"b", "rows"}, set()),
    ("for r in rows:\n    r['x'] = 1", {"r"}, {"r", "rows"}, set()),
    ("w = df.values\nw[0, 0] = 1", {"w"}, {"w", "df"}, set()),
    ("v = arr.reshape(2, 5)\nv += 1", {"v"}, {"v", "arr"}, set()),
    ("y = np.asarray(counts)\nz = y\nz.fill(0)", {"y", "z"}, {"y", "z", "counts"}, set()),
    ("v = arr if c else rows\nv.sort()", {"v"}, {"v", "arr", "rows"}, set()),
    ("d = df.get('x')\nd.iloc[0] = 1", {"d"}, {"d", "df"}, set()),
    ("def f():\n    v = arr[:2]\n    v[0] = 1", {"f"}, {"arr"}, set()),
    ("[r.update(x=1) for r in rows]", set(), {"rows"}, set()),
    ("x = arr + 1\nx[0] = 5", {"x"}, {"x"}, {"reassign"}),  # a new object: arr is untouched
    ("c = arr.copy()\nc[0] = 1", {"c"}, {"c"}, set()),
    ("def f(arr):\n    v = arr[:2]\n    v[0] = 1", {"f"}, set(), set()),  # its own arr
    # not plain Python
    ("!ls", set(), set(), {"unparsable"}),
    ("%time df.sum()", set(), set(), {"unparsable"}),
    ("df?", set(), set(), {"unparsable"}),
    ("x = (", set(), set(), {"unparsable"}),
    ("a\x00b", set(), set(), {"unparsable"}),
]


@pytest.mark.parametrize(("code", "binds", "mutates", "kinds"), CASES, ids=[c[0][:40] for c in CASES])
def test_a_reading_names_what_the_code_binds_changes_and_risks(code, binds, mutates, kinds):
    reading = read_code(code, EXISTING)
    assert set(reading.binds) == binds
    assert set(reading.mutates) == mutates
    assert {r.kind for r in reading.risks} == kinds
    assert reading.risky() == bool(kinds)


def test_references_are_free_names_only():
    code = "def f(a):\n    b = a + x\n    return [v * b for v in rows]\nk = lambda q: q + arr\ny = f(counts)"
    reading = read_code(code, EXISTING)
    assert reading.references == {"x", "rows", "arr", "f", "counts"}
    assert reading.exact


def test_a_class_body_s_names_are_not_seen_by_its_methods():
    code = "class K:\n    size = 1\n    def get(self):\n        return size\n"
    assert "size" in read_code(code, set()).references


def test_a_class_body_reads_a_global_before_binding_its_own():
    reading = read_code("class K:\n    x = x + 1\n    rows.append(x)\n", EXISTING)
    assert "x" in reading.references and "rows" in reading.mutates and reading.binds == {"K"}


def test_a_function_s_names_shadow_the_namespace_and_a_global_does_not():
    shadowed = read_code("def f():\n    df = 1\n    df['x'] = 2\n", EXISTING)
    assert shadowed.mutates == frozenset() and "df" not in shadowed.references
    declared = read_code("def f():\n    global df\n    df['x'] = 2\n", EXISTING)
    assert declared.mutates == {"df"} and "df" in declared.binds


def test_risks_carry_their_line_are_sorted_and_each_said_once():
    code = "import os\nx = 1\nos.remove('a')\nx = 2\nos.remove('a')\ndf.to_csv('o.csv')"
    reading = read_code(code, EXISTING)
    assert [(r.kind, r.line) for r in reading.risks] == [
        ("reassign", 2),
        ("file_delete", 3),
        ("file_write", 6),
    ]
    assert reading.risks[0] == Risk("reassign", 2, "reassigns existing variable 'x'")
    assert reading.risks[2].detail == "df.to_csv(...) writes a file"


def test_reimporting_a_module_under_its_usual_name_is_not_a_reassignment():
    reading = read_code("import pandas as pd\nimport os", EXISTING)
    assert reading.risks == () and reading.binds == {"pd", "os"}


def test_ipython_lines_are_named_with_their_line():
    [risk] = read_code("x = 1\n%matplotlib inline\n", set()).risks
    assert (risk.kind, risk.line) == ("unparsable", 2)
    assert "not plain Python" in risk.detail and "approval" in risk.detail


def test_a_syntax_error_is_named_by_its_own_line_not_a_question_in_a_comment():
    [risk] = read_code("x = 1  # why?\ny = (", set()).risks
    assert (risk.kind, risk.line) == ("unparsable", 2)
    assert "IPython" not in risk.detail


def test_a_percent_that_continues_an_expression_is_python():
    assert read_code("y = (10\n%3)", set()).risks == ()


def test_touched_is_binds_and_mutates_when_exact():
    reading = read_code("df2 = df.dropna()\nrows.append(1)\nprint(arr)", EXISTING)
    assert reading.exact
    assert reading.touched(EXISTING) == {"df2", "rows"}


def test_touched_is_everything_referenced_and_mentioned_when_not_exact():
    reading = read_code("exec(code)\nexec('del df')\nn = len(rows)", EXISTING)
    assert not reading.exact
    assert reading.touched(EXISTING) == {"n", "code", "rows", "df", "exec", "len"}


def test_unparsable_code_touches_nothing_and_is_not_exact():
    reading = read_code("!rm -rf /", EXISTING)
    assert reading == CodeReading(risks=reading.risks, exact=False)
    assert reading.touched(EXISTING) == frozenset()


def test_deep_nesting_is_an_unparsable_reading():
    for code in ["(" * 5000 + "1" + ")" * 5000, "x = " + "-" * 100_000 + "1", "a" + ".b" * 50_000]:
        reading = read_code(code, set())
        assert [r.kind for r in reading.risks] == ["unparsable"]
        assert not reading.exact


def test_code_python_runs_but_too_deep_to_walk_still_names_what_it_touches():
    code = "import os\nrows.append(1)\ntotal = " + "-" * 900 + "df.x"  # parses; too deep for a walk
    reading = read_code(code, EXISTING)
    [risk] = reading.risks
    assert (risk.kind, risk.detail) == (
        "unparsable",
        "the code is nested too deeply to read in full: approval required",
    )
    assert not reading.exact
    assert {"os", "total", "rows", "df"} <= reading.touched(EXISTING)


def test_ten_thousand_lines_are_read_whole():
    # how fast is `./dev bench p13`'s (against ast.parse of the same code): a test never times
    lines = [
        "df['c{i}'] = df['a'] * {i}",
        "rows.append({i})",
        "v{i} = pd.concat([df, df]).groupby('a').sum()",
        "for j in range({i}):\n    total = j",
    ]
    code = "\n".join(lines[i % 4].format(i=i) for i in range(10_000))
    reading = read_code(code, EXISTING)
    assert reading.mutates == {"df", "rows"}
    assert {f"v{i}" for i in range(2, 10_000, 4)} <= reading.binds and "total" in reading.binds


# -- never raises -------------------------------------------------------------------------------------

_NAMES = st.sampled_from(["df", "rows", "x", "os", "pd", "f", "new", "exec", "globals", "open", "Path"])
_ATTRS = st.sampled_from(["append", "to_csv", "remove", "loc", "head", "dropna", "system", "environ"])


def _expressions() -> st.SearchStrategy[ast.expr]:
    leaves = st.one_of(
        _NAMES.map(lambda n: ast.Name(n, ast.Load())),
        st.one_of(st.integers(-5, 5), st.text(max_size=8), st.none()).map(ast.Constant),
    )

    def grow(inner: st.SearchStrategy[ast.expr]) -> st.SearchStrategy[ast.expr]:
        return st.one_of(
            st.tuples(inner, _ATTRS).map(lambda t: ast.Attribute(t[0], t[1], ast.Load())),
            st.tuples(inner, inner).map(lambda t: ast.Subscript(t[0], t[1], ast.Load())),
            st.tuples(inner, st.lists(inner, max_size=3), st.booleans()).map(
                lambda t: ast.Call(t[0], t[1], [ast.keyword("inplace", ast.Constant(True))] if t[2] else [])
            ),
            st.tuples(inner, inner).map(lambda t: ast.BinOp(t[0], ast.Add(), t[1])),
            st.lists(inner, max_size=3).map(lambda e: ast.List(e, ast.Load())),
            st.tuples(_NAMES, inner).map(lambda t: ast.NamedExpr(ast.Name(t[0], ast.Store()), t[1])),
            st.tuples(_NAMES, inner, inner).map(
                lambda t: ast.ListComp(t[1], [ast.comprehension(ast.Name(t[0], ast.Store()), t[2], [], 0)])
            ),
            st.tuples(_NAMES, inner).map(
                lambda t: ast.Lambda(ast.arguments([], [ast.arg(t[0])], None, [], [], None, []), t[1])
            ),
        )

    return st.recursive(leaves, grow, max_leaves=8)


def _statements() -> st.SearchStrategy[ast.stmt]:
    expressions = _expressions()
    targets = st.one_of(
        _NAMES.map(lambda n: ast.Name(n, ast.Store())),
        st.tuples(_NAMES, expressions).map(
            lambda t: ast.Subscript(ast.Name(t[0], ast.Load()), t[1], ast.Store())
        ),
        st.tuples(_NAMES, _ATTRS).map(lambda t: ast.Attribute(ast.Name(t[0], ast.Load()), t[1], ast.Store())),
    )
    simple = st.one_of(
        expressions.map(ast.Expr),
        st.tuples(targets, expressions).map(lambda t: ast.Assign([t[0]], t[1], lineno=1)),
        st.tuples(targets, expressions).map(lambda t: ast.AugAssign(t[0], ast.Mult(), t[1])),
        targets.map(lambda t: ast.Delete([_as_del(t)])),
        st.tuples(st.sampled_from(["os", "requests", "pandas", "torch"]), st.none() | _NAMES).map(
            lambda t: ast.Import([ast.alias(t[0], t[1])])
        ),
        _NAMES.map(lambda n: ast.Global([n])),
    )

    def grow(inner: st.SearchStrategy[ast.stmt]) -> st.SearchStrategy[ast.stmt]:
        body = st.lists(inner, min_size=1, max_size=3)
        return st.one_of(
            st.tuples(_NAMES, expressions, body).map(
                lambda t: ast.For(ast.Name(t[0], ast.Store()), t[1], t[2], [], lineno=1)
            ),
            st.tuples(_NAMES, body).map(
                lambda t: ast.FunctionDef(
                    t[0], ast.arguments([], [], None, [], [], None, []), t[1], [], None, lineno=1
                )
            ),
            st.tuples(expressions, body).map(lambda t: ast.If(t[0], t[1], [])),
        )

    return st.recursive(simple, grow, max_leaves=6)


def _as_del(target: ast.expr) -> ast.expr:
    target.ctx = ast.Del()  # type: ignore[attr-defined]
    return target


@st.composite
def _python(draw: st.DrawFn) -> str:
    module = ast.Module(draw(st.lists(_statements(), min_size=1, max_size=5)), [])
    return ast.unparse(ast.fix_missing_locations(module))


_FRAGMENTS = st.sampled_from(
    [
        "df",
        "=",
        "(",
        ")",
        "[",
        "]",
        ".",
        "append",
        "exec",
        "\n",
        "    ",
        "!",
        "%",
        ":",
        "lambda",
        "def ",
        "for ",
        " in ",
        "global ",
        "del ",
        "import ",
        "os",
        "'s'",
        ",",
        "*",
        ":=",
        "+=",
        "\x00",
        "\\",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    code=st.one_of(
        st.text(max_size=200),
        st.lists(_FRAGMENTS, max_size=40).map("".join),
        _python(),
    ),
    existing=st.sets(_NAMES, max_size=5),
)
def test_any_text_is_read_without_raising(code, existing):
    reading = read_code(code, existing)
    assert isinstance(reading, CodeReading)
    assert reading.binds <= reading.touched(existing)
    assert all(r.line >= 0 for r in reading.risks)
    assert list(reading.risks) == sorted(reading.risks, key=lambda r: r.line)
    assert len({(r.kind, r.detail) for r in reading.risks}) == len(reading.risks)


@settings(max_examples=200, deadline=None)
@given(code=_python())
def test_valid_python_from_random_trees_reads_exactly_unless_dynamic(code):
    reading = read_code(code, {"df", "x"})
    assert "unparsable" not in {r.kind for r in reading.risks}
    dynamic = {"exec", "globals"} & reading.references
    assert reading.exact == (not dynamic)
