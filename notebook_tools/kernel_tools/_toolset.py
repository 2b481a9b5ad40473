"""`KernelTools`: the plugin that puts Claude to work on the kernel's data, the person in control.

The model gets three tools: `list_variables` and `describe_variable` (metadata and aggregates: no
value ever), and `run_code` (Python in the notebook's own namespace). Each run is approved as the
approval setting says ("always", "risky": only code the syntax tree shows to be risky, "auto"),
on a card that shows the code and why it asks; a person may edit the code first (the model is told
what changed). Before a run, the variables it can change are checkpointed; after it, a change card
says what changed, and the person can undo it (`undo`, a tool run by hand, or `KernelTools.undo`).
What a run printed, displayed or raised goes to the model only as the data policy allows (see
`_policy`), and every piece that left the kernel is in the ledger.

The person's choices (remembered consent, masked columns), the ledger and the index of the undo
history are kept with the session (`Plugin.bind`). A checkpoint's copies are held in memory and,
when the session is kept in a lasting store, also pickled to a file of the session's folder on a
thread of their own (`_checkpoint_files`: under `~/.cache/notebook_tools/checkpoints/`, or
`checkpoint_dir=`; `checkpoint_dir=False` keeps them in memory only). A restarted kernel whose agent
takes up the same session finds the history again, and `undo` restores from those files, saying so
and naming what could not be kept (values pickle refuses: a lambda, a lock, a connection) or read
back. Loading a pickle runs code: files are read only from the folder written, when it is the
current user's with mode 0700 and not a symlink. A session in an `InMemoryStore` ends with the
process, so nothing of it is written.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .._exceptions import ConfigurationError, ToolFailure
from ..prompts._in_call import in_call_prompts
from ..results._kinds import Binary, RichResult
from ..results._presented import Presented
from ..stores import InMemoryStore
from ..tools import _checkpoint
from ..tools._approvals import ApprovalScope
from ..tools._plugins import KeptData, Plugin
from ..tools._tool import Tool
from . import _checkpoint_files, _inspect, _reading, _undo
from ._called import follow_calls
from ._policy import Choice, DataPolicy, Piece, Policy, mask_frame, mask_text, table_columns
from ._running import RunOutcome, run_code

__all__ = ["Approval", "KernelTools"]

Approval = Literal["always", "risky", "auto"]

INSTRUCTIONS = """\
You work on the data in the person's Jupyter kernel with the kernel tools:
- list_variables: what is in the notebook's namespace (names, types, shapes, columns and dtypes;
  never values).
- describe_variable: one variable by aggregates (nulls, distinct counts, rounded numeric summaries,
  date ranges).
- run_code: run Python in the notebook's own namespace (what you define, the person can use in the next cell).
Start by looking (list, describe) before you run code. Keep each run small and about one step, and say in
`purpose` what it does. Values (printed rows, displayed tables, error messages) reach you only when the person
agrees or the policy allows: when a result says data was withheld, work from aggregates or ask the person.
Prefer new variables (df_clean = ...) over changing the person's own in place. The person may edit your
code before it runs, deny it, or undo a run; results tell you when that happened."""

_RISK_WORDS: dict[str, str] = {
    "file_write": "writes files",
    "file_delete": "deletes files",
    "subprocess": "runs programs",
    "network": "uses the network",
    "delete_variable": "deletes variables",
    "inplace": "modifies data in place",
    "reassign": "reassigns variables",
    "dynamic_code": "runs code it builds at run time",
    "import": "imports modules",
    "system": "changes the process's settings",
    "unparsable": "is not plain Python",
}
_MODEL_TEXT = 4_000
"""Characters of one value piece (a printout, a table) the model gets at most."""
_TABLE_ROWS = 10


def _ipython_shell() -> Any:
    """IPython's running shell, when there is one (IPython is not imported for it)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    return get() if get is not None else None


def _default_namespace() -> dict[str, Any]:
    shell = _ipython_shell()
    namespace = getattr(shell, "user_ns", None)
    return namespace if isinstance(namespace, dict) else sys.modules["__main__"].__dict__


