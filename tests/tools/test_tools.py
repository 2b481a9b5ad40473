import asyncio
import threading
from typing import Literal

import pydantic
import pytest

import notebook_tools as nt


def test_bare_decorator_builds_schema_from_hints_and_google_docstring():
    @nt.tool
    def drop_nulls(column: str, how: Literal["any", "all"] = "any") -> str:
        """Drop rows whose `column` is null.

        Args:
            column: Name of the DataFrame column.
            how: Drop when any or all values are null.
        """
        return column

    assert isinstance(drop_nulls, nt.Tool)
    assert drop_nulls.description == "Drop rows whose `column` is null."
    schema = drop_nulls.input_schema
    assert schema["required"] == ["column"]
    assert schema["properties"]["column"]["description"] == "Name of the DataFrame column."
    assert schema["properties"]["how"]["enum"] == ["any", "all"]
    assert drop_nulls.to_dict() == {
        "name": "drop_nulls",
        "description": drop_nulls.description,
        "input_schema": schema,
    }
    assert drop_nulls.executor == "backend" and drop_nulls.timeout is None
    assert drop_nulls("x") == "x"  # still callable as the function


def test_options_are_carried_as_metadata():
    def rule(args):
        return args["n"] > 3

    @nt.tool(
        name="sample_rows",
        description="Take a sample.",
        mode="both",
        needs_approval=rule,
        timeout=5,
        category="data",
        tags=["pandas"],
        icon="table",
        version="2",
    )
    def f(n: int) -> str:
        return str(n)

    meta = f.metadata()
    assert meta["name"] == "sample_rows" and meta["description"] == "Take a sample."
    assert (meta["mode"], meta["timeout"], meta["category"], meta["tags"], meta["icon"], meta["version"]) == (
        "both",
        5.0,
        "data",
        ["pandas"],
        "table",
        "2",
    )
    assert meta["needs_approval"] == "conditional"
    assert asyncio.run(f.needs_approval_for({"n": 10})) is True
    assert asyncio.run(f.needs_approval_for({"n": 1})) is False


def test_frontend_tool_is_schema_only_with_return_contract_in_description():
    @nt.tool(executor="frontend")
    def pick_color() -> str:
        """Ask the user to pick a color.

        Returns:
            JSON string {"hex": "#RRGGBB"}
        """

    assert pick_color.executor == "frontend"
    assert pick_color.timeout is None  # a person answers when ready: no timeout unless the author sets one
    assert 'Returns: JSON string {"hex": "#RRGGBB"}' in pick_color.description
    with pytest.raises(nt.ToolDefinitionError, match="frontend tool"):
        pick_color()


def test_bad_declarations_are_refused():
    def f(x: int) -> int:
        return x

    with pytest.raises(nt.ToolDefinitionError, match="executor"):
        nt.tool(executor="browser")(f)
    with pytest.raises(nt.ToolDefinitionError, match="mode"):
        nt.tool(mode="auto")(f)
    with pytest.raises(nt.ToolDefinitionError, match="timeout"):
        nt.tool(timeout=-1)(f)
    with pytest.raises(nt.ToolDefinitionError, match="name"):
        nt.tool(name="has space")(f)


def test_input_errors_name_the_field():
    assert nt.user_confirm.input_errors({"message": "ok?"}) == []
    errors = nt.user_confirm.input_errors({"confirm_label": 3})
    assert any("'message' is a required property" in e for e in errors)
    assert any(e.startswith("confirm_label:") for e in errors)
    assert nt.user_confirm.input_errors([1]) == ["the input must be a JSON object, not list"]


def test_output_schema_checks_text_or_json():
    assert nt.user_confirm.output_errors("yes") == []
    assert nt.user_confirm.output_errors("maybe")
    model_tool = nt.tool(
        executor="frontend", name="hexer", output_schema={"type": "object", "required": ["hex"]}
    )(lambda: None)
    assert model_tool.output_errors('{"hex": "#fff"}') == []
    assert "JSON" in model_tool.output_errors("not json")[0]
    assert model_tool.output_errors("{}") == ["'hex' is a required property"]

    class Color(pydantic.BaseModel):
        hex: str

    pyd = nt.tool(executor="frontend", name="color", output_schema=Color)(lambda: None)
    assert pyd.output_schema["required"] == ["hex"]


def test_sync_tools_run_off_the_event_loop_thread_and_async_tools_on_it():
    seen = {}

    @nt.tool
    def sync_tool() -> str:
        seen["sync"] = threading.get_ident()
        return "s"

    @nt.tool
    async def async_tool() -> str:
        seen["async"] = threading.get_ident()
        return "a"

    async def main():
        assert await sync_tool.invoke({}) == "s"
        assert await async_tool.invoke({}) == "a"
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert seen["sync"] != loop_thread
    assert seen["async"] == loop_thread


def test_builtins_have_stable_names_and_contracts():
    names = [t.name for t in (nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file)]
    assert names == ["user_confirm", "ask_text", "select_option", "pick_file"]
    assert all(
        t.executor == "frontend" for t in (nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file)
    )
    assert nt.select_option.input_schema["properties"]["options"]["minItems"] == 1
    assert "JSON list" in nt.select_option.description
    assert nt.ask_text.input_schema["properties"]["multiline"]["default"] is False
    assert nt.pick_file.display == {"prompt": "file"}
