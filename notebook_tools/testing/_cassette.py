"""Record once, replay in CI: the Messages API exchanges of a notebook, kept in a cassette file.

    cas = nt.cassette("02_clean.cassette.json")      # mode from NOTEBOOK_TOOLS_CASSETTE, else "auto"
    agent = nt.Agent(client=cas.client(), ...)
    chat = nt.Chat(agent); cas.attach(chat)           # the person's answers are recorded/replayed too

- "record": the real API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL) answers; every request body and
  its streamed response is written to the file as it completes, no header and no secret.
- "replay": no key, no network: the real SDK parses the recorded responses (served by a mock
  transport, so streaming and parsing are the SDK's own). Each request must be the one recorded
  at that point (so what it gets is the real API's own answer to it); one that differs fails at once
  with `CassetteMismatchError` naming the first differing field (model, system, tools, or the
  message at index N).
- "auto": replay while the requests match. With a key, a request that differs (and every one after
  it) is sent to the API and recorded in place of the old tail; without one it fails as in replay.
  No file yet: record (with a key) or fail saying how to make one.

MCP servers (`cas.mcp(server)`, `_cassette_mcp`) and Claude Code (`cas.claude_code(claude)`,
`_cassette_claude_code`: every line between the SDK and the CLI) are kept in the same file and
replayed with no server and no CLI; "auto" replays Claude Code's lines and never re-records them
mid-way (a CLI's run cannot be taken up from a line that differs).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

import anthropic
import httpx2

from .._exceptions import CassetteError, CassetteMismatchError, ConfigurationError
from ..mcp._server import MCPServer
from ._cassette_answers import CassetteAnswers
from ._cassette_file import Secrets, events_of, first_difference, load, save, sse_of
from ._cassette_show import called_ids
from ._cassette_streams import Dropped, Tee

if TYPE_CHECKING:
    from ..external._claude_code import ClaudeCode

__all__ = ["CASSETTE_ENV", "Cassette", "CassetteMode", "cassette", "register_front_end"]

CASSETTE_ENV = "NOTEBOOK_TOOLS_CASSETTE"
CassetteMode = Literal["record", "replay", "auto"]
REPLAY_KEY = "cassette-replay-no-key"
MIN_KEY = 8
_NOT_JSON = "a cassette records requests with a JSON body (the Messages API's), not this one"


_FRONT_ENDS: list[tuple[type, Callable[[Cassette, Any, Any, Any], Any]]] = []


def register_front_end(kind: type, attach: Callable[[Cassette, Any, Any, Any], Any]) -> None:
    """A front end (the widget package, when loaded) says how a cassette attaches to its `kind`."""
    _FRONT_ENDS.append((kind, attach))


def _retried(exchange: dict[str, Any], sent: dict[str, Any], request: httpx2.Request) -> bool:
    """Whether `request` is the SDK retrying the request of `exchange`, which failed (429, 5xx).

    A failure is recorded as it comes; when the SDK retries it, it is dropped, so what stays is the
    failure the SDK finally gave up on, if it did (a replay raises it again). The same request made
    again by the notebook (`agent.retry()` in the next cell) is a new exchange: the failure stays.
    """
    status = exchange["response"]["status"]
    again = request.headers.get("x-stainless-retry-count", "0") not in ("", "0")
    return bool(
        again and (status == 429 or status >= 500) and first_difference(exchange["request"], sent) is None
    )


class Cassette(CassetteAnswers):
    """A session's Messages API exchanges and a person's answers, recorded or replayed.

    Args:
        path: The cassette file (JSON), usually next to the notebook.
        mode: "record", "replay" or "auto"; None reads NOTEBOOK_TOOLS_CASSETTE (default "auto").
        secrets: More regular expressions whose matches never reach the file.
        api_key: The key for recording (default: ANTHROPIC_API_KEY); it never reaches the file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        mode: CassetteMode | None = None,
        *,
        secrets: tuple[str, ...] | list[str] = (),
        api_key: str | None = None,
    ) -> None:
        chosen = mode or os.environ.get(CASSETTE_ENV) or "auto"
        if chosen not in ("record", "replay", "auto"):
            raise ConfigurationError(f"a cassette's mode is record, replay or auto, not {chosen!r}")
        self.mode: CassetteMode = chosen  # type: ignore[assignment]
        self.path = Path(path)
        try:  # a name too long, a NUL in it, a folder this process may not look into
            exists, is_dir = self.path.exists(), self.path.is_dir()
        except (OSError, ValueError) as exc:
            raise CassetteError(f"cassette {self.path} cannot be used ({exc})") from None
        if "\0" in str(self.path):
            raise CassetteError(f"cassette {str(self.path)!r} cannot be used (a NUL in its name)")
        self.key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY") or None
        if self.key is not None and len(self.key) < MIN_KEY:
            if self.mode == "record" or not exists:
                raise ConfigurationError(
                    f"the API key is too short ({len(self.key)} characters) to be kept out of a cassette "
                    f"by value; record with a real key (at least {MIN_KEY} characters)"
                )
            self.key = None  # auto: replays only, as without a key (never records with it)
        self.secrets = Secrets(secrets, [self.key] if self.key else [])
        self.exchanges: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []
        self.mcp_traffic: list[dict[str, Any]] = []
        """What each MCP server given to `mcp()` said, in the order they were given."""
        self._mcp_given = 0
        self.claude_code_traffic: list[dict[str, Any]] = []
        """The lines of each connection to Claude Code (`claude_code()`), in the order they were made."""
        self.claude_code_made = 0
        """How many connections to Claude Code were made (recorded or replayed)."""
        self.claude_code_played: dict[int, int] = {}
        """How many lines of each connection to Claude Code were replayed, by connection (from 0)."""
        self.served = 0
        """How many recorded exchanges were replayed."""
        self._new = False  # something was recorded (auto writes only then: a failed re-record keeps the file)
        self.recording = self.mode == "record"
        if not self.recording:
            if exists:
                data = load(self.path)
                self.exchanges, self.answers, self.mcp_traffic = (
                    data["exchanges"],
                    data["answers"],
                    data.get("mcp", []),
                )
                self.claude_code_traffic = data.get("claude_code", [])
            elif self.mode == "auto" and self.key:
                self.recording = True
            else:
                raise CassetteError(
                    f"no cassette at {self.path} to replay. Run the notebook once with ANTHROPIC_API_KEY set "
                    f"(and {CASSETTE_ENV}=record or auto) to record it."
                )
        if self.recording and not self.key:
            raise CassetteError(f"recording {self.path} needs ANTHROPIC_API_KEY (or api_key=)")
        if self.recording and (is_dir or not os.access(self.path.parent, os.W_OK)):
            what = "is a directory" if is_dir else "is in no directory this process can write"
            raise CassetteError(f"cassette {self.path} cannot be written: it {what}")
        self.mismatch: CassetteMismatchError | None = None
        """The first request that differed from the recording (replaying), if one did."""

    def __repr__(self) -> str:
        return f"Cassette({str(self.path)!r}, mode={self.mode!r})"

    def __enter__(self) -> Cassette:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.save()

    # -- the client ----------------------------------------------------------------------------

    def client(self, **kwargs: Any) -> anthropic.AsyncAnthropic:
        """An `AsyncAnthropic` whose requests this cassette records or replays.

        `kwargs` go to `AsyncAnthropic` (`base_url`, `max_retries`, `default_headers`, ...); a replay
        never retries. The key is the cassette's (`Cassette(path, api_key=...)`), the HTTP client its own.
        """
        if taken := sorted({"api_key", "http_client"} & kwargs.keys()):
            raise ConfigurationError(
                f"cassette.client() sets {' and '.join(taken)} itself (the key: Cassette(path, api_key=...))"
            )
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(self._handle), timeout=600)
        base = httpx2.URL(str(kwargs.get("base_url") or os.environ.get("ANTHROPIC_BASE_URL") or ""))
        self.secrets.add(base.password or "", base.userinfo.decode("utf-8", "replace"))  # never to the file
        if self.recording or (self.mode == "auto" and self.key):
            return anthropic.AsyncAnthropic(api_key=self.key, http_client=http, **kwargs)
        return anthropic.AsyncAnthropic(
            **{**kwargs, "api_key": REPLAY_KEY, "http_client": http, "max_retries": 0}
        )

    async def _handle(self, request: httpx2.Request) -> httpx2.Response:
        try:
            body = json.loads(await request.aread() or b"{}")
        except ValueError:  # (multipart: a file upload) answered as the API answers a bad request
            error = {"type": "invalid_request_error", "message": f"cassette {self.path}: {_NOT_JSON}"}
            return httpx2.Response(400, json={"type": "error", "error": error})
        path = request.url.path
        endpoint = f"{request.method} {path[path.rfind('/v1/') :]}"
        if endpoint != "POST /v1/messages" or not isinstance(body, dict):  # which one is part of it
            body = {"(endpoint)": endpoint, **(body if isinstance(body, dict) else {"(body)": body})}
        if betas := request.headers.get("anthropic-beta"):  # it changes what the API does: compared too
            body = {"(anthropic-beta)": sorted(b.strip() for b in betas.split(",") if b.strip()), **body}
        sent = self.secrets.clean(body)
        index = self.served
        if not self.recording:
            if index and _retried(
                self.exchanges[index - 1], sent, request
            ):  # the SDK retries a recorded failure
                return self._replayed(self.exchanges[index - 1]["response"])  # (it gave up on it then)
            recorded = self.exchanges[index]["request"] if index < len(self.exchanges) else None
            difference = (
                "nothing was recorded for it" if recorded is None else first_difference(recorded, sent)
            )
            if difference is None:
                self.served += 1
                return self._replayed(self.exchanges[index]["response"])
            if not (self.mode == "auto" and self.key):
                # Answered as the API answers a bad request (never retried), so the cell fails at once.
                mismatch = CassetteMismatchError(str(self.path), index, difference)
                self.mismatch = self.mismatch or mismatch  # the first one (an MCP call's, maybe)
                error = {"type": "invalid_request_error", "message": str(mismatch)}
                return httpx2.Response(400, json={"type": "error", "error": error})
            self.recording = True  # auto with a key: from here on, the API answers and is recorded
            del self.exchanges[index:]
            called = called_ids(self.exchanges)
            self.answers = [a for a in self.answers if a["tool_use_id"] in called]  # the old tail's go too
        if self.exchanges and _retried(self.exchanges[-1], sent, request):
            del self.exchanges[-1]  # the failure was retried: only the retry's answer is the conversation's
        return await self._record(request, sent)

    def _replayed(self, response: dict[str, Any]) -> httpx2.Response:
        # The request is the recorded one, so this is the real API's own answer to it (a refusal too).
        if "events" in response:
            sse, body = {"content-type": "text/event-stream"}, sse_of(response["events"])
            if isinstance(response.get("dropped"), str):
                return httpx2.Response(
                    response["status"], headers=sse, stream=Dropped(body, response["dropped"])
                )
            return httpx2.Response(response["status"], headers=sse, content=body)
        return httpx2.Response(response["status"], json=response.get("body"))

    async def _record(self, request: httpx2.Request, sent: dict[str, Any]) -> httpx2.Response:
        transport = httpx2.AsyncHTTPTransport()
        request.headers["accept-encoding"] = "identity"  # the body is recorded as it arrives
        try:
            real = await transport.handle_async_request(request)
        except BaseException:
            await transport.aclose()
            raise
        streamed = real.headers.get("content-type", "").startswith("text/event-stream")

        def done(raw: bytes, error: Exception | None) -> None:
            if streamed and real.status_code == 200:
                events = self.secrets.clean_events(events_of(raw))
                response: dict[str, Any] = {"status": real.status_code, "events": events}
                if error is not None:  # the connection dropped: a replay drops it there too
                    response["dropped"] = f"{type(error).__name__}: {error}"
            elif error is not None:
                return  # a body cut off that is not a stream: nothing to replay
            else:
                try:
                    response = {"status": real.status_code, "body": json.loads(raw or b"null")}
                except ValueError:
                    response = {"status": real.status_code, "body": raw.decode("utf-8", "replace")}
            if real.status_code in (401, 403):
                return  # the key was refused: nothing of the conversation, and never written over a cassette
            self.exchanges.append({"request": sent, "response": self.secrets.clean(response)})  # idempotent
            self._new = True
            self.served = len(self.exchanges)
            self.save()

        return httpx2.Response(
            real.status_code, headers=real.headers, stream=Tee(real.stream, done, transport)
        )

    def mcp(self, server: MCPServer) -> MCPServer:
        """`server` with its traffic recorded in this cassette, or replayed from it (no server runs then).

        Give each server to the agent as returned here; servers are matched by the order of these calls.
        """
        from ._cassette_mcp import CassetteMCPServer

        if not isinstance(server, MCPServer) or isinstance(server, CassetteMCPServer):
            raise CassetteError("cassette.mcp() takes an nt.MCPServer (once)")
        self._mcp_given += 1
        return CassetteMCPServer(server, self, self._mcp_given - 1)

    def claude_code(self, claude: ClaudeCode) -> ClaudeCode:
        """`claude` with its connections to the CLI recorded in this cassette, or replayed from it.

        Recording, the real CLI runs and every line it and the SDK exchange is kept (the project's folder
        as `<project>`, no secret); replaying, no CLI runs, what this side sends is checked against the
        recording (a deny where an allow was recorded is a `CassetteMismatchError`), and each Write or
        Edit the person allowed again is made again in `claude.cwd` by the cassette, only when the file
        comes out as it did when recorded (its SHA-256). Bash and other tools are not run again.
        Give the chat `claude` as returned here (the same object, its `transport` set); attach the
        chat to this cassette too, for the person's answers to its cards.

        Raises:
            CassetteError: `claude` is not an `nt.ClaudeCode`, or has a transport of its own already.
        """
        from ..external._claude_code import ClaudeCode
        from ._cassette_claude_code import transports

        if not isinstance(claude, ClaudeCode) or claude.transport is not None:
            raise CassetteError("cassette.claude_code() takes an nt.ClaudeCode without a transport (once)")
        claude.transport = transports(self)
        return claude

    def attach(
        self, front_end: Any, answers: dict[str, Any] | None = None, apps: dict[str, Any] | None = None
    ) -> Any:
        """Record the person's answers in `front_end` (an `nt.Chat`), or answer them from the cassette.

        `answers`: what a `ScriptedUser` answers, by prompt name, when recording with no browser;
        `apps`: what it does in MCP apps then, by tool name (see `ScriptedUser`).

        Raises:
            CassetteError: no front end of that kind knows cassettes.
        """
        for kind, attach in _FRONT_ENDS:
            if isinstance(front_end, kind):
                return attach(self, front_end, answers, apps)
        raise CassetteError(f"cassettes attach to an nt.Chat, not {type(front_end).__name__}")

    def unused(self) -> str:
        """After a replay: which recorded exchanges no request used, in words ("" when all were).

        Claude Code's too: a connection whose replay stopped before a line this side sent when it
        was recorded (a message, an answer), or that was not made again at all.
        """
        if self.recording:
            return ""
        said = []
        if self.served < len(self.exchanges):
            first, total = self.served + 1, len(self.exchanges)
            said.append(
                f"cassette {self.path}: requests {first}-{total} of {total} were not replayed; "
                f"`python -m notebook_tools cassette prune {self.path} --after {self.served}` drops them"
            )
        for number, connection in enumerate(self.claude_code_traffic):
            lines, played = connection["lines"], self.claude_code_played.get(number, 0)
            ours = next((i for i in range(played, len(lines)) if lines[i]["from"] == "host"), None)
            if ours is not None:
                said.append(
                    f"cassette {self.path}: Claude Code's connection {number + 1} was replayed up to line "
                    f"{played} of {len(lines)}; this side never sent line {ours + 1} "
                    f"({json.dumps(lines[ours]['line'], ensure_ascii=False)[:120]})"
                )
        return "; ".join(said)

    def save(self) -> None:
        """Write the file (recording only; a replay never changes it).

        Nothing recorded (auto before the first change, a refused key) never replaces a cassette.
        """
        kept = self.mode == "record" and (
            self.exchanges or self.answers or self.mcp_traffic or self.claude_code_traffic
        )
        if self.recording and (self._new or kept or not self.path.exists()):
            save(self.path, self.exchanges, self.answers, self.mcp_traffic, self.claude_code_traffic)


def cassette(
    path: str | os.PathLike[str],
    mode: CassetteMode | None = None,
    *,
    secrets: tuple[str, ...] | list[str] = (),
) -> Cassette:
    """Record a notebook's Messages API exchanges to `path`, or replay them (see `Cassette`)."""
    return Cassette(path, mode, secrets=secrets)
