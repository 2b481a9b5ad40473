"""What "Claude" answered when the example notebooks' cassettes were recorded.

There is no real key where the cassettes are made, so each notebook is recorded against the
Messages API stand-in (tests/support/messages_standin.py) serving one of these scripts: the turns the
notebook once wrote by hand. Each function returns a fresh script (a script is used up as it runs).
"""

from __future__ import annotations

from typing import Any

from notebook_tools import testing as t

__all__ = [
    "STANDINS",
    "claude_code_edit",
    "clean_a_dataframe",
    "explore_penguins",
    "mcp_servers",
    "thinking_and_web_search",
]


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


WHATSNEW = ("What's new in 3.0.0", "https://pandas.pydata.org/docs/whatsnew/v3.0.0.html")
COW = ("Copy-on-Write (CoW)", "https://pandas.pydata.org/docs/user_guide/copy_on_write.html")
STRINGS = (
    "Migration guide for the new string data type",
    "https://pandas.pydata.org/docs/user_guide/migration-3-strings.html",
)
STORES = 40
"""Stores the long session of notebook 10 goes through, one tool call each."""
FLAGGED = (
    "Three stores stand out. Store 9 sold nothing from 14:00 on (a till or the card reader was down?). "
    "Store 23's revenue is about five times its orders' worth: prices entered in cents? Store 31 has "
    "negative revenue at 16:00, a refund batch. The other 37 look normal."
)


def thinking_and_web_search() -> t.ScriptedTransport:
    """notebooks/10_thinking_and_web_search.ipynb: think, search and cite; then a 40-store review."""
    rewritten = (
        "```python\n"
        "def clean(df):\n"
        '    """Yesterday\'s cleaning steps, for pandas 3."""\n'
        "    df = df.copy()\n"
        '    df.loc[df["price"] < 0, "price"] = 0\n'
        '    text = df.select_dtypes(include="str").columns\n'
        "    df[text] = df[text].apply(lambda s: s.str.strip())\n"
        "    return df\n"
        "```\n"
        'One `.loc` call sets the values in place, and `select_dtypes(include="str")` picks the text columns.'
    )
    return t.ScriptedTransport(
        t.turn(
            t.thinking(
                "They ask whether `clean` survives pandas 3. I have not seen the function yet, so I should "
                "read it rather than guess. pandas 3.0 changed defaults that silently alter results rather "
                "than raise: Copy-on-Write became the only mode, which ends chained assignment, and strings "
                "got a dedicated `str` dtype instead of `object`. Some deprecated arguments are gone too, like "
                "`fillna(method=...)`. My memory of the exact wording "
                "may be off, so I will search the release notes and cite them, then compare each line of "
                "the function against what changed. Read the source and search in the same step."
            ),
            "Let me read `clean` and check the pandas 3.0 release notes.",
            t.web_search(
                "pandas 3.0 breaking changes copy-on-write string dtype",
                [(*WHATSNEW, "2 months ago"), (*COW, "2 months ago"), (*STRINGS, "2 months ago")],
            ),
            t.tool_use("source_of", {"function": "clean"}),
        ),
        t.turn(
            t.thinking(
                'The function assigns through `df["price"][mask]`, a chained assignment: under '
                "Copy-on-Write it changes a temporary copy and `df` keeps its negative prices, with only a "
                'warning. It finds text columns with `df.dtypes == "object"`, which is False for the new '
                "`str` dtype, so no column is stripped. `df.copy()` and `.apply` are fine. Two lines to "
                "change, no error raised by either: worth saying plainly, with the sources."
            ),
            "Two lines of `clean` break on pandas 3:\n\n",
            t.cited(
                '`df["price"][df["price"] < 0] = 0` no longer changes `df`: Copy-on-Write is the default, '
                "and chained assignment never updates the original DataFrame.",
                [(*COW, "With Copy-on-Write, chained assignment will never work.")],
            ),
            "\n\n",
            t.cited(
                '`df.dtypes == "object"` finds no text column: strings now have the `str` dtype, so nothing '
                "gets stripped.",
                [(*WHATSNEW, "pandas 3.0 infers a dedicated string data type by default.")],
            ),
            "\n\nAsk me to rewrite it if you like.",
        ),
        t.turn(
            t.thinking("Replace the chained assignment with .loc, and select the text columns by dtype."),
            rewritten,
        ),
        t.reply(
            'Look for two more things. `inplace=True` on a column, as in `df["a"].fillna(0, inplace=True)`, '
            'no longer changes `df` either: assign the result instead. And `fillna(method="ffill")` is '
            "gone: call `.ffill()` or `.bfill()`."
        ),
        *[t.turn(t.tool_use("store_sales", {"store": n})) for n in range(1, STORES + 1)],
        t.reply(FLAGGED),
    )


