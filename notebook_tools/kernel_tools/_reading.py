"""Reading code by its syntax tree: what it binds, what it may change in place, and what makes it risky.

Two decisions rest on it: whether a run asks first when only risky code does (the reasons are shown
on the approval card), and which variables are checkpointed before the run so it can be undone.
The reading is conservative: whatever it does not understand counts against the code. It uses
Python's `ast` alone, and never raises: code that does not parse (a syntax error, IPython syntax,
nesting too deep for the parser) is one "unparsable" risk and nothing else is known of it; code
that parses but is too deep for the walk by scope is read flat (every name it stores is bound,
every name it loads is referenced), is not exact, and asks first as "unparsable".

- **binds**: module-level names the code assigns (every target form, `for`, `with` and `except`
  targets, a walrus outside functions), imports, defines or deletes; `global x` inside a function
  counts as binding `x`.
- **mutates**: names whose objects may change in place:

  - the root of an assignment target that is a subscript or an attribute (`df["x"] = ...`,
    `df.loc[i, "x"] = ...`, `obj.a.b = ...`), of an augmented assignment (`arr += 1`,
    `df["x"] *= 2`) or of a `del x[...]` / `del x.a`;
  - the root receiver of a method call whose method is not in `READ_ONLY_METHODS` (pandas and
    numpy methods that return a new object: `df.head()` does not mutate, `rows.append(...)` does),
    and of any call with an `inplace=` other than a literal False;
  - any name passed (alone, or inside a list, tuple, set or dict display) to a call of something
    whose last name is not in `PURE_CALLS` (`len`, `print`, `sorted`, `pd.concat`, `np.array`, ...);
  - `setattr(x, ...)` / `delattr(x, ...)`: `x`;
  - a mutating method handed over as a function (`map(rows.append, xs)`): its object.

  A function's or lambda's own names (parameters, what it binds, not declared `global`) are its
  own; a free name it changes counts, since the code may call it. A class body hides nothing.
  A name a `for` binds is bound, not mutated.
- **references**: every name the code loads from the namespace (names that are local to a
  function, lambda or comprehension of its own are not).
- **exact**: False when the code may reach names the tree does not show (`exec`, `eval`,
  `compile`, `globals()`, `vars()`, `get_ipython`, `setattr` on an object it computes,
  `__dict__`-like attributes, `from x import *`, `sys.modules`, `importlib`, unpickling): callers
  then checkpoint everything it references, and every existing name its string literals mention.
- **risks**: files written or deleted, programs run, the network, variables deleted or reassigned
  (one risk per name; `del name` is "delete_variable" alone), data changed in place, code built
  at run time, imports outside `SAFE_MODULES`, changes to the process (environment, working
  directory, `sys.path`, exit, signals, library-wide settings such as `pd.set_option` or
  `plt.rcParams`), and code that is not plain Python: each with its first line, one per kind and
  detail, sorted by line.

Imports are followed: `import os as o; o.remove(p)`, `from os import remove; remove(p)` and
`rm = os.remove; rm(p)` all delete a file. `pd`, `np`, `plt`, `sns` and `mpl` stand for their
usual modules when the code does not import them itself (a notebook imported them in an earlier
cell). Importing `os`, `sys`, `shutil`, `pathlib` or `pickle` is not a risk by itself: what the
code calls from them is. Re-importing a module under the name that usually holds it (`import
pandas as pd` when `pd` exists) is not a reassignment: it is every notebook's first cell.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["CodeReading", "Risk", "RiskKind", "read_code"]


def _words(text: str) -> frozenset[str]:
    """The words of `text`: the allow-lists below read as prose-like blocks of names."""
    return frozenset(text.split())


RiskKind = Literal[
    "file_write",
    "file_delete",
    "subprocess",
    "network",
    "delete_variable",
    "inplace",
    "reassign",
    "dynamic_code",
    "import",
    "system",
    "unparsable",
]


@dataclass(frozen=True)
class Risk:
    """One reason the code is risky."""

    kind: RiskKind
    line: int
    """1-based line in the code (0: the code as a whole)."""
    detail: str
    """Short and plain, for the approval card: "df.to_csv(...) writes a file"."""


@dataclass(frozen=True)
class CodeReading:
    """What the syntax tree says about a piece of code."""

    binds: frozenset[str] = frozenset()
    """Module-level names the code binds, rebinds or deletes."""
    mutates: frozenset[str] = frozenset()
    """Names whose objects the code may change in place."""
    references: frozenset[str] = frozenset()
    """Names the code loads from the namespace (or builtins)."""
    risks: tuple[Risk, ...] = ()
    """Why the code is risky, sorted by line; empty when it is not."""
    exact: bool = True
    """False when the code may reach names the tree does not show."""
    mentions: frozenset[str] = frozenset()
    """Identifiers written inside the code's string literals (`exec("del df")`, `globals()["df"]`)."""

    def touched(self, existing: Collection[str]) -> frozenset[str]:
        """The names to checkpoint before a run.

        The bound and mutated names; when the reading is not exact, also every referenced name and
        every existing name a string literal mentions. Names absent now are kept too: a checkpoint
        records them as absent, so undo removes what the run made.

        Args:
            existing: The names now in the namespace.
        """
        names = self.binds | self.mutates
        if not self.exact:
            names |= self.references | (self.mentions & frozenset(existing))
        return names

    def risky(self) -> bool:
        """Whether any risk was found."""
        return bool(self.risks)


