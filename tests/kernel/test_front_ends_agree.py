"""Both front ends drive one scripted session and produce the same actions and the same API requests.

The session is tests/support/equivalence_session.py (`build()`, `MESSAGES`, `ANSWERS`): four prompts of
each kind, an approval whose arguments are edited, a frontend prompt that times out, a Stop during
a slow backend tool, and one more message. It is driven twice, in the same workspace folder (a
picked file's result names its absolute path, so a shared folder keeps the requests comparable):

- through the widget: a real ipykernel spoken to as JupyterLab speaks to it (tests/support/kernel_client.py):
  `nt.Chat(agent)` shown, the view's hello and pings, `send`, `answer` and `stop` custom messages
  with exactly the content js/src/chat/cards.ts and js/src/prompts/*.ts send (answers carry the
  view's `at` timestamp, as the page adds it);
- through the terminal: the real `python -m notebook_tools chat --agent ... --record ... --requests
  ...` in a pseudo-terminal (pexpect), answered with keys, Ctrl+C during the slow tool, /exit.

Each run's action events (`user_input`, `prompt_answer`, `interrupt`, ... every type of the
`ActionEvent` union) are compared after normalising only what legitimately differs between the
two front ends: `time`, `agent_uuid`, `frontend` ("view" vs "terminal", checked first),
`request_id` of manual runs (none here), and the `at` inside a widget answer (the page's submit
time, which only tells attempts apart). The API request bodies are compared as exact JSON text.

Each run happens once per module (module-scoped fixtures, so the comparing test reuses both); the
kernel is a `KernelSession` like the `kernel` fixture's, started in the shared workspace.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import pexpect
import pytest

import notebook_tools as nt
from notebook_tools.events import ActionEvent
from tests.support import equivalence_session as session
from tests.support.kernel_client import KernelSession
from tests.support.readiness import CEILING

ROOT = Path(__file__).resolve().parents[2]
SESSION = Path(session.__file__).resolve()
ids = session.ids

ACTION_TYPES = {cls.model_fields["type"].default for cls in get_args(get_args(ActionEvent)[0])}
LEGITIMATELY_DIFFERENT = ("time", "agent_uuid", "frontend", "request_id")

EXPECTED_ACTIONS: list[dict[str, Any]] = [
    {"type": "user_input", "text": session.MESSAGES[0]},
    *({"type": "prompt_answer", "tool_use_id": i, "answer": a} for i, a in session.ANSWERS.items()),
    {"type": "user_input", "text": session.MESSAGES[1]},
    {"type": "interrupt"},
    {"type": "user_input", "text": session.MESSAGES[2]},
]
"""The person's actions in the scenario, normalised: the same from either front end."""
FINAL_PROMPTS = {
    **dict.fromkeys([ids.CONFIRM, ids.TEXT, ids.SELECT, ids.FILE, ids.APPROVAL], "answered"),
    ids.UNIT: "timed_out",
}


class Run:
    """What one front end's run left: the recorded events and the request bodies."""

    def __init__(self, recording: Path, requests: Path, seconds: float) -> None:
        self.recorder = nt.EventRecorder.load(recording)
        self.requests: list[dict[str, Any]] = json.loads(requests.read_text())
        self.seconds = seconds

    def actions(self) -> list[dict[str, Any]]:
        return [normalised(e) for e in self.recorder.events if e.type in ACTION_TYPES]

    def frontends(self) -> set[str]:
        return {e.frontend for e in self.recorder.of_type("prompt_answer")}

    def final_prompts(self) -> dict[str, str]:
        return {e.prompt.tool_use_id: e.prompt.status for e in self.recorder.of_type("prompt_changed")}


def normalised(event: Any) -> dict[str, Any]:
    data: dict[str, Any] = event.model_dump(mode="json")
    for key in LEGITIMATELY_DIFFERENT:
        data.pop(key, None)
    if data["type"] == "prompt_answer" and isinstance(data["answer"], dict):
        data["answer"] = {k: v for k, v in data["answer"].items() if k != "at"}
    return data