class KernelTools(Plugin):
    """The kernel toolset: see the data without values, run approved code, undo it.

    Args:
        namespace: The variables to work on (default: the notebook's, `get_ipython().user_ns`, or
            `__main__`'s outside IPython).
        policy: What of the data may reach the model: "ask" (the default: a consent card),
            "aggregates" (never values), "allow".
        approval: Which runs ask first: "risky" (the default: code that writes or deletes files,
            runs programs, uses the network, deletes or reassigns variables, modifies data in place,
            ...), "always", or "auto" (none; a run that cannot be undone still asks).
        time_limit: Seconds a run may take before it is stopped (None: no limit).
        checkpoint_budget: Bytes the undo history may hold, in memory and on disk; the oldest steps
            are let go (and their files deleted) beyond it.
        checkpoint_dir: Where checkpoints are also written, one folder per session, so undo outlives a
            kernel restart (default: `$NOTEBOOK_TOOLS_CHECKPOINT_DIR`, else `$XDG_CACHE_HOME` or
            `~/.cache`, then `notebook_tools/checkpoints`); False keeps them in memory only. Nothing
            is written for a session in an `InMemoryStore`.
        rules_file: A JSON file of "always allow" rules (`save_rules` writes it); read at start.
        name: The plugin's name (its tools' prefix is not changed).
    """

    _namespace: dict[str, Any] | None
    _data: DataPolicy
    _approval: Approval
    _time_limit: float | None
    _checkpoints: _undo.Checkpoints
    _checkpoint_dir: str | os.PathLike[str] | Literal[False] | None
    _rules_file: str | None
    _allowed: dict[str, str]
    _kept: KeptData | None
    _loaded_for: str | None
    ran: list[dict[str, Any]]
    """Every run of this kernel session, in order: `{"call", "code", "purpose", "checkpoint"}` (the code
    as it ran: a person's edit included), for putting Claude's code into the notebook."""

    def __init__(
        self,
        namespace: dict[str, Any] | None = None,
        *,
        policy: Policy = "ask",
        approval: Approval = "risky",
        time_limit: float | None = 60.0,
        checkpoint_budget: int = 2 * 1024**3,
        checkpoint_dir: str | os.PathLike[str] | Literal[False] | None = None,
        rules_file: str | None = None,
        name: str = "kernel",
    ) -> None:
        if approval not in ("always", "risky", "auto"):
            raise ConfigurationError(f"approval must be 'always', 'risky' or 'auto', not {approval!r}")
        if checkpoint_dir not in (None, False) and not isinstance(checkpoint_dir, str | os.PathLike):
            raise ConfigurationError(f"checkpoint_dir must be a folder, None or False: {checkpoint_dir!r}")
        if time_limit is not None and not time_limit > 0:
            raise ConfigurationError(
                f"time_limit must be a positive number of seconds or None, not {time_limit!r}"
            )
        tools = [
            Tool(self._list_variables, name="list_variables", category="kernel"),
            Tool(self._describe_variable, name="describe_variable", category="kernel"),
            Tool(
                self._run_code,
                name="run_code",
                category="kernel",
                needs_approval=self._needs_approval,
                approval_scope=self._scope,
                input_schema=_RUN_SCHEMA,
                description=_RUN_DESCRIPTION,
            ),
            Tool(self._undo_tool, name="undo", category="kernel", mode="manual", input_schema=_UNDO_SCHEMA),
            Tool(self._ledger_tool, name="data_ledger", category="kernel", mode="manual"),
        ]
        super().__init__(
            name=name,
            description="Work on the data in this notebook's kernel: look at variables, run approved code.",
            tools=tools,
            instructions=INSTRUCTIONS,
            start_collapsed=False,
        )
        state = {
            "namespace": namespace,
            "data": DataPolicy(policy),
            "approval": approval,
            "time_limit": time_limit,
            "checkpoints": _undo.Checkpoints(checkpoint_budget),
            "checkpoint_dir": checkpoint_dir,
            "rules_file": rules_file,
            "allowed": _read_rules(rules_file),
            "kept": None,
            "loaded_for": None,
        }
        for key, value in state.items():
            object.__setattr__(self, f"_{key}", value)
        object.__setattr__(self, "ran", [])

    # -- what the person holds -------------------------------------------------------------------

    @property
    def namespace(self) -> dict[str, Any]:
        """The variables worked on."""
        return self._namespace if self._namespace is not None else _default_namespace()

    @property
    def data(self) -> DataPolicy:
        """The data policy, the remembered consent and the ledger (as kept with the session)."""
        self._load()
        return self._data

    @property
    def ledger(self) -> Any:
        """Every piece of data that left the kernel (`.entries`, `.to_dataframe()`, `.export(path)`)."""
        return self.data.ledger

    @property
    def checkpoints(self) -> _undo.Checkpoints:
        """The undo history: copies in memory, and on disk for a session in a lasting store."""
        self._load()
        return self._checkpoints

    def bind(self, kept: KeptData) -> None:
        object.__setattr__(self, "_kept", kept)

    def _load(self) -> None:
        kept = self._kept
        if kept is None or self._loaded_for == kept.session:
            return
        object.__setattr__(self, "_loaded_for", kept.session)
        saved = kept.get(self.name)
        self._data.load(saved)
        files = self._files_for(kept)
        if files is None:
            return
        entries = saved.get("checkpoints") if isinstance(saved, dict) else None
        if isinstance(entries, list) and entries:
            self._checkpoints.adopt(entries, files)  # a restarted kernel: the session's history
        else:
            self._checkpoints.files = files  # a new session: written from its first checkpoint on

    def _files_for(self, kept: KeptData) -> _checkpoint_files.CheckpointFiles | None:
        """The session's folder of checkpoint files; None when nothing is written (off, or in memory)."""
        if self._checkpoint_dir is False:
            return None
        store = getattr(getattr(kept, "writer", None), "store", None)
        if isinstance(store, InMemoryStore):
            return None  # the session ends with the process: no later kernel could take it up
        root = self._checkpoint_dir if self._checkpoint_dir is not None else _checkpoint_files.default_root()
        return _checkpoint_files.CheckpointFiles(root, kept.session)

    def _save(self) -> None:
        kept = self._kept
        if kept is None:
            return
        data = self._data.to_json()
        if self._checkpoints.files is not None and self._loaded_for == kept.session:
            data["checkpoints"] = self._checkpoints.index()
        kept.keep(self.name, data)

    def undo(self, to: str | None = None) -> str:
        """Undo the last run (or every run back to checkpoint `to`); what was restored, as text.

        After a restart, a checkpoint taken by the earlier kernel is read back from its file; the
        text says so, and names what could not be restored (not copied, refused by pickle, or not
        readable back).

        Raises:
            ToolFailure: there is nothing to undo, `to` is not a checkpoint of this session, or a
                checkpoint's file is missing or damaged (nothing is undone then).
        """
        checkpoints = self.checkpoints
        if not checkpoints.history:
            files = checkpoints.files
            if files is None:
                where = "the undo history of this session is kept in the kernel's memory only"
            elif files.problem is not None:
                where = f"checkpoints are not kept on disk: {files.problem}"
            else:
                where = "none was taken in this session, or all were undone or let go"
            raise ToolFailure(f"There is no run to undo ({where}).")
        try:
            restored = checkpoints.undo(self.namespace, to)
        except (_undo.UnknownCheckpoint, _undo.CheckpointFileError) as exc:
            raise ToolFailure(str(exc)) from None
        self._save()
        lines = []
        for checkpoint in restored:
            lost = {**checkpoint.not_kept, **(checkpoint.not_on_disk if checkpoint.from_disk else {})}
            if checkpoint.from_disk:
                names = ", ".join(n for n in checkpoint.names if n not in lost) or "nothing"
                lines.append(
                    f"undid {checkpoint.id} ({checkpoint.label}) from disk, as it was kept before the "
                    f"kernel restarted: restored {names}"
                )
            else:
                names = ", ".join(checkpoint.names) or "nothing"
                lines.append(f"undid {checkpoint.id} ({checkpoint.label}): restored {names}")
            for name, why in lost.items():
                lines.append(f"  {name} could not be restored: {why}")
        return "The person undid runs: " + "; ".join(lines)

    def code_of(self, calls: Sequence[str] | None = None) -> str:
        """The code Claude ran (of the given calls, or all): one cell's text, a comment before each run."""
        chosen = [r for r in self.ran if calls is None or r["call"] in calls]
        parts = [
            f"# {r['purpose'] or 'run ' + (r['checkpoint'] or '')}".rstrip() + f"\n{r['code'].rstrip()}"
            for r in chosen
        ]
        return "\n\n".join(parts)

    def save_rules(self, path: str | None = None) -> str:
        """Write the "always allow" rules of this session (and those read at start) to a JSON file.

        Returns the path written. Later sessions read it with `rules_file=`.
        """
        target = path or self._rules_file
        if not target:
            raise ConfigurationError("save_rules needs a path (or rules_file= when the toolset was made)")
        kept = self._kept
        rules = dict(self._allowed)
        if kept is not None:
            rules.update(kept.remembered_scopes("run_code"))
        data = {
            "version": 1,
            "allow": [{"tool": "run_code", "scope": k, "label": v} for k, v in sorted(rules.items())],
        }
        with open(target, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
        return str(target)

    # -- approval ----------------------------------------------------------------------------------

    def _read(self, arguments: Mapping[str, Any]) -> _reading.CodeReading:
        return _read_in(str(arguments.get("code", "")), self.namespace)

    def _too_big(self, reading: _reading.CodeReading) -> int | None:
        """The bytes of this run's checkpoint when over the budget (None: it fits)."""
        namespace = self.namespace
        names = _checkpoint_names(reading, namespace)
        size = self.checkpoints.estimate(namespace, names)
        return size if size > self.checkpoints.budget_bytes else None

    def _scope(self, arguments: dict[str, Any]) -> ApprovalScope:
        reading = self._read(arguments)
        kinds = sorted({r.kind for r in reading.risks})
        reasons = [f"line {r.line}: {r.detail}" if r.line else r.detail for r in reading.risks][:12]
        too_big = self._too_big(reading)
        if too_big is not None:
            reasons.insert(
                0, f"this run cannot be undone: its checkpoint ({_size(too_big)}) is over the budget"
            )
        if not kinds:
            return ApprovalScope(key="code:plain", label="code with no risky steps", reasons=tuple(reasons))
        words = [_RISK_WORDS.get(k, k) for k in kinds]
        label = "code that " + (", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0])
        return ApprovalScope(key="code:" + "+".join(kinds), label=label, reasons=tuple(reasons))

    def _needs_approval(self, arguments: dict[str, Any]) -> bool:
        reading = self._read(arguments)
        if self._too_big(reading) is not None:
            return True  # whatever the setting: the person hears before a run that cannot be undone
        approval: Approval = self._approval
        if approval == "auto":
            return False
        if approval == "risky" and not reading.risks:
            return False
        return self._scope(arguments).key not in self._allowed

    # -- the model's tools -------------------------------------------------------------------------

    def _list_variables(self) -> str:
        """List the variables in the notebook's namespace: names, types, shapes, memory, columns and dtypes.

        Values are never included.
        """
        listing = _inspect.list_variables(self.namespace)
        text = json.dumps(listing, default=str)
        self._record("list_variables", "the namespace's variables", "metadata", text)
        return text

    def _describe_variable(self, name: str) -> str:
        """Describe one variable by aggregates: nulls, distinct counts, rounded summaries, date ranges.

        Args:
            name: The variable's name.
        """
        namespace = self.namespace
        if name not in namespace:
            known = ", ".join(sorted(v["name"] for v in _variables(namespace))[:50]) or "none"
            raise ToolFailure(f"There is no variable {name!r}. Variables: {known}.")
        text = json.dumps({"name": name, **_inspect.describe(namespace[name])}, default=str)
        self._record("describe_variable", f"aggregates of {name}", "aggregates", text, [name])
        return text

    async def _run_code(self, code: str, purpose: str = "") -> Presented:
        namespace = self.namespace
        reading = _read_in(code, namespace)
        names = _checkpoint_names(reading, namespace)
        checkpoints = self.checkpoints
        checkpoint = None
        label = purpose.strip() or _first_line(code)
        with contextlib.suppress(
            _undo.CheckpointTooLarge
        ):  # approved as "cannot be undone": the card said so
            checkpoint = checkpoints.take(namespace, names, label)
        if checkpoint is not None:
            self._save()  # its index entry now: a kernel that dies during the run can still undo it
        self.ran.append(
            {
                "call": _checkpoint.checkpoint().tool_use_id,
                "code": code,
                "purpose": purpose,
                "checkpoint": checkpoint.id if checkpoint is not None else None,
            }
        )
        outcome = RunOutcome()
        try:
            await run_code(
                code, namespace, time_limit=self._time_limit, shell=_ipython_shell(), outcome=outcome
            )
        finally:  # a Stop cancels the await: how the run ended is kept all the same
            ended = {"stopped": outcome.stopped, "stop_took": outcome.stop_took}
            self.ran[-1].update(ended, still_running=outcome.still_running)
        changes = checkpoints.changes(namespace, checkpoint, also=reading.binds) if checkpoint else []
        data_variables = sorted(
            n
            for n in reading.references | reading.mutates
            if n in namespace and _inspect.is_data(namespace[n])
        )
        pieces = _pieces(outcome, changes)
        choice, masked, who = await self._decide(pieces, data_variables)
        how = _how(choice, who)
        content, sent = _model_content(
            outcome, changes, pieces, choice, masked, how, namespace, data_variables, checkpoint
        )
        for piece, text, how in sent:
            self._record("run_code", piece.label, how, text, data_variables, masked)
        self._save()
        shown = _shown(code, outcome, changes, checkpoint, choice, masked)
        return Presented(content, shown)

    async def _decide(self, pieces: list[Piece], variables: list[str]) -> tuple[Choice, list[str], str]:
        """What to do with the run's value pieces, the columns masked, and who decided.

        Who: "policy", "remembered" (a choice the person remembered), "person" (the consent card),
        or "nobody" (no one to ask: nothing is sent).
        """
        data = self.data
        masked = sorted(data.remembered.masked)
        if not pieces:
            return "send", masked, "policy"
        settled = data.settled(variables)
        if settled is not None:
            return settled, masked, "policy" if data.policy != "ask" else "remembered"
        prompts = in_call_prompts()
        if prompts is None:
            return "withhold", masked, "nobody"  # fails closed
        namespace = self.namespace
        read = [Piece(name, "", namespace[name]) for name in variables if _is_table(namespace.get(name))]
        columns = table_columns([*pieces, *read])  # a printout of a table is masked by its columns' values
        tool = _consent_tool(columns, variables)
        shown = "\n\n".join(f"[{p.label}]\n{_cut(p.text)}" for p in pieces)
        arguments = {
            "message": "Claude's code produced data. Send it to Claude?",
            "code_read": ", ".join(variables) or "no variable (it may have read files)",
            "would_send": shown,
        }
        call = _checkpoint.checkpoint().tool_use_id or str(
            time.time_ns()
        )  # the running call's id: one card per call
        result = await prompts.ask(tool, arguments, f"consent_{call}")
        if result.is_error:
            return "withhold", masked, "person"
        try:
            answer = json.loads(str(result.content))
        except ValueError:
            return "withhold", masked, "person"
        choice: Choice = answer.get("send", "withhold")
        chosen = [c for c in answer.get("mask", []) if isinstance(c, str)] if choice == "mask" else []
        remember = answer.get("remember", "no")
        if remember == "variables":
            data.remember(variables, choice, chosen)
        elif remember == "columns" and chosen:
            data.remembered.masked |= set(chosen)
        return choice, sorted(set(masked) | set(chosen)), "person"

    def _record(
        self,
        tool: str,
        what: str,
        how: Any,
        text: str,
        variables: Sequence[str] = (),
        masked: Sequence[str] = (),
    ) -> None:
        call = _checkpoint.checkpoint().tool_use_id
        self.data.ledger.record(call, tool, what, how, text, variables=variables, masked=masked)
        self._save()

    # -- tools run by hand --------------------------------------------------------------------------

    def _undo_tool(self, to: str = "") -> str:
        """Undo the last run of Claude's code, or every run back to a checkpoint.

        Args:
            to: A checkpoint's id ("c3") to go back to; empty for the last run.
        """
        return self.undo(to or None)

    def _ledger_tool(self) -> Any:
        """Show every piece of data that left the kernel."""
        return self.ledger.to_dataframe()


_RUN_DESCRIPTION = """Run Python code in the notebook's namespace (the person's own variables).

The code runs like a cell: the last expression's value is shown. What it prints or displays reaches
you only as the data policy allows. The person may approve, edit or deny the run, and may undo it."""

_RUN_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {
            "type": "string",
            "description": "Python source to run, like a notebook cell.",
            "contentMediaType": "text/x-python",
        },
        "purpose": {"type": "string", "description": "One line: what this run does and why."},
    },
    "required": ["code"],
    "additionalProperties": False,
}
_UNDO_SCHEMA = {
    "type": "object",
    "properties": {"to": {"type": "string", "description": "A checkpoint id (c3); empty: the last run."}},
    "additionalProperties": False,
}