READ_ONLY_METHODS = _words(
    """
    head tail describe info copy sum mean median mode min max std var sem prod count nunique unique
    value_counts groupby agg aggregate apply applymap map transform astype convert_dtypes infer_objects
    to_numpy tolist to_list to_dict to_frame to_records to_string to_timestamp to_period
    to_csv to_parquet to_excel to_json to_pickle to_feather to_hdf to_sql to_html to_latex to_markdown
    to_stata to_xml to_orc
    isna notna isnull notnull dropna fillna ffill bfill drop drop_duplicates duplicated rename
    rename_axis sort_values sort_index reset_index set_index reindex query merge join
    filter where mask clip round abs cumsum cumprod cummax cummin diff pct_change shift rolling
    expanding ewm resample pivot pivot_table melt stack unstack explode corr cov quantile rank
    nlargest nsmallest idxmin idxmax any all get items keys values memory_usage select_dtypes sample
    replace interpolate between isin plot hist boxplot reshape ravel flatten transpose dot argmax
    argmin argsort nonzero searchsorted split rsplit strip lstrip rstrip lower upper title capitalize
    casefold startswith endswith contains format encode decode find rfind index rindex zfill
    eq ne lt le gt ge sub mul div truediv floordiv mod pow equals combine_first align assign
    squeeze item nbytes view asfreq tz_localize tz_convert strftime total_seconds floor ceil
    """
)
"""Methods that return a new object and leave their receiver alone (pandas, numpy, str, dict reads).

Left out on purpose: `add` (a set's `add` changes the set), `pipe` (it hands the receiver to a
function), `update`, `insert`, `pop`, `sort`, `fill`, `resize`, `append`, `extend`, `clear`.
"""

PURE_CALLS = _words(
    """
    len print repr str type open isinstance issubclass sorted list tuple set frozenset dict sum min max
    abs round range enumerate zip display id hash any all format int float bool complex reversed
    map filter iter divmod pow chr ord hex oct bin ascii callable hasattr getattr dumps deepcopy copy
    concat DataFrame Series Index array asarray arange linspace zeros ones full zeros_like ones_like
    isnan isfinite isclose allclose array_equal where unique mean median std var log
    log2 log10 exp sqrt percentile quantile corrcoef histogram
    read_csv read_excel read_json read_parquet read_table to_datetime to_numeric to_timedelta cut
    qcut get_dummies merge crosstab date_range Timestamp Timedelta isna notna
    figure subplots title xlabel ylabel legend show bar barh plot scatter hist boxplot heatmap
    lineplot scatterplot barplot histplot countplot pairplot
    """
)
"""Functions (by their last name: `pd.concat`, `np.array`) that leave their arguments alone.

`next` is left out: it advances the iterator it is given.
"""

SAFE_MODULES = _words(
    """
    pandas numpy math cmath statistics re json datetime collections itertools functools operator
    string textwrap decimal fractions random matplotlib seaborn scipy sklearn typing dataclasses
    pprint time copy warnings calendar zoneinfo heapq bisect enum numbers palmerpenguins __future__
    """
)
"""Modules that import without a risk: the standard library's pure parts and common data libraries."""

_NETWORK_MODULES = _words(
    "socket ssl urllib urllib3 requests httpx http ftplib smtplib aiohttp websockets paramiko"
)
_PROGRAM_MODULES = frozenset(["subprocess", "pty", "multiprocessing"])
_DYNAMIC_MODULES = frozenset(["importlib", "ctypes", "builtins"])
_CALLS_CHECKED = frozenset(["os", "sys", "shutil", "pathlib", "pickle"])
"""Imported without a risk: what the code calls from them is what counts."""

_CONVENTIONAL = {
    "pd": "pandas",
    "np": "numpy",
    "plt": "matplotlib.pyplot",
    "sns": "seaborn",
    "mpl": "matplotlib",
}
"""Aliases a notebook's earlier cells are taken to have imported."""
_MODULE_NAMES = _words(
    """
    os sys shutil pathlib pickle json math re subprocess signal atexit itertools functools
    collections datetime importlib builtins io
    """
)
"""Names taken for modules (not variables) when a call's receiver: `os.remove(p)` does not change `os`."""

