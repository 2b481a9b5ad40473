"""The kernel toolset end to end on the scripted model: look without values, consent, approve, edit, undo, Stop.

A real `anthropic` client runs against the scripted Messages API; prompts (approval and consent
cards) are answered through the front end's session, as every front end answers them. The data is
the real Palmer penguins table the `palmerpenguins` package ships.
"""

import asyncio
import json
import time

import palmerpenguins
import pandas as pd

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.frontend import FrontendSession
from tests.support.browser_double import until


def penguins():
    return palmerpenguins.load_penguins()


def make(namespace, *steps, **options):
    script = t.ScriptedTransport(*steps)
    kernel = nt.KernelTools(namespace, **options)
    agent = nt.Agent(client=script.client(), model="claude-test", plugins=[kernel])
    return agent, script, kernel


def sent_text(script):
    """Every request body the scripted API received, as one string."""
    return json.dumps(script.requests)


def last_result(script):
    return script.requests[-1]["messages"][-1]["content"][0]


def drive(agent, message, answer=None):
    """One turn through a front end's session; `answer(broker, prompt)` answers each prompt as it opens."""
    driver = FrontendSession(agent)
    broker = driver.broker
    broker.seen("test")
    asked = []

    async def main():
        turn = asyncio.ensure_future(driver.turn(agent.run(message)))
        while not turn.done():
            for prompt in list(broker.prompts.values()):
                if prompt.status == "pending" and prompt.tool_use_id not in asked:
                    asked.append(prompt.tool_use_id)
                    broker.answer(prompt.tool_use_id, answer(broker, prompt))
            await asyncio.sleep(0.01)
        return await turn

    return asyncio.run(main()), broker, asked


def test_looking_sends_names_types_and_aggregates_never_a_value():
    ns = {"df": penguins(), "threshold": 42.5, "pd": pd, "_hidden": 1}
    agent, script, kernel = make(
        ns,
        t.turn(t.tool_use("list_variables", {}, id="l1")),
        t.turn(t.tool_use("describe_variable", {"name": "df"}, id="d1")),
        t.reply("looked"),
    )
    result = asyncio.run(agent.run("what is there?"))
    assert result.text == "looked"
    body = sent_text(script)
    assert "bill_length_mm" in body and "species" in body and "344" in body
    for value in ("Adelie", "Torgersen", "Biscoe", "female", "42.5", "39.1"):
        assert value not in body
    assert [e.how for e in kernel.ledger.entries] == ["metadata", "aggregates"]
    assert agent.state.plugin_data["kernel"]["ledger"][1]["what"] == "aggregates of df"


def test_printed_rows_wait_for_consent_and_go_only_as_approved_with_a_column_masked():
    ns = {"df": penguins()}
    code = "print(df[['species', 'island']].head(3))"
    agent, script, kernel = make(
        ns, t.turn(t.tool_use("run_code", {"code": code}, id="r1")), t.reply("saw masked rows")
    )

    def answer(broker, prompt):
        assert prompt.tool_use_id == "consent_r1" and prompt.name == "kernel_consent"
        assert "Adelie" in prompt.input["would_send"] and prompt.input["code_read"] == "df"
        return {"value": json.dumps({"send": "mask", "mask": ["island"], "remember": "no"})}

    result, _, asked = drive(agent, "show me rows", answer)
    assert result.text == "saw masked rows" and asked == ["consent_r1"]
    told = last_result(script)["content"]
    assert "Adelie" in told and "Torgersen" not in told and "■■■" in told
    [entry] = [e for e in kernel.ledger.entries if e.tool == "run_code"]
    assert (entry.how, entry.masked, entry.variables) == ("approved_masked", ["island"], ["df"])
    assert (entry.sha256 and entry.chars == len(entry.preview)) or entry.chars > 200


def test_nothing_leaves_without_a_person_and_aggregates_only_sends_none():
    ns = {"df": penguins()}
    steps = [t.turn(t.tool_use("run_code", {"code": "print(df.head())\ndf.tail(2)"}, id="r1")), t.reply("ok")]
    agent, script, _ = make(dict(ns), *steps)
    asyncio.run(agent.run("go"))  # no front end: nobody to ask, so nothing is sent
    assert (
        "Adelie" not in sent_text(script) and "withheld by the data policy" in last_result(script)["content"]
    )
    agent, script, kernel = make(dict(ns), *steps, policy="aggregates")
    asyncio.run(agent.run("go"))
    body = sent_text(script)
    assert "Adelie" not in body and "Torgersen" not in body and "aggregates" in body
    assert {e.how for e in kernel.ledger.entries} <= {"aggregates", "withheld"}