@functools.lru_cache(maxsize=16)
def _read_code(code: str, existing: frozenset[str]) -> _reading.CodeReading:
    """`read_code`, once per code and namespace names.

    One approved run asks it of the same code up to six times: the approval rule, its scope for the
    card, the answer's check, the remembered scope and the run itself (a reading is frozen: shared).
    """
    return _reading.read_code(code, existing)


def _read_in(code: str, namespace: Mapping[str, Any]) -> _reading.CodeReading:
    """The code's reading, with what the notebook's functions it calls may do (`_called`)."""
    return follow_calls(_read_code(code, frozenset(namespace)), namespace)


def _read_rules(path: str | None) -> dict[str, str]:
    if not path or not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        return {
            str(r["scope"]): str(r.get("label", r["scope"]))
            for r in data.get("allow", [])
            if isinstance(r, dict) and r.get("tool") == "run_code" and isinstance(r.get("scope"), str)
        }
    except (OSError, ValueError, AttributeError, KeyError) as exc:
        raise ConfigurationError(f"the rules file {path!r} could not be read: {exc}") from None


def _variables(namespace: Mapping[str, Any]) -> list[dict[str, Any]]:
    listing = _inspect.list_variables(namespace)
    return list(listing["variables"] if isinstance(listing, dict) else listing)