def mcp_servers() -> t.ScriptedTransport:
    """notebooks/11_mcp.ipynb: server-everything's tools, a long call, its form and its sampling request."""
    return t.ScriptedTransport(
        t.turn("Let me look at what the server offers.", t.tool_use("everything")),
        t.turn(
            t.tool_use("echo", {"message": "Hello from the notebook"}),
            t.tool_use("get-sum", {"a": 2, "b": 3}),
        ),
        t.reply(
            "The server echoed *Hello from the notebook* back and says 2 + 3 = 5. It also has tools for "
            "images, resources, long operations, and asking you or me things."
        ),
        t.turn(t.tool_use("trigger-long-running-operation", {"duration": 2, "steps": 4})),
        t.reply("Done: the operation ran its 4 steps in 2 seconds."),
        t.turn(t.tool_use("trigger-elicitation-request", {})),
        t.reply("The server has your details now."),
        t.turn(
            t.tool_use(
                "trigger-sampling-request", {"prompt": "Write a haiku about notebooks.", "maxTokens": 60}
            )
        ),
        t.reply(
            "Cells wait in a row,\nthe kernel hums, a plot blooms:\nrun it all again."
        ),  # the server's request
        t.reply("The server asked me for a haiku and got one back (you allowed both steps)."),
    )


def mcp_app() -> t.ScriptedTransport:
    """notebooks/12_mcp_app.ipynb: the counter app shown, and the reply to the message its app sent."""
    return t.ScriptedTransport(
        t.turn("Here is a counter.", t.tool_use("counter")),
        t.turn(t.tool_use("show_counter", {"start": 3})),
        t.reply("The counter is in the card above, at 3: its buttons are yours."),
        t.reply("Thanks: the counter shows 1."),  # the app's message, sent as the person's
    )


def explore_penguins() -> t.ScriptedTransport:
    """notebooks/13_kernel_tools.ipynb: look at the penguins, ask to see rows, clean (edited), derive a column."""
    return t.ScriptedTransport(
        t.turn("Let me see what is in the notebook first.", t.tool_use("list_variables")),
        t.turn(
            "`df` is the penguins table. Its aggregates:", t.tool_use("describe_variable", {"name": "df"})
        ),
        t.turn(
            "Some rows have gaps (11 in `sex`, 2 in the measurements). A few rows would show what they look like:",
            t.tool_use("run_code", {"code": "df[df.isna().any(axis=1)].head()", "purpose": "rows with gaps"}),
        ),
        t.turn(
            "I will drop the rows with missing values.",
            t.tool_use("run_code", {"code": "df = df.dropna()", "purpose": "drop rows with gaps"}),
        ),
        t.turn(
            "Now a bill shape ratio and the species as a category:",
            t.tool_use(
                "run_code",
                {
                    "code": "df_clean['bill_ratio'] = (df_clean.bill_length_mm / df_clean.bill_depth_mm).round(3)\n"
                    "df_clean['species'] = df_clean['species'].astype('category')\n"
                    "df_clean.groupby('species', observed=True).bill_ratio.mean().round(2)",
                    "purpose": "add bill_ratio; species as category",
                },
            ),
        ),
        t.reply(
            "Done. `df_clean` holds the 333 complete rows (your `df` is untouched, as you edited my run to keep "
            "it), with `bill_ratio` and `species` as a category. Gentoo have the longest bills for their depth."
        ),
        t.reply(
            "Understood: `df_clean` is back to the 333 complete rows without `bill_ratio`, and `species` is text "
            "again. Tell me if you want the ratio computed another way."
        ),
    )


def claude_code_edit() -> t.ScriptedTransport:
    """notebooks/14_claude_code.ipynb: the real Claude Code CLI reads notes.md and fixes its spelling (an Edit).

    The CLI thinks (a signed thinking block before each tool call, as the API wants with thinking on)
    and gives the paths as the notebook's project knows them, relative to its folder (the CLI makes
    them absolute before it asks).
    """
    from tests.support.claude_code_standin import calls

    return t.ScriptedTransport(
        calls(t.tool_use("Read", {"file_path": "notes.md"}), text="Let me read notes.md first."),
        calls(
            t.tool_use("Edit", {"file_path": "notes.md", "old_string": "thier", "new_string": "their"}),
            text='One spelling mistake: "thier". I will fix it.',
        ),
        t.reply('Fixed: "thier" is now "their" in notes.md.'),
    )


STANDINS = {
    "02_clean_a_dataframe.ipynb": clean_a_dataframe,
    "10_thinking_and_web_search.ipynb": thinking_and_web_search,
    "11_mcp.ipynb": mcp_servers,
    "12_mcp_app.ipynb": mcp_app,
    "13_kernel_tools.ipynb": explore_penguins,
    "14_claude_code.ipynb": claude_code_edit,
}
"""The notebooks recorded from a cassette, and the script each is recorded against."""
