"""Reading code by its syntax tree: what it binds, what it may change in place, and what makes it risky.

Two decisions rest on it: whether a run asks first when only risky code does (the reasons are shown
on the approval card), and which variables are checkpointed before the run so it can be undone.
The reading is conservative: whatever it does not understand counts against the code.

- **binds**: module-level names the code assigns, imports, defines or deletes (`global x` inside
  a function counts as binding `x`).
- **mutates**: names whose objects may change in place: the root of an assignment target that is a
  subscript or an attribute (`df["x"] = ...`, `df.loc[i, "x"] = ...`), of an augmented
  assignment or a `del x[...]`; the receiver of a method call whose method is not known to return
  a new object (`df.head()` does not mutate, `rows.append(...)` does; any `inplace=` other than
  False does); and any name passed to a call of something not known to leave its arguments alone.
- **exact**: False when the code may reach names the tree does not show (`exec`, `eval`,
  `globals()`, `setattr`, `from x import *`, ...): callers then checkpoint everything it references.
- **risks**: files written or deleted, programs run, the network, variables deleted or reassigned,
  data changed in place, code built at run time, imports outside a list of common data libraries,
  changes to the process (environment, working directory, exit), and code that is not plain
  Python (IPython's `!cmd` and `%magic` lines, a syntax error): each with its line.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["CodeReading", "Risk", "RiskKind", "read_code"]

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


@dataclass(frozen=True)
class CodeReading:
    """What the syntax tree says about a piece of code."""

    binds: frozenset[str] = frozenset()
    mutates: frozenset[str] = frozenset()
    references: frozenset[str] = frozenset()
    risks: tuple[Risk, ...] = ()
    exact: bool = True

    def touched(self, existing: Collection[str]) -> frozenset[str]:
        """The names to checkpoint before a run: bound or mutated, or everything referenced when not exact."""
        names = self.binds | self.mutates
        if not self.exact:
            names |= self.references & frozenset(existing)
        return names

    def risky(self) -> bool:
        """Whether any risk was found."""
        return bool(self.risks)


# Methods that return a new object and leave their receiver alone (pandas, numpy, str, builtins).
READ_ONLY_METHODS = frozenset(
    [
        "head",
        "tail",
        "describe",
        "info",
        "copy",
        "sum",
        "mean",
        "median",
        "mode",
        "min",
        "max",
        "std",
        "var",
        "sem",
        "count",
        "nunique",
        "unique",
        "value_counts",
        "groupby",
        "agg",
        "aggregate",
        "apply",
        "map",
        "transform",
        "astype",
        "to_numpy",
        "tolist",
        "to_list",
        "to_dict",
        "to_frame",
        "isna",
        "notna",
        "isnull",
        "notnull",
        "dropna",
        "fillna",
        "drop",
        "rename",
        "sort_values",
        "sort_index",
        "reset_index",
        "set_index",
        "query",
        "merge",
        "join",
        "concat",
        "filter",
        "loc",
        "iloc",
        "at",
        "iat",
        "where",
        "mask",
        "clip",
        "round",
        "abs",
        "cumsum",
        "cumprod",
        "diff",
        "pct_change",
        "shift",
        "rolling",
        "expanding",
        "ewm",
        "resample",
        "pivot",
        "pivot_table",
        "melt",
        "stack",
        "unstack",
        "explode",
        "duplicated",
        "drop_duplicates",
        "corr",
        "cov",
        "quantile",
        "rank",
        "nlargest",
        "nsmallest",
        "idxmin",
        "idxmax",
        "any",
        "all",
        "get",
        "items",
        "keys",
        "values",
        "memory_usage",
        "select_dtypes",
        "sample",
        "replace",
        "interpolate",
        "between",
        "isin",
        "str",
        "dt",
        "cat",
        "plot",
        "hist",
        "boxplot",
        "reshape",
        "ravel",
        "flatten",
        "transpose",
        "dot",
        "mean",
        "argmax",
        "argmin",
        "argsort",
        "nonzero",
        "split",
        "strip",
        "lower",
        "upper",
        "startswith",
        "endswith",
        "format",
        "join",
        "encode",
        "decode",
        "find",
        "index",
        "count",
        "to_string",
        "to_markdown",
        "to_html",
        "to_latex",
        "to_json",
        "to_csv",
        "to_records",
        "to_timestamp",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "add",
        "sub",
        "mul",
        "div",
        "truediv",
        "floordiv",
        "mod",
        "pow",
        "equals",
        "combine_first",
        "align",
        "assign",
        "pipe",
        "squeeze",
        "item",
        "size",
        "shape",
    ]
)
# Functions that leave their arguments alone.
PURE_CALLS = frozenset(
    [
        "len",
        "print",
        "repr",
        "str",
        "type",
        "isinstance",
        "issubclass",
        "sorted",
        "list",
        "tuple",
        "set",
        "frozenset",
        "dict",
        "sum",
        "min",
        "max",
        "abs",
        "round",
        "range",
        "enumerate",
        "zip",
        "display",
        "id",
        "hash",
        "any",
        "all",
        "format",
        "int",
        "float",
        "bool",
        "complex",
        "reversed",
        "map",
        "filter",
        "iter",
        "next",
        "divmod",
        "pow",
        "chr",
        "ord",
        "hex",
        "oct",
        "bin",
        "ascii",
        "callable",
        "hasattr",
        "vars_never",
        "concat",
        "DataFrame",
        "Series",
        "Index",
        "array",
        "asarray",
        "arange",
        "linspace",
        "zeros",
        "ones",
        "full",
        "isnan",
        "isfinite",
        "where",
        "unique",
        "mean",
        "median",
        "std",
        "sum",
        "min",
        "max",
        "log",
        "exp",
        "sqrt",
        "abs",
        "percentile",
        "quantile",
        "read_csv",
        "to_datetime",
        "to_numeric",
        "cut",
        "qcut",
        "get_dummies",
        "merge",
        "crosstab",
        "date_range",
        "Timestamp",
        "Timedelta",
        "figure",
        "subplots",
        "title",
        "xlabel",
        "ylabel",
        "legend",
        "show",
        "bar",
        "plot",
        "scatter",
        "hist",
    ]
)
SAFE_MODULES = frozenset(
    [
        "pandas",
        "numpy",
        "math",
        "statistics",
        "re",
        "json",
        "datetime",
        "collections",
        "itertools",
        "functools",
        "operator",
        "string",
        "textwrap",
        "decimal",
        "fractions",
        "random",
        "matplotlib",
        "seaborn",
        "scipy",
        "sklearn",
        "typing",
        "dataclasses",
        "pprint",
        "time",
        "copy",
        "warnings",
        "calendar",
        "zoneinfo",
        "heapq",
        "bisect",
        "enum",
        "numbers",
        "palmerpenguins",
    ]
)
_NETWORK_MODULES = frozenset(
    [
        "socket",
        "ssl",
        "urllib",
        "urllib3",
        "requests",
        "httpx",
        "http",
        "ftplib",
        "smtplib",
        "aiohttp",
        "websockets",
        "paramiko",
    ]
)
_WRITERS = frozenset(
    [
        "to_csv",
        "to_parquet",
        "to_excel",
        "to_json",
        "to_pickle",
        "to_feather",
        "to_hdf",
        "to_sql",
        "to_html",
        "to_latex",
        "to_markdown",
        "to_stata",
        "to_xml",
        "to_orc",
        "tofile",
        "savefig",
        "write_text",
        "write_bytes",
        "mkdir",
        "touch",
    ]
)
_DELETERS = {"os": {"remove", "unlink", "rmdir", "removedirs"}, "shutil": {"rmtree"}}
_SYSTEM_CALLS = {"os": {"chdir", "putenv", "unsetenv", "kill", "_exit"}, "sys": {"exit"}}
_READERS = frozenset(
    ["read_csv", "read_json", "read_html", "read_parquet", "read_excel", "read_table", "read_xml", "urlopen"]
)
_DYNAMIC = frozenset(
    ["exec", "eval", "compile", "__import__", "globals", "locals", "vars", "setattr", "delattr"]
)


@dataclass
class _Reader(ast.NodeVisitor):
    existing: Collection[str]
    binds: set[str] = field(default_factory=set)
    mutates: set[str] = field(default_factory=set)
    references: set[str] = field(default_factory=set)
    risks: list[Risk] = field(default_factory=list)
    exact: bool = True
    aliases: dict[str, str] = field(default_factory=dict)
    """Local name -> what it stands for ("os", "os.remove", "subprocess.run")."""
    depth: int = 0
    """Function nesting: names bound inside a function are its own."""

    def risk(self, kind: RiskKind, node: ast.AST | None, detail: str) -> None:
        self.risks.append(Risk(kind, getattr(node, "lineno", 0), detail))

    # -- names ---------------------------------------------------------------------------------------

    def bind(self, name: str, node: ast.AST) -> None:
        if self.depth:
            return
        self.binds.add(name)
        if name in self.existing:
            self.risk("reassign", node, f"reassigns existing variable {name!r}")

    def target(self, node: ast.AST) -> None:
        """An assignment target."""
        if isinstance(node, ast.Name):
            self.bind(node.id, node)
        elif isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                self.target(element)
        elif isinstance(node, ast.Starred):
            self.target(node.value)
        elif isinstance(node, ast.Attribute | ast.Subscript):
            root = _root(node)
            if root is not None:
                self.mutates.add(root)
            self.visit(node)
        else:
            self.visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.references.add(node.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.target(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self.target(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        root = _root(node.target)
        if root is not None:
            self.references.add(root)
            if isinstance(node.target, ast.Name):
                self.bind(root, node)
            self.mutates.add(root)  # `arr += 1` changes an array in place
        self.visit(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target.id, node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                if not self.depth:
                    self.binds.add(target.id)
                    if target.id in self.existing:
                        self.risk("delete_variable", target, f"deletes variable {target.id!r}")
            else:
                root = _root(target)
                if root is not None:
                    self.mutates.add(root)
                self.visit(target)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self.target(node.target)
        for statement in [*node.body, *node.orelse]:
            self.visit(statement)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.target(item.optional_vars)
        for statement in node.body:
            self.visit(statement)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.bind(node.name, node)
        for statement in node.body:
            self.visit(statement)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self.binds.add(name)
            if name in self.existing:
                self.risk("reassign", node, f"a function may reassign existing variable {name!r}")

    def _scope(self, node: ast.AST, name: str | None) -> None:
        if name is not None:
            self.bind(name, node)
        for decorator in getattr(node, "decorator_list", []):
            self.visit(decorator)
        self.depth += 1
        for statement in getattr(node, "body", []):
            self.visit(statement)
        self.depth -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        self._scope(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            self.visit(base)
        self._scope(node, node.name)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.depth += 1
        self.visit(node.body)
        self.depth -= 1

    # -- imports -------------------------------------------------------------------------------------

    def _imported(self, module: str, node: ast.AST) -> None:
        top = module.split(".")[0]
        if top in _NETWORK_MODULES:
            self.risk("network", node, f"imports {module} (network)")
        elif top in ("subprocess", "pty", "multiprocessing"):
            self.risk("subprocess", node, f"imports {module} (runs programs)")
        elif top in ("importlib", "ctypes", "builtins"):
            self.risk("dynamic_code", node, f"imports {module}")
            self.exact = False
        elif top not in SAFE_MODULES and top not in ("os", "sys", "shutil", "pathlib", "pickle"):
            self.risk("import", node, f"imports {module}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._imported(alias.name, node)
            local = alias.asname or alias.name.split(".")[0]
            self.aliases[local] = alias.name if alias.asname else alias.name.split(".")[0]
            self.bind(local, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        self._imported(module or ".", node)
        for alias in node.names:
            if alias.name == "*":
                self.exact = False
                self.risk("dynamic_code", node, f"from {module} import * (names it cannot see)")
                continue
            local = alias.asname or alias.name
            self.aliases[local] = f"{module}.{alias.name}"
            self.bind(local, node)

    # -- calls ---------------------------------------------------------------------------------------

    def _full_name(self, node: ast.AST) -> str:
        """`os.path.join` for a call's function, with import aliases resolved ("" when not a dotted name)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return ""
        head = self.aliases.get(node.id, node.id)
        return ".".join([head, *reversed(parts)])

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        name = self._full_name(node.func)
        last = name.rsplit(".", 1)[-1] if name else getattr(node.func, "attr", "")
        module = name.split(".")[0] if "." in name else ""
        self._call_risks(node, name, last, module)
        inplace = next((k for k in node.keywords if k.arg == "inplace"), None)
        receiver = _root(node.func.value) if isinstance(node.func, ast.Attribute) else None
        changes_receiver = (
            receiver is not None and last not in READ_ONLY_METHODS and receiver not in self.aliases
        )
        if inplace is not None and not (
            isinstance(inplace.value, ast.Constant) and inplace.value.value is False
        ):
            changes_receiver = receiver is not None
            self.risk("inplace", node, f"{_short(node.func)}(..., inplace=True) changes data in place")
        if changes_receiver and receiver is not None and not self.depth:
            self.mutates.add(receiver)
        if last not in PURE_CALLS and last not in READ_ONLY_METHODS and not self.depth:
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                root = _root(argument)
                if root is not None and root not in self.aliases:
                    self.mutates.add(root)

    def _call_risks(self, node: ast.Call, name: str, last: str, module: str) -> None:
        if last in _DYNAMIC and "." not in name:
            self.exact = False
            self.risk("dynamic_code", node, f"{last}() reaches names the code does not show")
        elif last == "getattr" and len(node.args) > 1 and not isinstance(node.args[1], ast.Constant):
            self.risk("dynamic_code", node, "getattr with a computed name")
        if name == "open" or (last == "open" and module in ("io", "codecs", "pathlib", "")):
            mode = (
                node.args[1]
                if len(node.args) > 1
                else next((k.value for k in node.keywords if k.arg == "mode"), None)
            )
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
                if set(mode.value) & set("wax+"):
                    self.risk("file_write", node, f"open(..., {mode.value!r}) writes a file")
            elif mode is not None:
                self.risk("file_write", node, "open() with a mode worked out at run time")
        paths = ("path", "path_or_buf", "fname", "excel_writer", "buf", "con")
        if last in _WRITERS and (
            node.args or any(k.arg in paths for k in node.keywords)
        ):  # no path: a string
            self.risk("file_write", node, f"{_short(node.func)}(...) writes a file")
        if name.startswith(
            ("numpy.save", "numpy.savez", "numpy.savetxt", "pickle.dump", "json.dump")
        ) and not name.endswith("dumps"):
            self.risk("file_write", node, f"{name}(...) writes a file")
        if name.startswith("shutil.") and last in ("copy", "copy2", "copyfile", "copytree", "move"):
            self.risk("file_write", node, f"{name}(...) writes files")
        if module == "os" and last in ("rename", "replace", "mkdir", "makedirs", "write"):
            self.risk("file_write", node, f"{name}(...) changes files")
        if (
            last in ("rename", "replace")
            and isinstance(node.func, ast.Attribute)
            and "Path" in ast.dump(node.func.value)
        ):
            self.risk("file_write", node, f"{_short(node.func)}(...) changes files")
        if any(module == m and last in names for m, names in _DELETERS.items()) or (
            last in ("unlink", "rmdir") and isinstance(node.func, ast.Attribute)
        ):
            self.risk("file_delete", node, f"{_short(node.func)}(...) deletes files")
        if module in ("subprocess", "pty", "multiprocessing") or (
            module == "os"
            and (last in ("system", "popen", "fork", "kill") or last.startswith(("exec", "spawn")))
        ):
            self.risk("subprocess", node, f"{name}(...) runs a program")
        if any(module == m and last in names for m, names in _SYSTEM_CALLS.items()) or name in (
            "exit",
            "quit",
        ):
            self.risk("system", node, f"{name}(...) changes the process")
        if last in ("set_option", "seterr", "use") and module in ("pandas", "numpy", "matplotlib"):
            self.risk("system", node, f"{name}(...) changes settings for the whole kernel")
        if last in _READERS:
            source = node.args[0] if node.args else None
            if not isinstance(source, ast.Constant):
                pass
            elif isinstance(source.value, str) and source.value.lower().startswith(
                ("http:", "https:", "ftp:", "s3:", "gs:")
            ):
                self.risk("network", node, f"{last}() reads from the network")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Store | ast.Del):
            name = self._full_name(node)
            if name.startswith(("os.environ", "sys.path", "sys.modules", "pandas.options", "numpy.")):
                self.risk("system", node, f"changes {name}")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Store | ast.Del):
            name = self._full_name(node.value)
            if name in ("os.environ", "sys.modules", "sys.path"):
                self.risk("system", node, f"changes {name}")


