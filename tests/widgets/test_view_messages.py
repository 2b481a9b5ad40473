"""The widget's message entry point under random and malformed input: it never raises into the
kernel, and a refused message changes nothing but the error line."""

import asyncio
import contextlib
import copy

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.browser_double import FakeView, until

TYPES = [
    "hello", "ping", "bye", "retry", "manual_tool", "clear", "send", "stop", "answer",
    "upload_start", "upload_chunk", "list_dir", "plugin", "nope", "",
]  # fmt: skip
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 2**40), st.floats(allow_nan=True), st.text(max_size=12)
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
keys = st.sampled_from(
    ["type", "tool_use_id", "answer", "text", "name", "input", "request_id", "upload_id", "seq", "size",
     "path", "view_id", "media_type", "value", "skip", "action"]
)  # fmt: skip
messages = st.one_of(
    values,
    st.dictionaries(keys, values, max_size=5),
    st.builds(lambda kind, rest: {**rest, "type": kind}, st.sampled_from(TYPES), st.dictionaries(keys, values, max_size=4)),
)  # fmt: skip


def snapshot(chat, agent):
    """What a refused message must leave alone (a refusal may only set the error line and a prompt's error)."""
    state = copy.deepcopy(chat.view.get_state())
    state.pop("error", None)
    for prompt in state.get("prompts", {}).values():
        prompt.pop("error", None)
    prompts = {k: p.model_dump(exclude={"error"}) for k, p in chat.broker.prompts.items()}
    return state, agent.state.model_dump_json(), prompts


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(messages, min_size=1, max_size=6), buffers=st.lists(st.binary(max_size=16), max_size=2))
def test_random_view_messages_never_raise_and_refused_ones_change_nothing(
    make_agent, tmp_path_factory, batch, buffers
):
    script = t.ScriptedTransport(
        t.turn(t.tool_use("user_confirm", {"message": "Go?"}, id="c1")), t.reply("ok")
    )
    agent = nt.Agent(client=script.client(), model="claude-test", frontend_tools=[nt.user_confirm])
    chat = nt.Chat(agent, root=tmp_path_factory.mktemp("root"))
    view = FakeView(chat)

    async def main():
        task = chat.send_nowait("go")
        await until(lambda: "c1" in chat.prompts)
        for message in batch:
            before = snapshot(chat, agent)
            errors = len(chat.errors)
            view.custom(message, buffers)  # raises nothing, whatever it is
            for _ in range(10):  # let what an accepted message started settle (a Stop takes a few steps)
                await asyncio.sleep(0)
            if len(chat.errors) > errors:
                event("refused")
                assert snapshot(chat, agent) == before, message  # refused: nothing changed
        chat.stop()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert script.refused == []
