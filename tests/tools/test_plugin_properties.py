"""Property-based: any sequence of tool-set operations leaves a session whose requests the API accepts,
whose tool set follows from its state alone, and which a restart reproduces exactly."""

import asyncio
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from tests.tools.test_plugins import cleaning, database, dedupe, plotting, whoami

PLUGINS = ["cleaning", "plotting", "database", "ghost"]  # ghost: never registered
TOOLS = ["whoami", "drop_nulls", "rename", "dedupe", "histogram", "scatter", "query", "drop_table", "nope"]
CALLABLE = [*PLUGINS, "quick_clean", *TOOLS, "change"]

CHANGE: dict[str, nt.Augmentation] = {}


@nt.tool
def change() -> nt.Augmented:
    """Change the tool set as the test says."""
    return nt.Augmented("changed", CHANGE["next"])


def _ordered_unique(values):
    return list(dict.fromkeys(values))


augmentations = st.builds(
    lambda **kw: nt.Augmentation(**{k: _ordered_unique(v) for k, v in kw.items()}),
    inject=st.lists(st.sampled_from(PLUGINS), max_size=2),
    remove=st.lists(st.sampled_from(PLUGINS), max_size=2),
    expand=st.lists(st.sampled_from(PLUGINS), max_size=2),
    collapse=st.lists(st.sampled_from(PLUGINS), max_size=2),
    hide=st.lists(st.sampled_from(TOOLS), max_size=2),
    show=st.lists(st.sampled_from(TOOLS), max_size=2),
)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("call"), st.lists(st.sampled_from(CALLABLE), min_size=1, max_size=3)),
        st.tuples(st.just("augment"), augmentations),
        st.tuples(st.just("by_hand"), st.sampled_from(["expand", "collapse"]), st.sampled_from(PLUGINS)),
        st.tuples(st.just("reset")),
        st.tuples(st.just("restart")),
    ),
    min_size=1,
    max_size=8,
)


def build(store, script):
    return nt.Agent(
        client=script.client(),
        model="claude-test",
        tools=[whoami, change],
        plugins=[cleaning(), plotting()],
        available_plugins=[database()],
        store=store,
        system="S",
    )


def offered(agent):
    return [d["name"] for d in agent.tool_definitions()]


def check(agent, store):
    state = agent.state
    names = offered(agent)
    assert len(names) == len(set(names))
    toolset = agent.toolset
    for name, plugin in toolset.plugins.items():
        present = toolset.present(state.toolset, name)
        collapsed = present and not toolset.expanded(state.toolset, name)
        opens_something = any(toolset.visible(state.toolset, t.name) for t in plugin.model_tools)
        assert (name in names) == (
            collapsed and opens_something
        )  # a container that opens nothing is not offered
        for tool in plugin.model_tools:
            if tool.name in names:
                assert present and toolset.visible(state.toolset, tool.name)
    # Overrides never restate a default: two ways to the same tool set are the same state.
    assert all(v != (k in {"cleaning", "plotting"}) for k, v in state.toolset.plugins.items())
    assert all(v != (not toolset.plugins[k].start_collapsed) for k, v in state.toolset.expanded.items())
    assert all(v is False for v in state.toolset.tools.values())  # nothing is hidden by default here
    assert nt.AgentState.model_validate_json(state.model_dump_json()) == state
    # A new process with the same definitions offers exactly the same request.
    if store.load(state.agent_uuid) is None:
        return  # nothing saved yet (no message, no change)
    other = build(store, t.ScriptedTransport())
    other.load(state.agent_uuid)
    assert other.tool_definitions() == agent.tool_definitions()
    assert other.system_prompt() == agent.system_prompt()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_any_sequence_of_tool_set_operations_keeps_requests_valid_and_restartable(ops):
    store = nt.InMemoryStore()
    script = t.ScriptedTransport()
    agent = build(store, script)
    for op in ops:
        if op[0] == "call":
            CHANGE["next"] = nt.Augmentation()
            script.add(t.turn(*(t.tool_use(name, {}) for name in op[1])), t.reply("ok"))
            result = asyncio.run(agent.run("go"))
            assert result.stop_reason == "end_turn"
        elif op[0] == "augment":
            CHANGE["next"] = op[1]
            before = agent.state.toolset
            script.add(t.turn(t.tool_use("change", {})), t.reply("ok"))
            asyncio.run(agent.run("go"))
            problems = agent.toolset.check(op[1])
            last_results = script.requests[-1]["messages"][-1]["content"]
            text = json.dumps(last_results)
            if problems and "change" in {d["name"] for d in script.requests[-2]["tools"]}:
                assert "was refused" in text and agent.state.toolset == before
        elif op[0] == "by_hand":
            _, action, name = op
            try:
                getattr(agent, f"{action}_plugin")(name)
            except nt.ToolDefinitionError:
                assert not agent.toolset.present(agent.state.toolset, name)
        elif op[0] == "reset":
            agent.reset_toolset()
            assert agent.state.toolset == nt.ToolsetState()
        elif store.load(agent.agent_uuid) is not None:
            uuid = agent.agent_uuid
            agent = build(store, script)
            agent.load(uuid)
        assert not script.refused, script.refused  # the API accepted every request
        check(agent, store)


def test_dedupe_is_offered_once_when_skill_and_plugin_both_offer_it():
    # A skill active while its plugin is expanded: its tools are not offered twice.
    script = t.ScriptedTransport(
        t.turn(t.tool_use("quick_clean", {}), t.tool_use("cleaning", {})), t.reply("ok"), t.reply("ok")
    )
    agent = build(nt.InMemoryStore(), script)
    asyncio.run(agent.run("go"))
    asyncio.run(agent.run("again"))
    names = [d["name"] for d in script.requests[-1]["tools"]]
    assert names.count(dedupe.name) == 1 and "whoami" in names and whoami.name == "whoami"
