import asyncio

import notebook_tools as nt
from notebook_tools import testing as t


def test_paused_state_round_trips_through_json_exactly(make_agent):
    agent, _ = make_agent(
        t.turn(
            "Let me check.",
            t.tool_use("add", {"a": 1, "b": 2}),
            t.tool_use("select_option", {"prompt": "Which?", "options": ["a", "b"]}),
        ),
    )
    asyncio.run(agent.run("go"))
    state = agent.state
    assert state.status == "awaiting_frontend_tools"
    dumped = state.model_dump_json()
    again = nt.AgentState.model_validate_json(dumped)
    assert again == state
    assert again.model_dump_json() == dumped
    assert again.held_results[0].content == "3"