def _checkpoint_names(reading: _reading.CodeReading, namespace: Mapping[str, Any]) -> list[str]:
    existing = set(namespace)
    names = {n for n in reading.touched(existing) if n not in existing or _inspect.is_data(namespace[n])}
    return sorted(names | _sharing_memory(names, namespace))


def _sharing_memory(names: set[str], namespace: Mapping[str, Any]) -> set[str]:
    """Arrays of the namespace that may share memory with a chosen one.

    A view made in an earlier cell (`v = arr[:5]`): writing to either writes to both, so both are
    checkpointed.
    """
    np = sys.modules.get("numpy")
    if np is None:
        return set()
    arrays = {k: v for k, v in namespace.items() if isinstance(v, np.ndarray)}
    chosen = [arrays[n] for n in names if n in arrays]
    if not chosen:
        return set()
    return {k for k, v in arrays.items() if k not in names and any(np.may_share_memory(v, c) for c in chosen)}


def _first_line(code: str) -> str:
    for line in code.splitlines():
        if line.strip() and not line.strip().startswith("#"):
            return line.strip()[:80]
    return "a run"


def _size(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KB", "MB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def _cut(text: str, limit: int = _MODEL_TEXT) -> str:
    return (
        text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters not sent)"
    )


def _frame_text(frame: Any) -> str:
    """A table as the model reads it: its shape and first rows."""
    shape = getattr(frame, "shape", None)
    head = frame.head(_TABLE_ROWS) if hasattr(frame, "head") else frame
    try:
        body = head.to_string()
    except Exception:
        body = str(head)
    dims = "x".join(str(d) for d in shape) if shape else "?"
    return f"{type(frame).__name__} {dims}, first rows:\n{body}"


