"""Command line: `python -m notebook_tools chat [options]`, `serve AGENT [options]`, `cassette`, `demo`.

chat options: --model M, --store PATH, --resume ID, --agent PATH_OR_MODULE:CALLABLE, --record PATH,
--requests PATH (see `python -m notebook_tools chat --help`).
"""

from __future__ import annotations

import argparse
import sys

CHAT_EPILOG = """\
examples:
  python -m notebook_tools chat
  python -m notebook_tools chat --store sessions.sqlite
  python -m notebook_tools chat --agent my_agents.py:build --record session.ndjson
  python -m notebook_tools chat --agent mypackage.agents:build --requests requests.json

--record and --requests are written when the command ends, however it ends (/exit, Ctrl+D, the
end of piped input, an error). A recording loads with nt.EventRecorder.load(PATH)."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `notebook-tools` command."""
    parser = argparse.ArgumentParser(prog="notebook-tools", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    chat = sub.add_parser(
        "chat",
        help="chat with the data-cleaning agent here (Claude with ANTHROPIC_API_KEY, else scripted)",
        description="Chat with an agent in this terminal: the data-cleaning agent (Claude with\n"
        "ANTHROPIC_API_KEY, else a scripted model), or your own with --agent.",
        epilog=CHAT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    chat.add_argument("--model", help="the model name (default: NOTEBOOK_TOOLS_MODEL or claude-sonnet-4-6)")
    chat.add_argument("--store", metavar="PATH", help="save sessions in this SQLite file")
    chat.add_argument(
        "--resume",
        metavar="AGENT_UUID",
        help="carry on a session saved in --store (with --agent: in that agent's own store)",
    )
    chat.add_argument(
        "--agent",
        metavar="PATH_OR_MODULE:CALLABLE",
        help="chat with the agent this zero-argument callable returns (an nt.Agent with its own model, "
        "tools and store), e.g. my_agents.py:build (a file, loaded without being on sys.path) or "
        "mypackage.agents:build (a module); --model and --store do not apply",
    )
    chat.add_argument(
        "--claude-code",
        metavar="DIR",
        help="chat with Claude Code (the CLI of the claude-agent-sdk extra) working in DIR: its permission "
        "requests and questions are asked here; with --store, --resume NAME carries on its saved "
        "conversation; --model picks the CLI's model",
    )
    chat.add_argument(
        "--record",
        metavar="PATH",
        help="save every event of the session (actions and display events) to PATH as NDJSON when "
        "the command ends",
    )
    chat.add_argument(
        "--requests",
        metavar="PATH",
        help="save the body of every request the scripted model received to PATH as JSON when the "
        "command ends (a scripted model only)",
    )
    serve = sub.add_parser(
        "serve",
        help="serve an agent over HTTP (the frontend-tools contract and AG-UI; needs notebook_tools[server])",
        description="Serve the agent PATH_OR_MODULE:CALLABLE builds over HTTP: POST /agent/run, "
        "/agent/tool_results, /api/tools/ack and /agui. Requests need 'Authorization: Bearer TOKEN' "
        "(NOTEBOOK_TOOLS_SERVER_TOKEN, or one printed at start).",
    )
    serve.add_argument(
        "agent",
        metavar="PATH_OR_MODULE:CALLABLE",
        help="builds the agent (per request); one that returns nt.ClaudeCode (or an ACP agent) is called "
        "once per thread and served by one worker, its cards answered by POST /api/tools/ack",
    )
    serve.add_argument("--host", default="127.0.0.1", help="the address to bind (default: 127.0.0.1 only)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1, help="processes (more than one needs --store)")
    serve.add_argument(
        "--store", default="memory", help="memory (default), sqlite:PATH or postgresql://USER@HOST/DB"
    )
    serve.add_argument("--hold", action="store_true", help="runs wait for frontend acks instead of pausing")
    serve.add_argument(
        "--ask-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long a question a running call asks (a consent card, an MCP server's form) waits for "
        "the client before it is taken as not answered (default: until answered or stopped)",
    )
    serve.add_argument(
        "--lease",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how soon a session whose worker died is carried on by another (default: 10)",
    )
    tape = sub.add_parser("cassette", help="show a cassette as a conversation, or prune what no replay uses")
    tape.add_argument("action", choices=["show", "prune"])
    tape.add_argument("file", help="the cassette (.cassette.json)")
    tape.add_argument("--after", type=int, help="prune: also drop the exchanges after the Nth")
    demo = sub.add_parser("demo", help="run the scripted demo conversation in this terminal")
    demo.add_argument("--auto", action="store_true", help="answer the prompts automatically")
    args = parser.parse_args(argv)
    if args.command == "chat":
        from .terminal import main as chat_main  # rich and prompt_toolkit load only here

        return chat_main(
            model=args.model,
            store=args.store,
            resume=args.resume,
            agent=args.agent,
            claude_code=args.claude_code,
            record=args.record,
            requests=args.requests,
        )
    if args.command == "cassette":
        from pathlib import Path

        from ._exceptions import CassetteError
        from .testing._cassette_show import prune, show

        path = Path(args.file)
        try:
            print(show(path) if args.action == "show" else prune(path, args.after))
        except CassetteError as exc:
            print(f"notebook-tools cassette {args.action}: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.command == "serve":
        from .server import serve as serve_main  # starlette and uvicorn load only here

        serve_main(
            args.agent,
            host=args.host,
            port=args.port,
            workers=args.workers,
            store=args.store,
            hold=args.hold,
            lease=args.lease,
            ask_timeout=args.ask_timeout,
        )
        return 0
    from .testing._demo import run_terminal_demo

    return run_terminal_demo(auto=True if args.auto else None)


if __name__ == "__main__":
    raise SystemExit(main())
