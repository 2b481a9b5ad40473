"""The built-in frontend tools: schema-only prompts a person answers in the browser.

Their docstrings are what the model reads, so each states precisely what the
tool returns. `display["prompt"]` tells a UI which renderer to use.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._tool import tool

__all__ = ["BUILTIN_FRONTEND_TOOLS", "ask_text", "pick_file", "select_option", "user_confirm"]


@tool(
    executor="frontend",
    output_schema={"type": "string", "enum": ["yes", "no"]},
    category="prompt",
    icon="check",
    display={"prompt": "confirm"},
)
def user_confirm(message: str, confirm_label: str = "Yes", deny_label: str = "No") -> str:
    """Ask the user a yes/no question and wait for the answer.

    Use it before anything the user may not want: deleting or overwriting data,
    long or costly work, or when the request is ambiguous.

    Args:
        message: The question, phrased so that "yes" means go ahead.
        confirm_label: Text of the button that answers "yes".
        deny_label: Text of the button that answers "no".

    Returns:
        Exactly "yes" or "no".
    """


@tool(
    executor="frontend",
    output_schema={"type": "string"},
    category="prompt",
    icon="edit",
    display={"prompt": "text"},
)
def ask_text(prompt: str, placeholder: str = "", default: str = "", multiline: bool = False) -> str:
    """Ask the user to type a piece of text (a name, a value, a short explanation).

    Args:
        prompt: What to ask for.
        placeholder: Hint shown in the empty text box.
        default: Text the box starts with.
        multiline: True for a multi-line box (paragraphs, code, lists).

    Returns:
        The text the user typed, as is (possibly empty).
    """


@tool(executor="frontend", category="prompt", icon="list", display={"prompt": "select"})
def select_option(
    prompt: str,
    options: Annotated[list[str], Field(min_length=1)],
    multiple: bool = False,
) -> str:
    """Ask the user to choose from a list of options.

    Args:
        prompt: What the choice is about.
        options: The options to show, each a short label.
        multiple: True to let the user choose several.

    Returns:
        The chosen option exactly as given; when multiple is true, a JSON list of the chosen options.
    """


@tool(executor="frontend", category="prompt", icon="file", display={"prompt": "file"})
def pick_file(prompt: str, accept: str = "", multiple: bool = False) -> str:
    """Ask the user to choose a file: uploaded from their computer or picked from the working directory.

    Args:
        prompt: Which file is wanted and why.
        accept: Comma-separated file types to allow, e.g. ".csv,.tsv" or "image/*"; empty allows any.
        multiple: True to let the user choose several files.

    Returns:
        A JSON list with one object per file: {"name", "path", "size", "media_type"}, where path
        is where the kernel saved it; text files also come inline, images as image blocks, and
        CSV/TSV files with a short preview.
    """


BUILTIN_FRONTEND_TOOLS = (user_confirm, ask_text, select_option, pick_file)