def _pieces(outcome: RunOutcome, changes: list[Any]) -> list[Piece]:
    """What the run would tell the model that may hold values."""
    pieces = []
    for output in outcome.outputs:
        if output.kind in ("stdout", "stderr") and output.text.strip():
            label = "printed output" if output.kind == "stdout" else "printed errors and warnings"
            pieces.append(Piece(label, output.text))
        elif output.kind in ("value", "display") and output.value is not None:
            value = output.value
            if _is_table(value):
                pieces.append(Piece(f"a {type(value).__name__} shown", _frame_text(value), value))
            else:
                pieces.append(Piece("the value shown", _safe_repr(value)))
        elif output.kind == "display" and output.bundle is not None:
            text = output.bundle.get("text/plain")
            if isinstance(text, str) and text.strip():
                pieces.append(Piece("a display", text))
        elif output.kind == "figure":
            pieces.append(Piece("a figure", "[an image of a figure]"))
    if outcome.failure is not None and outcome.failure.message:
        pieces.append(Piece("the error message", f"{outcome.failure.type}: {outcome.failure.message}"))
    cells = [(c.name, cell) for c in changes for cell in getattr(c, "cells", [])]
    if cells:
        text = "\n".join(
            f"{name}[{cell.row!s}, {cell.column!s}]: {cell.before} -> {cell.after}" for name, cell in cells
        )
        pieces.append(Piece("changed cells", text))
    return pieces