def test_risky_code_asks_with_its_reasons_and_an_edit_runs_what_the_person_wrote():
    ns = {"df": penguins()}
    asked = "df = df.dropna()"
    edited = "df_clean = df.dropna()"
    agent, script, _ = make(ns, t.turn(t.tool_use("run_code", {"code": asked}, id="r1")), t.reply("ok"))

    def answer(broker, prompt):
        assert prompt.kind == "approval"
        assert prompt.scope == "code that reassigns variables"
        assert any("df" in reason for reason in prompt.reasons)
        return {"value": {"approved": True, "edited_input": {"code": edited}}}

    drive(agent, "clean", answer)
    assert len(ns["df"]) == 344 and len(ns["df_clean"]) == 333  # the person's code ran, not the model's
    told = last_result(script)["content"]
    assert "edited" in told and "df_clean" in told


def test_undo_restores_the_checkpoint_exactly_and_the_model_hears_of_it():
    original = penguins()
    ns = {"df": original.copy()}
    code = "df.loc[df.sex.isna(), 'sex'] = 'unknown'\ndf['ratio'] = df.bill_length_mm / df.bill_depth_mm\ndel df['year']"
    agent, script, _kernel = make(
        ns,
        t.turn(t.tool_use("run_code", {"code": code}, id="r1")),
        t.reply("cleaned"),
        t.reply("noted"),
        approval="auto",
    )
    asyncio.run(agent.run("clean it"))
    assert (ns["df"].sex == "unknown").sum() == 11 and "ratio" in ns["df"] and "year" not in ns["df"]
    told = last_result(script)["content"]
    assert "columns added: ratio" in told and "columns dropped: year" in told and "unknown" not in told
    text = asyncio.run(agent.run_manual("undo", {})).content
    assert "undid c1" in text
    pd.testing.assert_frame_equal(ns["df"], original)
    asyncio.run(agent.run("and now?"))
    assert "undid c1" in json.dumps(script.requests[-1]["messages"][-1])


def test_stop_ends_an_endless_run_within_a_second_and_the_next_turn_carries_on():
    ns = {"x": 1}
    agent, script, kernel = make(
        ns,
        t.turn(t.tool_use("run_code", {"code": "while True:\n    x += 1"}, id="r1")),
        t.reply("carried on"),
        approval="auto",
    )
    driver = FrontendSession(agent)

    async def main():
        task = driver.start(agent.run("spin"))
        await until(lambda: ns["x"] > 1000)
        began = time.perf_counter()
        driver.stop()
        result = await task
        took = time.perf_counter() - began
        return result, took, await driver.turn(agent.run("next"))

    stopped, _, after = asyncio.run(main())
    ended = kernel.ran[-1]
    assert stopped.stop_reason == "stopped" and ended["stopped"] == "stop" and not ended["still_running"]
    assert ended["stop_took"] < 1.0, ended  # from the stop to the run's thread ending
    assert after.text == "carried on" and script.refused == []


def test_the_ledger_and_remembered_choices_survive_a_restart(tmp_path):
    store = nt.SQLiteStore(tmp_path / "s.db")
    ns = {"df": penguins()}
    script = t.ScriptedTransport(
        t.turn(t.tool_use("run_code", {"code": "df.head(2)"}, id="r1")), t.reply("ok")
    )
    kernel = nt.KernelTools(ns, approval="auto", checkpoint_dir=tmp_path / "checkpoints")
    agent = nt.Agent(client=script.client(), model="claude-test", plugins=[kernel], store=store)

    def answer(broker, prompt):
        return {"value": json.dumps({"send": "send", "remember": "variables"})}

    drive(agent, "peek", answer)
    assert [(e.call, e.how) for e in kernel.ledger.entries] == [("r1", "approved")]
    again = nt.KernelTools(ns, checkpoint_dir=tmp_path / "checkpoints")  # a restarted kernel, same store
    restored = nt.Agent(
        client=script.client(), model="claude-test", plugins=[again], store=nt.SQLiteStore(tmp_path / "s.db")
    )
    restored.load(agent.agent_uuid)
    assert [(e.call, e.how) for e in again.ledger.entries] == [("r1", "approved")]
    assert again.data.remembered.variables == {"df": "send"}
    assert [c.id for c in again.checkpoints.history] == ["c1"]  # kept on disk (test_kernel_undo_restart.py)


def test_a_run_checkpoints_the_person_s_data_not_code_modules_or_the_toolkit_s_own_objects():
    ns = {"df": penguins(), "pd": pd, "helper": len, "method": [].append}
    script = t.ScriptedTransport(
        t.turn(t.tool_use("run_code", {"code": "kernel.ran.append(1)\nhelper(df)\ndf['x'] = 1"}, id="r1")),
        t.reply("done"),
    )
    kernel = nt.KernelTools(ns, approval="auto")
    ns["kernel"] = kernel  # the notebook's own handle on the toolset
    agent = nt.Agent(client=script.client(), model="claude-test", plugins=[kernel])
    asyncio.run(agent.run("go"))
    [checkpoint] = kernel.checkpoints.history
    assert checkpoint.names == ("df",)  # not the toolset (deep-copying it would copy the chat), nor functions