_PANDAS_WRITERS = _words(
    """
    to_csv to_parquet to_excel to_json to_pickle to_feather to_hdf to_sql to_html to_latex
    to_markdown to_stata to_xml to_orc
    """
)
"""Write a file when given a path, and return text (or bytes) without one."""
_PATH_KEYWORDS = frozenset(["path", "path_or_buf", "path_or_buffer", "excel_writer", "buf", "con", "name"])
_WRITERS = frozenset(["tofile", "savefig", "write_text", "write_bytes", "mkdir", "touch", "symlink_to"])
"""Write a file (or make a directory) however they are called."""
_OS_WRITERS = frozenset(["rename", "renames", "replace", "mkdir", "makedirs", "write", "symlink", "link"])
_SHUTIL_WRITERS = frozenset(
    ["copy", "copy2", "copyfile", "copytree", "copyfileobj", "copymode", "copystat", "move", "chown"]
)
_DELETERS = {"os": frozenset(["remove", "unlink", "rmdir", "removedirs"]), "shutil": frozenset(["rmtree"])}
_BARE_DELETERS = frozenset(["rmtree", "removedirs"])
_OS_PROGRAMS = frozenset(["system", "popen", "fork", "forkpty", "kill", "killpg", "startfile", "posix_spawn"])
_BARE_PROGRAMS = frozenset(["Popen", "check_output", "check_call", "getoutput", "getstatusoutput"])
_SYSTEM_CALLS = {
    "os": frozenset(["chdir", "putenv", "unsetenv", "kill", "killpg", "_exit", "abort", "setuid", "umask"]),
    "sys": frozenset(["exit", "setrecursionlimit", "settrace", "setprofile", "addaudithook"]),
    "signal": frozenset(["signal", "alarm", "setitimer"]),
    "atexit": frozenset(["register"]),
}
_SETTINGS = {
    "pandas": frozenset(["set_option", "reset_option"]),
    "numpy": frozenset(["seterr", "set_printoptions", "seterrcall"]),
    "matplotlib": frozenset(["use", "rc", "rcdefaults"]),
}
_SYSTEM_STATE = ("os.environ", "sys.path", "sys.modules", "sys.stdout", "sys.stderr", "sys.stdin")
_SYSTEM_STORES = (
    "os.",
    "sys.",
    "pandas.options",
    "numpy.",
    "matplotlib.rcParams",
    "matplotlib.pyplot.rcParams",
)
_READERS = _words(
    """
    read_csv read_json read_html read_parquet read_excel read_table read_xml read_feather read_pickle
    read_fwf read_orc read_sas read_spss read_stata loadtxt genfromtxt urlopen urlretrieve
    """
)
_REMOTE = ("http:", "https:", "ftp:", "s3:", "gs:", "s3a:", "gcs:", "az:", "abfs:", "hdfs:")
_UNPICKLERS = frozenset(["pickle.load", "pickle.loads", "pandas.read_pickle", "joblib.load", "dill.load"])
_DYNAMIC_NAMES = frozenset(
    [
        "exec",
        "eval",
        "compile",
        "__import__",
        "globals",
        "locals",
        "vars",
        "setattr",
        "delattr",
        "__builtins__",
        "breakpoint",
        "get_ipython",
    ]
)
_DYNAMIC_ATTRIBUTES = frozenset(
    ["__dict__", "__globals__", "__builtins__", "__code__", "__subclasses__", "__setattr__", "__delattr__"]
)
_MUTATORS = _words(
    "append extend insert update add remove discard pop popitem clear sort reverse setdefault write fill"
)
"""Methods that change their object: handed over as a function, they are still bound to it."""
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_IPYTHON_LINE = re.compile(r"\s*(?:[!%].*|\?{1,2}[\w.]+|[\w.]+\?{1,2})\s*")
"""`!ls`, `%time ...`, `%%bash`, `?df`, `df.head??`: what IPython would have turned into Python."""
_MODE = re.compile(r"[rwxabtU+]{1,4}")
_OPENERS = frozenset(
    ["open", "io.open", "codecs.open", "builtins.open", "gzip.open", "bz2.open", "lzma.open", "tarfile.open"]
)

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_Comprehension = ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp


@dataclass
class _Scope:
    """A function, lambda, class body or comprehension: the names it keeps to itself."""

    kind: Literal["function", "class", "comprehension"]
    local: frozenset[str]
    declared_global: frozenset[str] = frozenset()
    shares: dict[str, set[str]] = field(default_factory=dict)
    """Its own name -> the names whose objects that name's object may share (see `_Reader.shares`)."""