def _how(choice: Choice, who: str) -> str:
    """The ledger's word for how values that went were decided."""
    if choice == "mask":
        return "remembered" if who == "remembered" else "approved_masked"
    if choice == "send":
        return {"policy": "allowed", "remembered": "remembered"}.get(who, "approved")
    return "aggregates" if choice == "aggregates" else "withheld"


def _is_table(value: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(value, pd.DataFrame | pd.Series)


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)[: _MODEL_TEXT * 2]
    except Exception as exc:
        return f"<{type(value).__name__}: repr failed: {type(exc).__name__}>"


def _model_content(
    outcome: RunOutcome,
    changes: list[Any],
    pieces: list[Piece],
    choice: Choice,
    masked: list[str],
    how_sent: str,
    namespace: Mapping[str, Any],
    variables: list[str],
    checkpoint: Any,
) -> tuple[Any, list[tuple[Piece, str, Any]]]:
    """What the model reads, and (piece, exact text sent, how) for the ledger."""
    lines = []
    if outcome.stopped == "time_limit":
        lines.append("The run was stopped at its time limit.")  # (no timings: a replayed request is the same)
    elif outcome.failure is not None:
        where = (
            f" at line {outcome.failure.line} (`{outcome.failure.code_line}`)" if outcome.failure.line else ""
        )
        lines.append(f"The run raised {outcome.failure.type}{where}.")
    else:
        lines.append("The run finished.")
    if checkpoint is not None:
        lines.append(f"Checkpoint {checkpoint.id} was taken before it (the person can undo the run).")
    else:
        lines.append("No checkpoint was taken: this run cannot be undone.")
    if changes:
        lines.append("Changes: " + "; ".join(c.summary for c in changes))
    else:
        lines.append("No variable changed.")
    sent: list[tuple[Piece, str, Any]] = []
    blocks: list[dict[str, Any]] = []
    frames = [namespace[v] for v in variables if _is_table(namespace.get(v))]
    for piece in pieces:
        if choice in ("send", "mask"):
            if piece.label == "a figure":
                if choice == "mask":
                    lines.append("[a figure was drawn: not sent, since columns are masked]")
                    sent.append((piece, "", "withheld"))
                else:
                    lines.append("[a figure was drawn: the image follows]")
                    sent.append((piece, piece.text, how_sent))
                continue
            text = piece.text
            if choice == "mask" and masked:
                if piece.frame is not None:
                    text = _frame_text(mask_frame(piece.frame, masked))
                else:
                    text = mask_text(
                        text, [*frames, *([piece.frame] if piece.frame is not None else [])], masked
                    )
            text = _cut(text)
            lines.append(f"[{piece.label}]\n{text}")
            sent.append((piece, text, how_sent))
        elif choice == "aggregates":
            if piece.frame is not None:
                text = json.dumps(_inspect.describe(piece.frame), default=str)
                lines.append(f"[{piece.label}: values withheld; aggregates]\n{text}")
                sent.append((piece, text, "aggregates"))
            else:
                lines.append(f"[{piece.label}: {len(piece.text)} characters withheld (aggregates only)]")
                sent.append((piece, "", "withheld"))
        else:
            lines.append(f"[{piece.label}: {len(piece.text)} characters withheld by the data policy]")
            sent.append((piece, "", "withheld"))
    text = "\n".join(lines)
    if choice == "send":
        for output in outcome.outputs:
            if output.kind == "figure" and output.png:
                data = base64.b64encode(output.png).decode()
                blocks.append(
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
                )
    content: Any = [{"type": "text", "text": text}, *blocks] if blocks else text
    return content, sent