def exact(requests: list[dict[str, Any]]) -> list[str]:
    """Each request body as JSON text: 1 and 1.0 differ, as they do on the wire."""
    return [json.dumps(body, ensure_ascii=False) for body in requests]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder both runs work in, with the price list the file prompt picks."""
    folder = tmp_path_factory.mktemp("workspace")
    (folder / session.PRICES_FILE).write_text(session.PRICES)
    return folder


# -- the widget, in a real kernel ------------------------------------------------------------------

SETUP = """
import importlib.util, json, pathlib
import notebook_tools as nt
_spec = importlib.util.spec_from_file_location("equivalence_session", {path!r})
session = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(session)
agent = session.build()
recorder = nt.EventRecorder()
agent.events.subscribe(recorder)
chat = nt.Chat(agent)
chat
"""
SAVE = """
recorder.save({recording!r})
pathlib.Path({requests!r}).write_text(json.dumps(agent.script.requests))
"""


class Page:
    """The browser's side of one Chat widget: its view's hello, pings and custom messages."""

    PING = 3.0  # the page pings every 5 s; a view unseen for 15 s counts as gone

    def __init__(self, kernel: KernelSession, comm: str) -> None:
        self.kernel, self.comm = kernel, comm
        self.view = "view-1"
        self.pinged = 0.0
        self.message({"type": "hello", "view_id": self.view})

    def message(self, content: dict[str, Any]) -> None:
        self.kernel.send_custom(self.comm, content)

    def answer(self, tool_use_id: str, answer: dict[str, Any]) -> None:
        """What a prompt card's submit sends (js/src/chat/cards.ts): the answer, stamped with `at`."""
        self.message(
            {"type": "answer", "tool_use_id": tool_use_id, "answer": {**answer, "at": time.time() * 1000}}
        )

    def wait(self, until: Callable[[], bool], timeout: float = CEILING) -> None:
        def ready() -> bool:
            if time.monotonic() - self.pinged > self.PING:
                self.pinged = time.monotonic()
                self.message({"type": "ping", "view_id": self.view})
            return until()

        self.kernel.pump(ready, timeout)

    def status(self, tool_use_id: str) -> str | None:
        prompt = self.kernel.prompts(self.comm).get(tool_use_id)
        return None if prompt is None else str(prompt["status"])

    def until_status(self, tool_use_id: str, status: str, timeout: float = CEILING) -> None:
        self.wait(lambda: self.status(tool_use_id) == status, timeout)

    def tool_running(self, tool_use_id: str) -> bool:
        """The transcript item of a call shows it running (the view's upserted items)."""
        running = False
        for m in self.kernel.comm_msgs(self.comm):
            data = m["content"]["data"]
            content = data.get("content", {}) if data.get("method") == "custom" else {}
            for item in content.get("items", []) if content.get("type") in ("snapshot", "items") else []:
                if item.get("id") == tool_use_id and "status" in item:
                    running = item["status"] == "running"
        return running

    def turns_ended(self) -> int:
        """How often the widget went from busy to not busy."""
        ended, busy = 0, False
        for m in self.kernel.comm_msgs(self.comm):
            state = m["content"]["data"].get("state", {})
            if "busy" in state:
                ended += busy and not state["busy"]
                busy = state["busy"]
        return ended