def _root(node: ast.AST) -> str | None:
    """The name at the root of `a.b[c].d` (None for a call's result, a literal, ...)."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _short(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:
        return "a call"
    return text if len(text) <= 60 else text[:57] + "..."


def read_code(code: str, existing: Collection[str]) -> CodeReading:
    """Read `code` (Python source) against the names now in the namespace; never raises."""
    for number, line in enumerate(code.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith(("!", "%")):
            return _unreadable(f"line {number} is IPython syntax ({stripped[:1]}), not plain Python", number)
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return _unreadable(f"the code does not parse: {exc.msg}", exc.lineno or 0)
    except (RecursionError, MemoryError, ValueError):
        return _unreadable("the code is too deeply nested to read", 0)
    reader = _Reader(existing)
    try:
        reader.visit(tree)
    except RecursionError:
        return _unreadable("the code is too deeply nested to read", 0)
    risks = sorted(set(reader.risks), key=lambda r: (r.line, r.kind, r.detail))
    return CodeReading(
        binds=frozenset(reader.binds),
        mutates=frozenset(reader.mutates),
        references=frozenset(reader.references),
        risks=tuple(risks),
        exact=reader.exact,
    )


def _unreadable(detail: str, line: int) -> CodeReading:
    return CodeReading(risks=(Risk("unparsable", line, detail),), exact=False)
