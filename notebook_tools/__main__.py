"""Command line: `python -m notebook_tools demo [--auto]`."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `notebook-tools` command."""
    parser = argparse.ArgumentParser(prog="notebook-tools", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run the scripted demo conversation in this terminal")
    demo.add_argument("--auto", action="store_true", help="answer the prompts automatically")
    args = parser.parse_args(argv)
    from ._demo import run_terminal_demo

    return run_terminal_demo(auto=True if args.auto else None)


if __name__ == "__main__":
    raise SystemExit(main())