def _shown(
    code: str, outcome: RunOutcome, changes: list[Any], checkpoint: Any, choice: Choice, masked: list[str]
) -> RichResult:
    """The run's card for the person: the code, its outputs, what changed, and what was sent."""
    outputs: list[dict[str, Any]] = []
    files: list[Binary] = []
    for output in outcome.outputs:
        if output.kind in ("stdout", "stderr"):
            outputs.append({"kind": output.kind, "text": output.text[:200_000]})
        elif output.kind == "figure" and output.png:
            outputs.append({"kind": "image", "file": len(files)})
            files.append(
                Binary(mime_type="image/png", data=output.png, filename=f"figure-{len(files) + 1}.png")
            )
        elif output.value is not None:
            if _is_table(output.value):
                outputs.append({"kind": "table", "text": _frame_text(output.value)})
            else:
                outputs.append({"kind": "value", "text": _safe_repr(output.value)[:20_000]})
        elif output.bundle is not None:
            png = output.bundle.get("image/png")
            if isinstance(png, str):
                outputs.append({"kind": "image", "file": len(files)})
                files.append(
                    Binary(mime_type="image/png", data=base64.b64decode(png), filename="display.png")
                )
            else:
                outputs.append({"kind": "value", "text": str(output.bundle.get("text/plain", ""))[:20_000]})
    data = {
        "code": code,
        "outputs": outputs,
        "error": outcome.failure.traceback if outcome.failure else None,
        "stopped": outcome.stopped,
        "duration": round(outcome.duration, 3),
        "checkpoint": checkpoint.id if checkpoint is not None else None,
        "changes": [c.to_dict() for c in changes],
        "sent": {"choice": choice, "masked": masked},
    }
    summary = "; ".join(c.summary for c in changes) or "no variable changed"
    if outcome.failure is not None:
        summary = f"{outcome.failure.type}; {summary}"
    return RichResult(kind="kernel.run", data=data, summary=summary[:2_000], files=files)