@dataclass
class _Reader(ast.NodeVisitor):
    existing: Collection[str]
    binds: set[str] = field(default_factory=set)
    mutates: set[str] = field(default_factory=set)
    references: set[str] = field(default_factory=set)
    mentions: set[str] = field(default_factory=set)
    risks: list[Risk] = field(default_factory=list)
    exact: bool = True
    aliases: dict[str, str] = field(default_factory=dict)
    """Local name -> what it stands for ("os", "os.remove", "subprocess.run")."""
    scopes: list[_Scope] = field(default_factory=list)
    """The scopes the visit is inside, innermost last (empty: the module)."""
    shares: dict[str, set[str]] = field(default_factory=dict)
    """Module-level name -> the names whose objects its object may share (`v = arr[:5]`, `b = a`,
    `for row in rows`), transitively: changing it in place may change theirs. Only added to, never
    taken back: a rebinding in one branch leaves the other's sharing possible."""

    def risk(self, kind: RiskKind, node: ast.AST | None, detail: str) -> None:
        self.risks.append(Risk(kind, getattr(node, "lineno", 0) or 0, detail))

    def dynamic(self, node: ast.AST, detail: str) -> None:
        self.exact = False
        self.risk("dynamic_code", node, detail)

    # -- names ---------------------------------------------------------------------------------------

    def is_local(self, name: str) -> bool:
        """Whether `name`, loaded where the visit is, belongs to a scope of the code's own."""
        for scope in reversed(self.scopes):
            if scope.kind == "class":
                continue  # not seen by its methods, and in its own body a name not yet bound is a global
            if name in scope.declared_global:
                return False
            if name in scope.local:
                return True
        return False

    def owner(self, name: str) -> _Scope | None:
        """The scope of the code's own that `name`, where the visit is, belongs to (None: the module)."""
        for scope in reversed(self.scopes):
            if scope.kind == "class":
                continue
            if name in scope.declared_global:
                return None
            if name in scope.local:
                return scope
        return None

    def _shared(self, name: str) -> set[str]:
        owner = self.owner(name)
        return (self.shares if owner is None else owner.shares).get(name, set())

    def changed(self, name: str | None) -> None:
        """`name`'s object may change in place, and so may every object it shares."""
        if name is None:
            return
        for root in {name, *self._shared(name)}:  # (a name's sharing is kept whole: no chain to follow)
            if not self.is_local(root):
                self.mutates.add(root)

    def share(self, target: ast.AST, value: ast.expr) -> None:
        """A name bound to `value` may share the objects `value` reads from (`v = arr[:5]`, `b = a`)."""
        if not isinstance(target, ast.Name):
            return
        roots: set[str] = set()
        for root in _shared_roots(value):
            roots |= {root, *self._shared(root)}
        roots.discard(target.id)
        if roots:
            owner = self.owner(target.id)
            (self.shares if owner is None else owner.shares).setdefault(target.id, set()).update(roots)

    def bind(self, name: str, node: ast.AST, *, walrus: bool = False) -> None:
        scopes = self.scopes
        if walrus:  # a walrus in a comprehension binds in the scope around it
            scopes = [s for s in scopes if s.kind != "comprehension"]
        if scopes and name not in scopes[-1].declared_global:
            return
        self.binds.add(name)
        if name in self.existing:
            self.risk("reassign", node, f"reassigns existing variable {name!r}")

    def unbind(self, name: str, node: ast.AST) -> None:
        if self.scopes and name not in self.scopes[-1].declared_global:
            return
        self.binds.add(name)
        if name in self.existing:
            self.risk("delete_variable", node, f"deletes variable {name!r}")

    def load(self, name: str, node: ast.AST) -> None:
        if self.is_local(name):
            return
        self.references.add(name)
        if name in _DYNAMIC_NAMES:  # called or not: `run = exec` is as dynamic as `exec(...)`
            self.dynamic(node, f"{name} reaches names the code does not show")

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.load(node.id, node)
        elif isinstance(node.ctx, ast.Store):
            self.bind(node.id, node)
        else:
            self.unbind(node.id, node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and len(node.value) < 10_000:
            self.mentions.update(_IDENTIFIER.findall(node.value))

    def target(self, node: ast.AST) -> None:
        """An assignment target: a subscript or attribute changes its root's object."""
        if isinstance(node, ast.Attribute | ast.Subscript):
            self.changed(_root(node))
        elif isinstance(node, ast.Tuple | ast.List | ast.Starred):
            for element in node.elts if isinstance(node, ast.Tuple | ast.List) else [node.value]:
                self.target(element)
            return
        self.visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.target(target)
            self.share(target, node.value)
            if isinstance(target, ast.Name):  # `rm = os.remove` is followed like an import
                self._alias(target.id, node.value)

    def _alias(self, local: str, value: ast.expr) -> None:
        """Follow `local = os.remove` and `local = getattr(os, "remove")`; forget it for any other value."""
        stands_for = self.full_name(value)
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "getattr"
            and len(value.args) == 2
            and isinstance(value.args[1], ast.Constant)
            and isinstance(value.args[1].value, str)
        ):
            stands_for = f"{self.full_name(value.args[0])}.{value.args[1].value}"
        if stands_for and self.is_module(stands_for.split(".")[0]):
            self.aliases[local] = stands_for
        else:
            self.aliases.pop(local, None)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if not self.scopes:
            self.visit(node.annotation)  # evaluated at module level
        if node.value is not None:
            self.visit(node.value)
            self.target(node.target)
            self.share(node.target, node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        root = _root(node.target)
        if root is not None:
            self.load(root, node)
            self.changed(root)  # `arr += 1` changes an array in place
        self.target(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target.id, node, walrus=True)
        self.share(node.target, node.value)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self.target(target)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self.target(node.target)
        for name in _target_names(node.target):  # `for row in rows: row["x"] = 1` changes rows's rows
            self.share(name, node.iter)
        self.visit_all([*node.body, *node.orelse])

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.target(item.optional_vars)
        self.visit_all(node.body)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.bind(node.name, node)
        self.visit_all(node.body)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self.generic_visit(node)
        if node.name:
            self.bind(node.name, node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.bind(node.name, node)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.generic_visit(node)
        if node.rest:
            self.bind(node.rest, node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self.binds.add(name)
            if name in self.existing:
                self.risk("reassign", node, f"reassigns existing variable {name!r}")

    def visit_all(self, nodes: Iterable[ast.AST]) -> None:
        for node in nodes:
            self.visit(node)

    # -- scopes --------------------------------------------------------------------------------------

    def visit_FunctionDef(self, node: _Function) -> None:
        self.visit_all(node.decorator_list)
        self._arguments(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self.bind(node.name, node)
        local, declared = _function_names(node)
        self.scopes.append(_Scope("function", local, declared))
        self.visit_all(node.body)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._arguments(node.args, annotations=False)
        local, declared = _function_names(node)
        self.scopes.append(_Scope("function", local, declared))
        self.visit(node.body)
        self.scopes.pop()

    def _arguments(self, arguments: ast.arguments, *, annotations: bool = True) -> None:
        """Defaults and annotations: evaluated where the function is defined."""
        self.visit_all(d for d in [*arguments.defaults, *arguments.kw_defaults] if d is not None)
        if annotations:
            for argument in _all_arguments(arguments):
                if argument.annotation is not None:
                    self.visit(argument.annotation)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.visit_all([*node.decorator_list, *node.bases, *node.keywords])
        self.bind(node.name, node)
        _, declared = _bound_names(node.body)
        self.scopes.append(_Scope("class", frozenset(), declared))  # its names are attributes, never locals
        self.visit_all(node.body)
        self.scopes.pop()

    def _comprehension(self, node: _Comprehension, results: list[ast.expr]) -> None:
        generators = node.generators
        self.visit(generators[0].iter)  # the first iterable is evaluated outside
        targets = frozenset(n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name))
        self.scopes.append(_Scope("comprehension", targets))
        for number, generator in enumerate(generators):
            if number:
                self.visit(generator.iter)
            for name in _target_names(generator.target):  # `[r.update(x=1) for r in rows]` changes rows
                self.share(name, generator.iter)
            self.visit_all(generator.ifs)
        self.visit_all(results)
        self.scopes.pop()

    def visit_ListComp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> None:
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])

    # -- imports -------------------------------------------------------------------------------------

    def _imported(self, module: str, node: ast.AST) -> None:
        top = module.split(".")[0]
        if top in _NETWORK_MODULES:
            self.risk("network", node, f"imports {module} (network)")
        elif top in _PROGRAM_MODULES:
            self.risk("subprocess", node, f"imports {module} (runs programs)")
        elif top in _DYNAMIC_MODULES:
            self.dynamic(node, f"imports {module} (code built at run time)")
        elif top not in SAFE_MODULES and top not in _CALLS_CHECKED:
            self.risk("import", node, f"imports {module or 'a relative module'}")

    def _bind_import(self, local: str, target: str, node: ast.AST) -> None:
        self.aliases[local] = target
        usual = local == target or _CONVENTIONAL.get(local) == target
        if usual and local in self.existing and not self.scopes:
            self.binds.add(local)  # the module its usual name already holds: a notebook's every first cell
        else:
            self.bind(local, node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._imported(alias.name, node)
            if alias.asname:
                self._bind_import(alias.asname, alias.name, node)
            else:
                top = alias.name.split(".")[0]
                self._bind_import(top, top, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        self._imported(module, node)
        for alias in node.names:
            if alias.name == "*":
                self.dynamic(node, f"from {module} import * binds names the code does not show")
                continue
            self._bind_import(alias.asname or alias.name, f"{module}.{alias.name}", node)

    # -- calls ---------------------------------------------------------------------------------------

    def full_name(self, node: ast.AST) -> str:
        """`os.path.join` for a dotted name, with import aliases resolved ("" when not a dotted name)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return ""
        head = self.aliases.get(node.id) or _CONVENTIONAL.get(node.id, node.id)
        return ".".join([head, *reversed(parts)])

    def is_module(self, name: str) -> bool:
        """Whether `name` stands for a module (imported here, conventional, or one the rules know)."""
        return name in self.aliases or name in _CONVENTIONAL or name in _MODULE_NAMES

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = self.full_name(func)
        last = name.rsplit(".", 1)[-1] if name else getattr(func, "attr", "")
        if isinstance(func, ast.Name) and last in ("setattr", "delattr") and not self.is_local(last):
            self._setattr(node, last)
        else:
            self.visit(func)
        self.visit_all(node.args)
        self.visit_all(node.keywords)
        self._risks(node, name, last)
        receiver = _root(func.value) if isinstance(func, ast.Attribute) else None
        if receiver is not None and self.is_module(receiver):
            receiver = None
        inplace = next((k.value for k in node.keywords if k.arg == "inplace"), None)
        if inplace is not None and not (isinstance(inplace, ast.Constant) and inplace.value is False):
            self.risk("inplace", node, f"{_short(func)}(..., inplace=...) changes data in place")
            self.changed(receiver)
        elif last not in READ_ONLY_METHODS:
            self.changed(receiver)
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if last not in PURE_CALLS and (last not in READ_ONLY_METHODS or last in _PANDAS_WRITERS):
            for argument in arguments:
                for root in _passed(argument):
                    if not self.is_module(root):
                        self.changed(root)
        for argument in arguments:  # `list(map(rows.append, xs))`: a bound method changes its object
            if isinstance(argument, ast.Attribute) and argument.attr in _MUTATORS:
                self.changed(_root(argument))

    def _setattr(self, node: ast.Call, which: str) -> None:
        """`setattr(df, "x", v)` changes `df`; on an object the code computes, it may reach anything."""
        self.references.add(which)
        target = _root(node.args[0]) if node.args else None
        if target is None or self.is_module(target):
            self.dynamic(node, f"{which}() on an object the code does not name")
        else:
            self.changed(target)
            self.risk("dynamic_code", node, f"{which}() changes an attribute of {target!r} by name")

    def _risks(self, node: ast.Call, name: str, last: str) -> None:
        module = name.split(".")[0] if "." in name else ""
        func = node.func
        if last == "getattr" and len(node.args) > 1 and not isinstance(node.args[1], ast.Constant):
            self.risk("dynamic_code", node, "getattr() with a name worked out at run time")
        if module in _DYNAMIC_MODULES or name in ("sys._getframe", "inspect.currentframe"):
            self.dynamic(node, f"{name}() reaches code or names the code does not show")
        if name in _UNPICKLERS:
            self.dynamic(node, f"{name}() unpickles, which can run any code")
        self._file_risks(node, name, last, module)
        if (
            module in _PROGRAM_MODULES
            or (module == "os" and (last in _OS_PROGRAMS or last.startswith(("exec", "spawn"))))
            or (name == last and last in _BARE_PROGRAMS)
        ):
            self.risk("subprocess", node, f"{name}(...) runs a program")
        if module in _NETWORK_MODULES:
            self.risk("network", node, f"{name}(...) uses the network")
        if last in _READERS and any(_is_remote(a) for a in [*node.args, *(k.value for k in node.keywords)]):
            self.risk("network", node, f"{_short(func)}(...) reads from the network")
        if any(module == m and last in names for m, names in _SYSTEM_CALLS.items()) or name in (
            "exit",
            "quit",
        ):
            self.risk("system", node, f"{name}(...) changes the process")
        if any(module == m and last in names for m, names in _SETTINGS.items()):
            self.risk("system", node, f"{name}(...) changes settings for the whole kernel")
        if isinstance(func, ast.Attribute) and last not in READ_ONLY_METHODS:
            state = self.full_name(func.value)
            if state in _SYSTEM_STATE:
                self.risk("system", node, f"{name}(...) changes {state}")

    def _file_risks(self, node: ast.Call, name: str, last: str, module: str) -> None:
        if last == "open":
            self._open(node, name)
        # a pandas writer without a path returns the text (or bytes) instead
        if last in _PANDAS_WRITERS and (node.args or any(k.arg in _PATH_KEYWORDS for k in node.keywords)):
            self.risk("file_write", node, f"{_short(node.func)}(...) writes a file")
        if last in _WRITERS or (module == "numpy" and last.startswith("save")):
            self.risk("file_write", node, f"{_short(node.func)}(...) writes a file")
        if name in ("pickle.dump", "json.dump", "joblib.dump", "marshal.dump"):
            self.risk("file_write", node, f"{name}(...) writes a file")
        if (module == "shutil" and last in _SHUTIL_WRITERS) or (module == "os" and last in _OS_WRITERS):
            self.risk("file_write", node, f"{name}(...) changes files")
        if (
            last in ("rename", "replace")
            and isinstance(node.func, ast.Attribute)
            and any(
                isinstance(n, ast.Name) and n.id in ("Path", "pathlib") for n in ast.walk(node.func.value)
            )
        ):
            self.risk("file_write", node, f"{_short(node.func)}(...) changes files")
        if (
            any(module == m and last in names for m, names in _DELETERS.items())
            or (name == last and last in _BARE_DELETERS)
            or (last in ("unlink", "rmdir") and isinstance(node.func, ast.Attribute))
        ):
            self.risk("file_delete", node, f"{_short(node.func)}(...) deletes files")

    def _open(self, node: ast.Call, name: str) -> None:
        """`open(path, "w")`, `io.open(...)`, `Path(p).open("a")`: a mode that writes, or one not known."""
        keyword = next((k.value for k in node.keywords if k.arg == "mode"), None)
        if name in _OPENERS:
            mode = node.args[1] if len(node.args) > 1 else keyword
        elif isinstance(node.func, ast.Attribute):
            mode = node.args[0] if node.args else keyword  # `Path.open(mode)`
            if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
                mode = keyword  # `Image.open(path)`: its first argument is what to open
        else:
            return
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
            if _MODE.fullmatch(mode.value) and set(mode.value) & set("wax+"):
                self.risk("file_write", node, f"{_short(node.func)}(..., {mode.value!r}) writes a file")
        elif mode is not None:
            self.risk("file_write", node, f"{_short(node.func)}() with a mode worked out at run time")

    # -- process state -------------------------------------------------------------------------------

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        if node.attr in _DYNAMIC_ATTRIBUTES:
            self.dynamic(node, f"{node.attr} reaches names the code does not show")
        name = self.full_name(node)
        if isinstance(node.ctx, ast.Store | ast.Del):
            if name.startswith(_SYSTEM_STORES):
                self.risk("system", node, f"changes {name}")
        elif name == "sys.modules":
            self.dynamic(node, "sys.modules reaches modules the code does not show")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Store | ast.Del):
            name = self.full_name(node.value)
            if name.startswith(_SYSTEM_STORES) or name.endswith("rcParams"):
                self.risk("system", node, f"changes {name}")


def _root(node: ast.AST) -> str | None:
    """The name at the root of `a.b[c].d` (None for a call's result, a literal, ...)."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


VIEW_METHODS = _words(
    """
    view reshape ravel transpose swapaxes squeeze to_numpy get setdefault values items __array__
    """
)
"""Methods whose result may share its receiver's memory or elements (`arr.reshape(...)`, `d.get(k)`)."""
_VIEW_FUNCTIONS = _words("asarray asanyarray ascontiguousarray atleast_1d atleast_2d squeeze ravel")


def _shared_roots(value: ast.expr) -> Iterator[str]:
    """The names whose objects `value` may share.

    `a`, `arr[:5]`, `df.values`, `arr.T`, `arr.reshape(...)`, `np.asarray(x)`, either side of
    `x if c else y`; none for a new object (`arr + 1`, `arr.copy()`).
    """
    pending: list[ast.AST] = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.IfExp):
            pending += [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            pending += node.values
        elif isinstance(node, ast.NamedExpr):
            pending.append(node.value)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in VIEW_METHODS:
                pending.append(func.value)
            elif (
                isinstance(func, ast.Attribute | ast.Name)
                and (func.attr if isinstance(func, ast.Attribute) else func.id) in _VIEW_FUNCTIONS
                and node.args
            ):
                pending.append(node.args[0])
        else:
            root = _root(node)
            if root is not None:
                yield root


def _target_names(target: ast.AST) -> Iterator[ast.Name]:
    """The plain names an assignment or `for` target binds (`a`, `a, (b, *c)`)."""
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def _is_remote(node: ast.AST) -> bool:
    """Whether `node` is a URL the code spells out: `"https://..."`, `f"s3://{bucket}/..."`."""
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.lower().startswith(_REMOTE)
    )


def _passed(node: ast.AST) -> Iterator[str]:
    """The names whose objects a call receives through `node`: `df`, `df["a"]`, `[a, b]`, `{"k": v}`."""
    pending = [node]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            pending.extend(node.elts)
        elif isinstance(node, ast.Dict):
            pending.extend(v for v in node.values if v is not None)
        else:
            root = _root(node)
            if root is not None:
                yield root


def _all_arguments(arguments: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *extra]


def _function_names(node: _Function | ast.Lambda) -> tuple[frozenset[str], frozenset[str]]:
    """A function's own names (parameters and what its body binds) and the names it declares global."""
    body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
    bound, declared = _bound_names(body)
    parameters = {a.arg for a in _all_arguments(node.args)}
    return frozenset((bound | parameters) - declared), declared


def _bound_names(body: Iterable[ast.AST]) -> tuple[frozenset[str], frozenset[str]]:
    """The names a scope's body binds (not inside the scopes it holds), and those it declares elsewhere.

    A `global` or `nonlocal` name is the second kind: it belongs to a scope around this one.
    """
    bound: set[str] = set()
    declared: set[str] = set()
    pending = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            pending.extend(node.decorator_list)
            if isinstance(node, ast.ClassDef):
                pending.extend([*node.bases, *node.keywords])
            else:
                pending.extend(d for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None)
            continue
        if isinstance(node, ast.Lambda):
            pending.extend(d for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None)
            continue
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            for generator in node.generators:  # their targets are the comprehension's own
                pending.extend([generator.iter, *generator.ifs])
            pending.extend([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt])
            continue
        if isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
        pending.extend(ast.iter_child_nodes(node))
    return frozenset(bound), frozenset(declared)


def _short(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:
        return "a call"
    return text if len(text) <= 60 else text[:57] + "..."


def read_code(code: str, existing: Collection[str]) -> CodeReading:
    """Read `code` (plain Python source) against the names now in the namespace; never raises.

    Args:
        code: The code a run would execute.
        existing: The names now in the namespace: binding or deleting one of them is a risk.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return _unreadable(code, exc.msg, exc.lineno or 0)
    except RecursionError:
        return _unreadable(code, "it is nested too deeply to read", 0)
    except Exception as exc:  # null bytes, an integer too long to convert, memory: not runnable either
        return _unreadable(code, str(exc)[:80] or type(exc).__name__, 0)
    reader = _Reader(existing)
    try:
        reader.visit(tree)
    except RecursionError:  # Python runs it, but a walk by scope cannot follow it
        return _read_flat(tree)
    except Exception as exc:  # a tree this module does not understand: conservative, never a crash
        return _unreadable(code, f"it could not be read ({type(exc).__name__})", 0)
    first: dict[tuple[str, str], Risk] = {}
    for risk in reader.risks:
        seen = first.get((risk.kind, risk.detail))
        if seen is None or risk.line < seen.line:
            first[(risk.kind, risk.detail)] = risk
    return CodeReading(
        binds=frozenset(reader.binds),
        mutates=frozenset(reader.mutates),
        references=frozenset(reader.references),
        risks=tuple(sorted(first.values(), key=lambda r: (r.line, r.kind, r.detail))),
        exact=reader.exact,
        mentions=frozenset(reader.mentions),
    )


def _read_flat(tree: ast.AST) -> CodeReading:
    """A reading of a tree too deep to walk by scope: every name it stores is bound, every name it loads read.

    `ast.walk` needs no recursion. Bound names may include a function's own; whatever the code
    names is checkpointed, and the person is asked.
    """
    binds: set[str] = set()
    references: set[str] = set()
    mentions: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (references if isinstance(node.ctx, ast.Load) else binds).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            binds.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            binds.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 10_000:
            mentions.update(_IDENTIFIER.findall(node.value))
    detail = "the code is nested too deeply to read in full: approval required"
    return CodeReading(
        binds=frozenset(binds),
        references=frozenset(references),
        risks=(Risk("unparsable", 0, detail),),
        exact=False,
        mentions=frozenset(mentions),
    )


def _unreadable(code: str, reason: str, line: int) -> CodeReading:
    """A reading of code that is not plain Python: it asks first, and nothing about it is known."""
    for number, text in enumerate(code.splitlines(), 1):
        if _IPYTHON_LINE.fullmatch(text):
            stripped = text.strip()
            detail = (
                f"line {number} is IPython syntax ({stripped[:20]!r}), not plain Python: approval required"
            )
            return CodeReading(risks=(Risk("unparsable", number, detail),), exact=False)
    detail = f"the code is not plain Python ({reason}): approval required"
    return CodeReading(risks=(Risk("unparsable", line, detail),), exact=False)
