"""What "Claude" answered when the example notebooks' cassettes were recorded.

There is no real key where the cassettes are made, so each notebook is recorded against the
Messages API stand-in (tests/support/messages_standin.py) serving one of these scripts: the turns the
notebook once wrote by hand. Each function returns a fresh script (a script is used up as it runs).
"""

from __future__ import annotations

from typing import Any

from notebook_tools import testing as t

__all__ = ["STANDINS", "clean_a_dataframe"]


def clean_a_dataframe() -> t.ScriptedTransport:
    """notebooks/02_clean_a_dataframe.ipynb: look, confirm the drop, pick a column, convert and rename it."""
    chosen: dict[str, str] = {}

    def after_confirm(request: dict[str, Any]) -> t.Turn:
        steps = [t.tool_use("drop_duplicates")] if t.answers_in(request).get("user_confirm") == "yes" else []
        return t.turn(
            *steps,
            t.tool_use(
                "select_option", {"prompt": "Which column should be numeric?", "options": ["price", "qty"]}
            ),
        )

    def after_select(request: dict[str, Any]) -> t.Turn:
        column = chosen["column"] = t.answers_in(request)["select_option"]
        return t.turn(
            t.tool_use("to_numeric", {"column": column}),
            t.tool_use(
                "ask_text", {"prompt": f"New name for the `{column}` column?", "default": f"{column}_num"}
            ),
        )

    def after_name(request: dict[str, Any]) -> t.Turn:
        new_name = t.answers_in(request)["ask_text"]
        return t.turn(t.tool_use("rename_column", {"old": chosen["column"], "new": new_name}))

    return t.ScriptedTransport(
        t.turn("Let me look at the data first.", t.tool_use("describe")),
        t.turn(
            "There is 1 duplicate row, `price` is stored as text, and two columns have gaps.",
            t.tool_use(
                "user_confirm",
                {"message": "Drop the 1 duplicate row?", "confirm_label": "Drop it", "deny_label": "Keep it"},
            ),
        ),
        after_confirm,
        after_select,
        after_name,
        t.reply(
            "Done: the duplicate is gone, the column is numeric and renamed. "
            "`n/a` became a missing value, so you may want to fill or drop it next."
        ),
    )


STANDINS = {"02_clean_a_dataframe.ipynb": clean_a_dataframe}
"""The notebooks recorded from a cassette, and the script each is recorded against."""
