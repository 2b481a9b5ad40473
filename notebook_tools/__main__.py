"""Command line: `python -m notebook_tools chat [--model M] [--store PATH] [--resume ID]`, and `demo`."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `notebook-tools` command."""
    parser = argparse.ArgumentParser(prog="notebook-tools", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    chat = sub.add_parser(
        "chat",
        help="chat with the data-cleaning agent here (Claude with ANTHROPIC_API_KEY, else scripted)",
    )
    chat.add_argument("--model", help="the model name (default: NOTEBOOK_TOOLS_MODEL or claude-sonnet-4-6)")
    chat.add_argument("--store", metavar="PATH", help="save sessions in this SQLite file")
    chat.add_argument("--resume", metavar="AGENT_UUID", help="carry on a session saved in --store")
    demo = sub.add_parser("demo", help="run the scripted demo conversation in this terminal")
    demo.add_argument("--auto", action="store_true", help="answer the prompts automatically")
    args = parser.parse_args(argv)
    if args.command == "chat":
        from .terminal import main as chat_main  # rich and prompt_toolkit load only here

        return chat_main(model=args.model, store=args.store, resume=args.resume)
    from ._demo import run_terminal_demo

    return run_terminal_demo(auto=True if args.auto else None)


if __name__ == "__main__":
    raise SystemExit(main())