@pytest.fixture(scope="module")
def widget_run(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    out = tmp_path_factory.mktemp("widget")
    started = time.monotonic()
    kernel = KernelSession(cwd=str(workspace))
    try:
        kernel.execute(SETUP.format(path=str(SESSION)))
        [comm] = kernel.anywidget_comms()
        page = Page(kernel, comm)

        page.message({"type": "send", "text": session.MESSAGES[0]})
        for tool_use_id, answer in session.ANSWERS.items():  # each prompt answered as it opens
            page.until_status(tool_use_id, "pending")
            page.answer(tool_use_id, answer)
            page.until_status(tool_use_id, "answered")
        # nobody answers (not waiting to see it pending: it is for 2 s only, a reader may fall behind)
        page.until_status(ids.UNIT, "timed_out", session.UNIT_TIMEOUT + 20)
        page.wait(lambda: page.turns_ended() == 1)

        page.message({"type": "send", "text": session.MESSAGES[1]})
        page.wait(lambda: page.tool_running(ids.SLOW))
        page.message({"type": "stop"})  # the Stop button
        page.wait(lambda: page.turns_ended() == 2)

        page.message({"type": "send", "text": session.MESSAGES[2]})
        page.wait(lambda: page.turns_ended() == 3)

        recording, requests = out / "events.ndjson", out / "requests.json"
        kernel.execute(SAVE.format(recording=str(recording), requests=str(requests)))
        assert kernel.value("[[repr(r) for r in agent.script.refused], agent.script.remaining]") == [[], 0]
        assert kernel.value("chat.errors") == []  # nothing the page sent was refused
    finally:
        kernel.close()
    return Run(recording, requests, time.monotonic() - started)


# -- the terminal, in a pseudo-terminal ------------------------------------------------------------


@pytest.fixture(scope="module")
def terminal_run(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    out = tmp_path_factory.mktemp("terminal")
    recording, requests = out / "events.ndjson", out / "requests.json"
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env.update(NO_COLOR="1", PROMPT_TOOLKIT_NO_CPR="1", PYTHONPATH=str(ROOT))
    command = ["-m", "notebook_tools", "chat", "--agent", f"{SESSION}:build"]
    command += ["--record", str(recording), "--requests", str(requests)]
    started = time.monotonic()
    child = pexpect.spawn(
        sys.executable,
        command,
        cwd=str(workspace),
        env=env,
        encoding="utf-8",
        dimensions=(50, 200),
        timeout=CEILING,
    )
    child.logfile_read = (out / "screen.txt").open("w")
    try:
        child.expect("Model: scripted")
        child.expect("you>")
        child.send(session.MESSAGES[0] + "\r")
        child.expect("Drop the duplicate rows")  # confirm: y, then Enter
        child.expect(r"\(y/n")
        child.send("y")
        child.send("\r")
        child.expect("→ Drop")
        child.expect("Title of the report")  # text, pre-filled: Ctrl+U clears it
        child.expect("Prices")
        child.send("\x15Fruit prices\r")
        child.expect("→ Fruit prices")
        child.expect("Fill missing prices")  # select: by number
        child.expect("zero")
        child.send("2\r")
        child.expect("→ mean")
        child.expect("Pick the reference price list")  # file: by path
        child.expect("path >")
        child.send(session.PRICES_FILE + "\r")
        child.expect(f"→ {session.PRICES_FILE}")
        child.expect("Run write_report")  # approval: edit the path, keep the rest, approve
        child.expect(r"\(a/d/e/r/t")
        child.send("e\r")
        child.expect(r"path \(string\) >")
        child.send("\x15final.md\r")
        for field in (
            r"title \(string\) >",
            r"rows \(integer\) >",
            r"overwrite \(boolean\) >",
            r"scale \(number\) >",
        ):
            child.expect(field)
            child.send("\r")
        child.expect("edited arguments")
        child.expect("Approve with these arguments")
        child.send("a\r")
        child.expect("report 'Fruit prices'")
        child.expect("Ask the user which currency")  # nobody answers: it times out
        child.expect(
            "did not answer within 2 seconds. I'll assume euros", timeout=session.UNIT_TIMEOUT + CEILING
        )
        child.expect("you>")
        child.send(session.MESSAGES[1] + "\r")  # the slow tool, stopped with Ctrl+C
        child.expect("⚙ slow_profile")
        child.sendcontrol("c")
        child.expect("Interrupted by the user")
        child.expect("stopped")
        child.expect("you>")
        child.send(session.MESSAGES[2] + "\r")
        child.expect("You're welcome")
        child.expect("you>")
        child.send("/exit\r")
        child.expect("bye")
        child.expect(pexpect.EOF)
    finally:
        child.close()
        child.logfile_read.close()  # what the terminal showed, kept for a failure's post-mortem
    assert child.exitstatus == 0
    return Run(recording, requests, time.monotonic() - started)


# -- the checks ---------------------------------------------------------------------------------------


def check_run(run: Run, frontend: str) -> None:
    assert run.frontends() == {frontend}
    assert run.actions() == EXPECTED_ACTIONS
    assert run.final_prompts() == FINAL_PROMPTS
    assert len(run.requests) == len(session.steps())
    edited = run.requests[2]["messages"][-1]["content"]
    assert edited[0]["tool_use_id"] == ids.APPROVAL
    assert "report 'Fruit prices' with 10 rows to final.md (overwrite=False, scale=1" in json.dumps(edited)
    assert "did not answer within 2 seconds" in json.dumps(run.requests[3]["messages"][-1])
    last = run.requests[-1]["messages"][-1]["content"]
    assert last[0]["tool_use_id"] == ids.SLOW and last[0]["is_error"] is True
    assert last[-1] == {"type": "text", "text": session.MESSAGES[2]}


@pytest.mark.kernel
def test_the_widget_session_in_a_kernel(widget_run: Run) -> None:
    check_run(widget_run, "view")


def test_the_terminal_session_in_a_pseudo_terminal(terminal_run: Run) -> None:
    check_run(terminal_run, "terminal")


@pytest.mark.kernel
def test_both_front_ends_send_the_same_actions_and_the_same_requests(
    widget_run: Run, terminal_run: Run
) -> None:
    assert widget_run.actions() == terminal_run.actions()
    assert exact(widget_run.requests) == exact(terminal_run.requests)
    assert widget_run.final_prompts() == terminal_run.final_prompts()
    print(f"widget {widget_run.seconds:.1f} s, terminal {terminal_run.seconds:.1f} s")


# -- the chat command's options --------------------------------------------------------------------


def test_ctrl_d_at_a_prompt_still_saves_the_recording_and_the_requests(tmp_path: Path) -> None:
    recording, requests = tmp_path / "events.ndjson", tmp_path / "requests.json"
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env.update(NO_COLOR="1", PROMPT_TOOLKIT_NO_CPR="1", PYTHONPATH=str(ROOT))
    command = ["-m", "notebook_tools", "chat", "--agent", f"{SESSION}:build"]
    command += ["--record", str(recording), "--requests", str(requests)]
    child = pexpect.spawn(
        sys.executable, command, cwd=str(tmp_path), env=env, encoding="utf-8", timeout=CEILING
    )
    try:
        child.expect("you>")
        child.send(session.MESSAGES[0] + "\r")
        child.expect("Drop the duplicate rows")
        child.expect(r"\(y/n")
        child.sendcontrol("d")  # leaves with the prompts open
        child.expect("stays paused")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert (tmp_path / session.PRICES_FILE).read_text() == session.PRICES  # build() wrote it
    recorder = nt.EventRecorder.load(recording)
    assert [e.text for e in recorder.of_type("user_input")] == [session.MESSAGES[0]]
    assert recorder.of_type("prompt_answer") == [] and recorder.of_type("prompt_changed")
    [body] = json.loads(requests.read_text())
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": session.MESSAGES[0]}]}]


def test_an_error_in_the_chat_still_saves_the_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from notebook_tools.terminal import _main

    class Failing:
        def __init__(self, agent: nt.Agent, **_: Any) -> None:
            self.agent = agent

        async def run(self) -> int:
            self.agent.events.publish_nowait(
                nt.EventRecorder.from_ndjson('{"type": "user_input", "text": "hi"}').events[0]
            )
            raise RuntimeError("the terminal broke")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_main, "TerminalChat", Failing)
    recording, requests = tmp_path / "events.ndjson", tmp_path / "requests.json"
    with pytest.raises(RuntimeError, match="the terminal broke"):
        _main.main(agent=f"{SESSION}:build", record=str(recording), requests=str(requests))
    assert [e.text for e in nt.EventRecorder.load(recording).of_type("user_input")] == ["hi"]
    assert json.loads(requests.read_text()) == []


def test_agent_specs_files_modules_and_mistakes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from notebook_tools.__main__ import main
    from notebook_tools.terminal._main import AgentSpecError, load_agent, script_of

    monkeypatch.chdir(tmp_path)
    by_path = load_agent(f"{SESSION}:build")  # a file, not on sys.path
    by_module = load_agent("tests.support.equivalence_session:build")  # a module
    for agent in (by_path, by_module):
        assert set(agent.tools) >= {"write_report", "slow_profile", "ask_unit"}
        assert script_of(agent) is agent.script  # type: ignore[attr-defined]
    plain = nt.Agent(client=session.build().script.client())  # type: ignore[attr-defined]
    assert script_of(plain) is not None  # found behind the client without `agent.script`
    (tmp_path / "other.py").write_text("def build():\n    return 42\n")
    for spec, why in (
        ("nothing", "PATH_OR_MODULE:CALLABLE"),
        (f"{SESSION}:missing", "no callable 'missing'"),
        ("absent.py:build", "no such file"),
        ("other.py:build", "returned int, not an nt.Agent"),
    ):
        with pytest.raises(AgentSpecError, match=why):
            load_agent(spec)
        assert main(["chat", "--agent", spec]) == 2
        assert why in capsys.readouterr().err
    assert main(["chat", "--agent", f"{SESSION}:build", "--model", "x"]) == 2
    assert main(["chat", "--record", str(tmp_path / "no" / "such" / "dir.ndjson")]) == 2
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")  # the built-in agent on Claude: no script
    assert main(["chat", "--requests", str(tmp_path / "r.json")]) == 2
    assert "--requests needs a scripted model" in capsys.readouterr().err


def test_an_approval_edit_starts_from_what_the_widgets_form_shows() -> None:
    """The terminal's side of js/src/form/form.ts: defaults filled, booleans always, 1.0 sent as 1."""
    from notebook_tools.terminal._ask import as_the_form_starts
    from notebook_tools.terminal._commands import coerce_arg

    schema = session.write_report.input_schema
    assert as_the_form_starts(schema, session.REPORT_INPUT) == {**session.EDITED_REPORT, "path": "report.md"}
    assert as_the_form_starts(schema, {"path": "a", "stray": 1, "scale": 2.5}) == {
        "path": "a",
        "title": "Prices",
        "rows": 10,
        "overwrite": False,
        "scale": 2.5,
    }
    assert as_the_form_starts({}, {"x": 1}) == {"x": 1}  # no schema: nothing to fill from
    assert [coerce_arg(x, {"type": "number"}) for x in ("2", "2.0", "2.5", "1e3")] == [2, 2, 2.5, 1000]
    assert json.dumps(coerce_arg("1.0", {"type": "number"})) == "1"  # as JSON.stringify(Number("1.0"))
