"""What leaves the kernel: canary values reach the API only as the person approved them, exactly.

A DataFrame of unique canary values (strings, 9-digit integers, long floats) is worked on in random
sessions: listings, descriptions, runs that print, return frames, raise with a value in the
message, change cells, and draw. Every request the scripted API received is searched for every
canary. Under the default policy with nobody to ask, and under "aggregates", none may appear; with a
person answering each consent card at random, a canary may appear only inside content the person
was shown and chose to send, and never from a column they masked.
"""

import asyncio
import json
import uuid

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.frontend import FrontendSession

RUNS = [
    "print(df.head(3))",
    "df.tail(2)",
    "df[['name']].sample(2, random_state=1)",
    "raise KeyError(df['name'].iloc[0])",
    "df.loc[df.index[0], 'num'] = -1",
    "print(df['email'].tolist()[:2])",
    "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.plot(df['num'])\nNone",
    "total = int(df['num'].sum())\nprint('rows', len(df))",
]


def canary_frame(rows=6):
    rng = np.random.default_rng(7)
    return pd.DataFrame(
        {
            "name": [f"CANARY{uuid.uuid4().hex[:10]}" for _ in range(rows)],
            "email": [f"c{uuid.uuid4().hex[:8]}@canary.example" for _ in range(rows)],
            "num": rng.integers(100_000_000, 999_999_999, rows),
            "score": rng.random(rows) * 1000 + 0.123456789,
        }
    )


def canaries(frame):
    found = set(frame["name"]) | set(frame["email"]) | {str(v) for v in frame["num"]}
    return found | {repr(float(v)) for v in frame["score"]}


def step(kind, index, n):
    if kind == "list":
        return t.turn(t.tool_use("list_variables", {}, id=f"s{n}"))
    if kind == "describe":
        return t.turn(t.tool_use("describe_variable", {"name": "df"}, id=f"s{n}"))
    return t.turn(t.tool_use("run_code", {"code": RUNS[index]}, id=f"s{n}"))


steps_strategy = st.lists(
    st.tuples(st.sampled_from(["list", "describe", "run", "run", "run"]), st.integers(0, len(RUNS) - 1)),
    min_size=1,
    max_size=6,
)


def session(frame, steps, policy, answer=None):
    script = t.ScriptedTransport(*[step(k, i, n) for n, (k, i) in enumerate(steps)], t.reply("done"))
    kernel = nt.KernelTools({"df": frame}, policy=policy, approval="auto")
    agent = nt.Agent(client=script.client(), model="claude-test", plugins=[kernel])
    if answer is None:
        asyncio.run(agent.run("work"))
        return script, kernel
    driver = FrontendSession(agent)
    broker = driver.broker
    broker.seen("test")

    async def main():
        turn = asyncio.ensure_future(driver.turn(agent.run("work")))
        answered = set()
        while not turn.done():
            for prompt in list(broker.prompts.values()):
                if prompt.status == "pending" and prompt.tool_use_id not in answered:
                    answered.add(prompt.tool_use_id)
                    broker.answer(prompt.tool_use_id, answer(prompt))
            await asyncio.sleep(0.005)
        await turn

    asyncio.run(main())
    return script, kernel


def leaked(script, values):
    body = json.dumps(script.requests)
    return {c for c in values if c in body}


@pytest.mark.parametrize("policy", ["ask", "aggregates"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps_strategy)
def test_with_nobody_to_ask_or_aggregates_only_no_canary_leaves(policy, steps):
    frame = canary_frame()
    values = canaries(frame)
    script, kernel = session(frame, steps, policy)
    assert leaked(script, values) == set()
    assert all(e.how in ("metadata", "aggregates", "withheld") for e in kernel.ledger.entries)


@settings(max_examples=20, deadline=None)
@given(
    steps=steps_strategy,
    choices=st.lists(st.sampled_from(["send", "mask", "aggregates", "withhold"]), min_size=8, max_size=8),
)
def test_a_canary_leaves_only_inside_content_the_person_chose_to_send(steps, choices):
    frame = canary_frame()
    values = canaries(frame)
    emails = set(frame["email"])
    approved = []
    picks = iter(choices)

    def answer(prompt):
        choice = next(picks)
        shown = prompt.input["would_send"]
        if choice == "send":
            approved.append(shown)
        elif choice == "mask":  # what was shown, but the email column's values: those must not leave
            for email in emails:
                shown = shown.replace(email, "")
            approved.append(shown)
            return {"value": json.dumps({"send": "mask", "mask": ["email"], "remember": "no"})}
        return {"value": json.dumps({"send": choice, "remember": "no"})}

    script, _kernel = session(frame, steps, "ask", answer)
    sent = "\n".join(approved)
    for canary in leaked(script, values):
        assert canary in sent, (
            f"{canary} left without the person choosing to send it (or from a masked column)"
        )