def _consent_tool(columns: list[str], variables: list[str]) -> Tool:
    """The consent card: a form over what to send, which columns to mask, and what to remember."""
    properties: dict[str, Any] = {
        "send": {
            "type": "string",
            "title": "Send to Claude",
            "oneOf": [
                {"const": "send", "title": "Send it as shown"},
                *([{"const": "mask", "title": "Send it with the chosen columns masked"}] if columns else []),
                {"const": "aggregates", "title": "Send only aggregates"},
                {"const": "withhold", "title": "Send nothing"},
            ],
            "default": "send",
        },
    }
    remember = [{"const": "no", "title": "Ask me next time"}]
    if variables:
        remember.append({"const": "variables", "title": f"Remember this for {', '.join(variables)[:200]}"})
    if columns:
        properties["mask"] = {
            "type": "array",
            "title": "Columns to mask",
            "items": {"type": "string", "enum": columns[:200]},
            "uniqueItems": True,
        }
        remember.append({"const": "columns", "title": "Always mask the chosen columns"})
    properties["remember"] = {"type": "string", "title": "Remember", "oneOf": remember, "default": "no"}
    output = {"type": "object", "properties": properties, "required": ["send"], "additionalProperties": False}

    def consent(**arguments: Any) -> None:
        """Schema-only: the person answers it."""

    return Tool(
        consent,
        name="kernel_consent",
        description="Claude's code produced data: choose what of it is sent to Claude.",
        executor="frontend",
        category="kernel",
        input_schema={"type": "object", "properties": {"would_send": {"type": "string"}}},
        output_schema=output,
    )
