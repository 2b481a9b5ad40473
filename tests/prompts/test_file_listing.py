"""The file picker's listing of the kernel's folder: which files a prompt's `accept` takes, and what is never offered.

The kernel reads `accept` one way for the listing, the answer check and the terminal: every
spelling of an extension is the same rule, and a MIME rule matches the type a file's name implies
(a file in the folder has no browser-declared type). Names are untrusted: nothing resolves outside
the root, through `..` or a link.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from notebook_tools.prompts import FileAccessError, FileInbox
from notebook_tools.prompts._accept import accept_rules, accepts


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    (root / "prices.csv").write_text("item,price\n")
    (root / "Q3 EXPORT.CSV").write_text("a\n")
    (root / "notes.txt").write_text("text")
    (root / "swatch.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / ".env.csv").write_text("SECRET=1\n")
    (root / "data" / "more.csv").write_text("x\n")
    (tmp_path / "outside.csv").write_text("not yours\n")
    os.symlink(tmp_path / "outside.csv", root / "escape.csv")  # a link out of the root
    os.symlink(tmp_path, root / "up")  # a folder link out of the root
    os.symlink(root / "prices.csv", root / "alias.csv")  # a link that stays inside
    return root


def names(listing: dict) -> list[str]:
    return [e["name"] for e in listing["entries"]]


@pytest.mark.parametrize("accept", [".csv", "csv", "*.csv", "CSV", " .Csv ", "text/csv", ".tsv, .csv"])
def test_every_spelling_of_csv_lists_the_csv_files_beside_the_notebook(folder: Path, accept: str) -> None:
    listing = FileInbox(root=folder).listing("", accept)
    assert names(listing) == ["data", "alias.csv", "prices.csv", "Q3 EXPORT.CSV"]
    assert listing["folder"] == str(folder.resolve())
    assert listing["other"] == 2  # notes.txt, swatch.png
    assert listing["hidden"] == 2  # .env.csv, escape.csv: never offered, only counted (so is up/)
    csv = next(e for e in listing["entries"] if e["name"] == "prices.csv")
    assert csv == {
        "name": "prices.csv",
        "path": "prices.csv",
        "is_dir": False,
        "size": 11,
        "media_type": "text/csv",
    }


def test_a_mime_filter_matches_by_the_name_and_no_filter_lists_every_file(folder: Path) -> None:
    inbox = FileInbox(root=folder)
    assert names(inbox.listing("", "image/*")) == ["data", "swatch.png"]
    assert names(inbox.listing("", "image/png, .txt")) == ["data", "notes.txt", "swatch.png"]
    every = inbox.listing("", "")
    assert names(every) == ["data", "alias.csv", "notes.txt", "prices.csv", "Q3 EXPORT.CSV", "swatch.png"]
    assert every["other"] == 0 and names(inbox.listing("", "*/*")) == names(every)
    sub = inbox.listing("data", ".csv")
    assert [e["path"] for e in sub["entries"]] == ["data/more.csv"] and sub["folder"] == str(
        folder.resolve() / "data"
    )
    assert inbox.list_dir("", ".png") == [e for e in every["entries"] if e["name"] in ("data", "swatch.png")]


@pytest.mark.parametrize(
    "path", ["..", "../outside.csv", "data/../..", "up", "up/outside.csv", "escape.csv", "/etc", "a\x00b"]
)
def test_nothing_outside_the_root_is_listed_or_picked(folder: Path, path: str) -> None:
    inbox = FileInbox(root=folder)
    with pytest.raises(FileAccessError):
        inbox.listing(path, "")
    with pytest.raises(FileAccessError):
        inbox.workspace_file(path)
    assert len(inbox.files) == 0


def test_a_pick_inside_the_root_resolves_to_its_real_path(folder: Path) -> None:
    inbox = FileInbox(root=folder)
    record = inbox.workspace_file("alias.csv")  # a link that stays inside: its target, by real path
    assert record.path == str((folder / "prices.csv").resolve()) and record.media_type == "text/csv"
    with pytest.raises(FileAccessError, match="not a folder"):
        inbox.listing("prices.csv", "")
    with pytest.raises(FileAccessError, match="not a file"):
        inbox.workspace_file("data")


def test_accept_rules_read_every_spelling_the_same_way() -> None:
    assert accept_rules("csv, *.TSV, .Json ,image/*,, text/csv") == [
        ".csv",
        ".tsv",
        ".json",
        "image/*",
        "text/csv",
    ]
    assert accept_rules("") == [] and accept_rules("*") == [] and accept_rules(".csv, */*") == []
    assert accepts("csv", "Data.CSV") and not accepts("csv", "data.csv.txt")
    assert accepts("text/csv", "upload.bin", "text/csv")  # an upload's declared type counts too
    assert accepts("image/*", "photo.JPG") and not accepts("image/*", "notes.txt", "text/plain")
    assert not accepts("image/*", "mystery", "")  # no type known: a MIME rule does not match


def test_the_terminal_names_the_files_the_filter_takes(folder: Path) -> None:
    from notebook_tools.events import Prompt
    from notebook_tools.terminal._ask import Asker
    from notebook_tools.terminal._input import Lines
    from notebook_tools.terminal._render import Screen, make_console

    asker = Asker(Lines([], lambda _text: None), Screen(make_console()), {}, FileInbox(root=folder))
    for accept, shown in ((".csv", "alias.csv, prices.csv, Q3 EXPORT.CSV"), ("image/*", "swatch.png")):
        args = {"prompt": "?", "accept": accept}
        prompt = Prompt(tool_use_id="f", name="pick_file", kind="file", input=args, requested_at=0.0)
        assert f"here: {shown}" in asker.details(prompt)
