"""Issue 27, the core: every stop reason, thinking kept within a turn, server blocks kept, options checked.

Responses are streamed by hand (`Raw`) as the API streams them, so these tests hold whatever the scripted
model learns; the strict scripted API checks every request the agent makes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.raw_streams import FOUND, SEARCH, THINK, Raw, run


def agent_on(*steps: Any, **kwargs: Any) -> tuple[nt.Agent, t.ScriptedTransport, list[Any]]:
    script = t.ScriptedTransport(*steps)
    kwargs.setdefault("tools", [nt.server_tool("web_search", max_uses=2)])
    agent = nt.Agent(client=script.client(max_retries=0), **kwargs)
    seen: list[Any] = []
    agent.events.subscribe(seen.append)
    return agent, script, seen


def test_pause_turn_continues_without_a_user_message_and_joins_one_assistant_message():
    agent, script, seen = agent_on(
        Raw(THINK, {"type": "text", "text": "Searching."}, SEARCH, stop="pause_turn"),
        Raw(FOUND, {"type": "text", "text": "pandas 3 is out."}),
        t.reply("You're welcome."),
        thinking="adaptive",
    )
    result = run(agent.run("What is new in pandas?"))
    assert result.stop_reason == "end_turn" and result.text == "Searching.pandas 3 is out."
    assert script.refused == [] and len(script.requests) == 2
    second = script.requests[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant"]  # continued, no "Please continue."
    assert second[-1]["content"][2] == SEARCH
    kept = agent.state.messages[-1]["content"]
    assert [b["type"] for b in kept] == [
        "thinking",
        "text",
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]
    assert kept[0] == THINK and kept[3] == FOUND  # exactly as sent, signature and encrypted content too
    assert result.thinking == "Let me look it up."
    assert [e.block["type"] for e in seen if e.type == "assistant_block"][:3] == [
        "thinking",
        "text",
        "server_tool_use",
    ]
    assert all(r.get("thinking") == {"type": "adaptive"} for r in script.requests)
    run(agent.run("thanks"))
    assert script.refused == [] and script.requests[2]["messages"][1]["content"] == kept


def test_a_message_after_a_paused_turn_gives_the_pause_up_and_is_never_lost():
    from notebook_tools.agent._notices import MAX_PAUSES

    still = Raw({"type": "text", "text": "still"}, stop="pause_turn")
    agent, script, seen = agent_on(Raw(SEARCH, stop="pause_turn"), *[still] * MAX_PAUSES, t.reply("ok"))
    result = run(agent.run("search"))
    assert result.stop_reason == "pause_turn" and "Continue" in result.advice
    notice = [e for e in seen if e.type == "turn_notice"][-1]
    assert notice.actions == ["continue"]
    result = run(agent.run("and then?"))  # the search never got its result: it goes, the message stays
    assert script.refused == [] and result.text == "ok"
    sent = script.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert (
        all(b["type"] == "text" for b in sent[1]["content"]) and sent[2]["content"][-1]["text"] == "and then?"
    )


def test_refusal_sets_the_turn_aside_and_the_next_message_starts_clean():
    details = {"type": "refusal", "category": "cyber", "explanation": "This request triggered restrictions."}
    agent, script, seen = agent_on(
        t.reply("Hi."), Raw(stop="refusal", details=details), t.reply("Sure, here.")
    )
    run(agent.run("hello"))
    result = run(agent.run("write malware"))
    assert result.stop_reason == "refusal" and result.stop_details == details and result.text == ""
    assert "cyber" in result.advice and "set aside" in result.advice
    assert [m["role"] for m in agent.state.messages] == ["user", "assistant"]
    assert agent.state.set_aside[0].messages[0]["content"][0]["text"] == "write malware"
    notice = next(e for e in seen if e.type == "turn_notice")
    assert notice.stop_details == details and "restrictions" in notice.detail
    run(agent.run("explain pandas"))
    sent = json.dumps(script.requests[-1]["messages"])
    assert "malware" not in sent and script.refused == []
    assert agent.state.usage.requests == 3  # the refused response is counted


def test_max_tokens_inside_a_tool_call_ends_the_turn_and_continue_carries_on():
    @nt.tool
    def lookup(key: str) -> str:
        """Look a key up.

        Args:
            key: The key.
        """
        return "value"

    cut = t.turn("Let me", t.tool_use("lookup", {"key": "a"}, id="toolu_cut"), stop_reason="max_tokens")
    agent, script, seen = agent_on(cut, t.reply("Done."), tools=[lookup], max_tokens=500)
    result = run(agent.run("look up a"))
    assert result.stop_reason == "max_tokens" and len(script.requests) == 1
    assert "max_tokens (500" in result.advice and "agent.max_tokens = 1000" in result.advice
    assert any(e.type == "turn_notice" and e.actions == ["continue"] for e in seen)
    result = run(agent.continue_turn())
    assert result.text == "Done." and script.refused == []
    last = script.requests[1]["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result" and last[0]["is_error"] and "cut off" in last[-1]["text"]


def test_thinking_setting_stays_the_same_for_every_request_of_a_turn_and_after_a_restart(tmp_path):
    store = nt.SQLiteStore(tmp_path / "s.db")
    think = {"type": "thinking", "thinking": "I should ask.", "signature": "sig"}
    ask = {"type": "tool_use", "id": "toolu_ask", "name": "ask_text", "input": {"prompt": "Name?"}}
    agent, _script, _ = agent_on(
        Raw(think, ask, stop="tool_use"), frontend_tools=[nt.ask_text], store=store, tools=[]
    )
    result = run(agent.run("hi", thinking=2048))
    assert result.stop_reason == "awaiting_frontend_tools"
    again, script2, _ = agent_on(
        t.reply("Hello Ada."), t.reply("bye"), frontend_tools=[nt.ask_text], store=store, tools=[]
    )
    again.load(agent.agent_uuid)
    run(again.resume([nt.ToolResult(tool_use_id="toolu_ask", content="Ada")]))
    body = script2.requests[0]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048} and script2.refused == []
    assert body["messages"][1]["content"][0] == think
    run(again.run("next"))  # a new turn: the agent's own setting (none)
    assert "thinking" not in script2.requests[1]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"thinking": 2048, "tool_choice": "any"}, "forces tool use"),
        ({"thinking": 500}, "greater than or equal to 1024"),
        ({"thinking": 9000}, "greater than `thinking.budget_tokens`"),
        ({"thinking": "adaptive", "temperature": 0.2}, "only be set to 1"),
        ({"temperature": 0.5, "top_p": 0.9}, "cannot both be specified"),
        ({"tool_choice": "no_such_tool"}, "no tool named"),
        ({"stop_sequences": ["  "]}, "non-whitespace"),
        ({"request_extra": {"messages": []}}, "set by the agent"),
        ({"effort": "extreme"}, "effort"),
    ],
)
def test_options_the_api_refuses_are_refused_before_any_request(options, words):
    agent, script, _ = agent_on(t.reply("never"), max_tokens=4096)
    with pytest.raises(nt.ConfigurationError, match=words.replace("(", r"\(").replace("`", "`")):
        run(agent.run("hi", **options))
    assert script.requests == [] and agent.state.messages == []
    with pytest.raises(nt.ConfigurationError):
        nt.Agent(client=script.client(), max_tokens=4096, **options)


def test_options_reach_the_request_and_the_conversation_is_cached():
    agent, script, _ = agent_on(
        t.reply("one"),
        t.reply("two"),
        system="SYS",
        effort="high",
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
        stop_sequences=["END"],
        metadata={"user_id": "u1"},
        service_tier="auto",
        cache_ttl="1h",
        betas=["some-beta-2026-01-01"],
        request_extra={"inference_geo": "us"},
    )
    run(agent.run("first"))
    run(agent.run("second", temperature=0.3, effort="low"))
    one, two = script.requests
    assert one["output_config"] == {"effort": "high"} and two["output_config"] == {"effort": "low"}
    assert one["tool_choice"]["disable_parallel_tool_use"] is True and one["stop_sequences"] == ["END"]
    assert one["inference_geo"] == "us" and two["temperature"] == 0.3 and "temperature" not in one
    hour = {"type": "ephemeral", "ttl": "1h"}
    assert one["system"][0]["cache_control"] == hour and one["tools"][-1]["cache_control"] == hour
    assert "cache_control" not in one and two["cache_control"] == hour  # the conversation, once there is one
    assert script.refused == []


def test_unknown_block_types_are_kept_and_sent_back():
    future = {"type": "hologram", "id": "holo_1", "payload": {"x": [1, 2]}}
    agent, script, seen = agent_on(Raw({"type": "text", "text": "Look:"}, future), t.reply("ok"))
    run(agent.run("show me"))
    assert agent.state.messages[-1]["content"][1] == future
    run(agent.run("thanks"))
    assert script.requests[1]["messages"][1]["content"][1] == future and script.refused == []
    assert any(e.type == "assistant_block" and e.block == future for e in seen)


def test_usage_counts_cache_server_tools_and_cost_per_turn_and_session():
    usage = {
        "input_tokens": 1000,
        "output_tokens": 200,
        "cache_read_input_tokens": 9000,
        "cache_creation_input_tokens": 500,
        "server_tool_use": {"web_search_requests": 2},
    }
    agent, _script, seen = agent_on(
        Raw(SEARCH, FOUND, {"type": "text", "text": "x"}, usage=usage),
        t.reply("y"),
        model="claude-sonnet-4-6",
    )
    first = run(agent.run("a"))
    rate = 3.0 / 1e6
    expected = rate * (1000 + 5 * 200 + 1.25 * 500 + 0.1 * 9000) + 2 * 0.01
    assert first.turn_usage.cost_usd == pytest.approx(expected)
    assert (
        first.usage.server_tool_use == {"web_search_requests": 2}
        and first.usage.cache_read_input_tokens == 9000
    )
    event = [e for e in seen if e.type == "usage"][-1]
    assert event.context_tokens == 10500 and event.context_window == 200_000
    second = run(agent.run("b"))
    assert second.turn_usage.requests == 1 and second.usage.requests == 2
    assert second.usage.cost_usd == pytest.approx(first.usage.cost_usd + second.turn_usage.cost_usd)


def test_server_tools_are_declared_by_helper_or_as_sdk_params_and_client_run_ones_are_refused():
    assert nt.server_tool("web_search", max_uses=3)["type"].startswith("web_search_2")
    assert nt.server_tool("web_search", version="20250305") == {
        "type": "web_search_20250305",
        "name": "web_search",
    }
    with pytest.raises(nt.ToolDefinitionError, match="takes no colour"):
        nt.server_tool("web_fetch", colour="red")
    with pytest.raises(nt.ToolDefinitionError, match="no API-defined tool"):
        nt.server_tool("teleport")
    with pytest.raises(nt.ToolDefinitionError, match="memory_tool"):
        nt.Agent(client=t.ScriptedTransport().client(), tools=[{"type": "memory_20250818", "name": "memory"}])
    agent, script, _ = agent_on(
        t.reply("ok"), tools=[{"type": "web_fetch_20250910", "name": "web_fetch", "max_uses": 1}]
    )
    run(agent.run("go"))
    assert script.requests[0]["tools"][0]["name"] == "web_fetch" and script.refused == []


def test_a_tool_calls_null_arguments_are_kept_exactly():
    call = {"type": "tool_use", "id": "toolu_n", "name": "pick", "input": {"color": "red", "alt": None}}

    @nt.tool
    def pick(color: str, alt: str | None = None) -> str:
        """Pick.

        Args:
            color: A colour.
            alt: Another, or null.
        """
        return f"{color}/{alt}"

    agent, script, _ = agent_on(Raw(call, stop="tool_use"), t.reply("ok"), tools=[pick])
    run(agent.run("pick"))
    assert agent.state.messages[1]["content"][0]["input"] == {"color": "red", "alt": None}
    assert script.requests[1]["messages"][1]["content"][0]["input"] == {"color": "red", "alt": None}
    assert t.answers_in(script.requests[1]) == {"pick": "red/None"}


def test_a_forced_tool_choice_is_for_the_first_request_of_the_turn_only():
    @nt.tool
    def lookup(key: str) -> str:
        """Look a key up.

        Args:
            key: The key.
        """
        return "value"

    call = t.turn(t.tool_use("lookup", {"key": "a"}))
    agent, script, _ = agent_on(call, t.reply("Done."), call, t.reply("Again."), tools=[lookup])
    run(
        agent.run(
            "look it up", tool_choice={"type": "tool", "name": "lookup", "disable_parallel_tool_use": True}
        )
    )
    first, second = script.requests
    assert first["tool_choice"] == {"type": "tool", "name": "lookup", "disable_parallel_tool_use": True}
    assert second["tool_choice"] == {
        "type": "auto",
        "disable_parallel_tool_use": True,
    }  # else: forced forever
    run(agent.run("and again", tool_choice="any"))  # a new turn is forced again
    assert script.requests[2]["tool_choice"] == {"type": "any"} and script.requests[3]["tool_choice"] == {
        "type": "auto"
    }
    assert script.refused == []
