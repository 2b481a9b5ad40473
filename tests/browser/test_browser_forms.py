"""The form engine filled as a person would, in real JupyterLab: the arguments the kernel receives.

Six corpus schemas (js/test-corpus/: pydantic models, MCP servers' published tools, a hand-written
oneOf) behind approval cards' "Edit arguments" and the Tools panel, and a custom frontend tool whose
output schema is an object. Each form is filled by typing, picking, adding list items and map
entries, choosing a variant and turning a null off; the tool records the arguments it is called
with, and they must equal the intended JSON exactly (1 not "1", [] not missing, nested objects
whole). One JupyterLab and one Chromium serve the module (conftest); the model is scripted.
"""

import json
from pathlib import Path

import pytest

from tests.support.lab import ARTIFACTS, PATIENT, open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser

CORPUS = Path(__file__).resolve().parents[2] / "js" / "test-corpus"


# tool name -> (corpus file, the model's arguments the card starts from)
APPROVED = {
    "query_table": ("pydantic-QueryTable.json", {"table": "sales"}),
    "fetch_target": ("hand-oneof-discriminated.json", {"target": {"type": "file", "path": "/tmp/a.csv"}}),
    "edit_file": ("mcp-filesystem-edit_file.json", {"path": "notes.md", "edits": []}),
    "create_entities": ("mcp-memory-create_entities.json", {"entities": []}),
    "schedule": (
        "pydantic-Schedule.json",
        {"title": "Sync", "start": "2024-05-01T09:00:00Z", "attendees": ["a@example.com"]},
    ),
}
MANUAL = {"deploy": "pydantic-Deploy.json"}
ANSWER_SCHEMA = "pydantic-Address.json"

INTENDED = {
    "query_table": {
        "table": "orders",
        "columns": ["region", "total"],
        "filters": [{"column": "total", "op": ">=", "value": 2.5}],
        "sort": [{"column": "total", "descending": True}],
        "limit": 50,
    },
    "fetch_target": {
        "target": {"type": "url", "url": "https://example.com/data.csv", "headers": {"Accept": "text/csv"}}
    },
    "edit_file": {
        "path": "notes.md",
        "edits": [{"oldText": "teh", "newText": "the"}, {"oldText": "recieve", "newText": "receive"}],
        "dryRun": True,
    },
    "create_entities": {
        "entities": [
            {"name": "Ada", "entityType": "person", "observations": ["wrote the first program", "born 1815"]},
            {"name": "Analytical Engine", "entityType": "machine", "observations": []},
        ]
    },
    "schedule": {
        "title": "Sync",
        "start": "2024-05-02T10:30:00Z",
        "day": "2024-05-02",
        "duration_minutes": 45,
        "attendees": ["a@example.com", "b@example.com"],
    },
    "deploy": {
        "service": "api",
        "version": "latest",
        "config": {"retries": 5, "timeout_s": 2.5, "mode": "fast", "tags": []},
        "env": {"REGION": "eu"},
    },
}
ANSWER = {"street": "1 Main St", "city": "Leeds", "postcode": "LS1 4AP", "country": "GB"}


def notebook(out: Path) -> str:
    schemas = {
        name: json.loads((CORPUS / file).read_text())["schema"] for name, (file, _) in APPROVED.items()
    }
    schemas |= {name: json.loads((CORPUS / file).read_text())["schema"] for name, file in MANUAL.items()}
    answer_schema = json.loads((CORPUS / ANSWER_SCHEMA).read_text())["schema"]
    starts = {name: start for name, (_, start) in APPROVED.items()}
    return f"""
import json
import notebook_tools as nt
from notebook_tools import testing as t

OUT = {str(out)!r}
SCHEMAS = json.loads({json.dumps(schemas)!r})
STARTS = json.loads({json.dumps(starts)!r})

def recorder(name):
    def record(**arguments):
        json.dump(arguments, open(f"{{OUT}}/{{name}}.json", "w"))
        return "recorded"
    return record

def strip(schema):
    return {{k: v for k, v in schema.items() if k != "$schema"}}

approved = [nt.tool(recorder(n), name=n, description=f"The {{n}} corpus schema.", needs_approval=True,
                    input_schema=strip(SCHEMAS[n])) for n in STARTS]
manual = [nt.tool(recorder(n), name=n, description=f"The {{n}} corpus schema.", mode="both",
                  input_schema=strip(SCHEMAS[n])) for n in {list(MANUAL)!r}]

@nt.tool(executor="frontend", output_schema=json.loads({json.dumps(answer_schema)!r}))
def ship_to(purpose: str) -> str:
    '''Ask the user for a shipping address.

    Args:
        purpose: What the address is for, shown to the user.
    '''

def finish(request):
    json.dump(t.answers_in(request), open(f"{{OUT}}/answers.json", "w"))
    return t.reply("All done.")

script = t.ScriptedTransport(
    t.turn("Some calls for you to check.",
           *[t.tool_use(n, STARTS[n], id=f"f_{{n}}") for n in STARTS],
           t.tool_use("ship_to", {{"purpose": "the order"}}, id="f_ship")),
    finish,
)
chat = nt.Chat(nt.Agent(client=script.client(), tools=approved + manual, frontend_tools=[ship_to]))
chat
"""


def card(page, name):
    return page.locator(f'section.nt-prompt[data-tool-use-id="f_{name}"]')


def group(scope, field_id):
    """The labelled group of a list, map, object or nullable field."""
    return scope.locator(f"[aria-labelledby='{field_id}-label']")


def edit(page, name):
    c = card(page, name)
    c.get_by_role("button", name="Edit arguments").click(timeout=PATIENT)
    return c, f"nt-edit-f_{name}"


def approve(c):
    c.get_by_role("button", name="Approve with these arguments").click()


def fill_query_table(page):
    c, p = edit(page, "query_table")
    c.locator(f"#{p}-table").fill("orders")
    columns = group(c, f"{p}-columns")
    c.locator(f"#{p}-columns-null").uncheck()  # a list instead of null
    columns.get_by_role("button", name="Add an item to columns").click()
    columns.get_by_role("button", name="Add an item to columns").click()
    columns.locator(".nt-form-list input").nth(0).fill("region")
    columns.locator(".nt-form-list input").nth(1).fill("total")
    filters = group(c, f"{p}-filters")
    filters.get_by_role("button", name="Add an item to filters").click()
    item = filters.locator(".nt-form-list > .nt-form-row").first
    item.locator("input[id$='-column']").fill("total")
    item.locator("select[id$='-op']").select_option(label=">=")
    item.locator("input[id$='-value-null']").uncheck()
    item.locator("select[id$='-value']").select_option(label="number")
    item.locator(".nt-variant-body input").fill("2.5")
    sort = group(c, f"{p}-sort")
    sort.get_by_role("button", name="Add an item to sort").click()
    row = sort.locator(".nt-form-list > .nt-form-row").first
    row.locator("input[id$='-column']").fill("total")
    row.locator("input[id$='-descending']").check()
    limit = c.locator(f"#{p}-limit")
    limit.fill("20000")
    limit.blur()  # over the maximum: the field says so as the person leaves it...
    c.locator(f"#{p}-limit-error", has_text="Enter 10000 or less").wait_for(timeout=PATIENT)
    assert limit.get_attribute("aria-invalid") == "true"
    limit.fill("50")  # ...and the message goes as soon as the value is right
    assert c.locator(f"#{p}-limit-error").inner_text() == ""
    ARTIFACTS.mkdir(exist_ok=True)
    c.screenshot(path=str(ARTIFACTS / "form-engine-query-table.png"))
    approve(c)


def fill_fetch_target(page):
    c, p = edit(page, "fetch_target")
    c.locator(f"#{p}-target").select_option(label="A URL")  # the variant chooser
    c.locator("input[type=url][id$='-url']").fill("https://example.com/data.csv")
    c.get_by_role("button", name="Add an entry to headers").click()
    c.locator(".nt-map-key").fill("Accept")
    c.get_by_label("Value in headers").fill("text/csv")
    c.screenshot(path=str(ARTIFACTS / "form-engine-variant.png"))
    approve(c)


def fill_edit_file(page):
    c, p = edit(page, "edit_file")
    edits = group(c, f"{p}-edits")
    for old, new in [("teh", "the"), ("recieve", "receive")]:
        edits.get_by_role("button", name="Add an item to edits").click()
        item = edits.locator(".nt-form-list > .nt-form-row").last
        item.locator("input[id$='-oldText']").fill(old)
        item.locator("input[id$='-newText']").fill(new)
    c.locator(f"#{p}-dryRun").check()
    approve(c)


def fill_create_entities(page):
    c, p = edit(page, "create_entities")
    entities = group(c, f"{p}-entities")
    for name, kind, notes in [
        ("Ada", "person", ["wrote the first program", "born 1815"]),
        ("Analytical Engine", "machine", []),
    ]:
        entities.get_by_role("button", name="Add an item to entities").click()
        item = entities.locator(":scope > .nt-form-list > .nt-form-row").last
        item.locator("input[id$='-name']").fill(name)
        item.locator("input[id$='-entityType']").fill(kind)
        for i, note in enumerate(notes):
            item.get_by_role("button", name="Add an item to observations").click()
            item.locator(".nt-form-list input").nth(i).fill(note)
    approve(c)


def fill_schedule(page):
    c, p = edit(page, "schedule")
    c.locator(f"#{p}-start").fill("2024-05-02T10:30")
    c.locator(f"#{p}-day-null").uncheck()
    c.locator(f"#{p}-day").fill("2024-05-02")
    duration = c.locator(f"#{p}-duration_minutes")
    duration.fill("47")
    duration.blur()
    # ajv's check (the kernel's rules: multipleOf 5), shown as the person leaves the field; Approve is
    # refused until it is fixed. Formats are not checked, in the browser as in the kernel.
    c.get_by_text("Enter a multiple of 5").first.wait_for(timeout=PATIENT)
    approve(c)
    c.locator(".nt-error", has_text="Fix duration_minutes").wait_for(timeout=PATIENT)
    duration.fill("45")
    assert c.get_by_text("Enter a multiple of 5").count() == 0  # gone as soon as it is right
    attendees = group(c, f"{p}-attendees")
    attendees.get_by_role("button", name="Add an item to attendees").click()
    attendees.locator(".nt-form-list input").nth(1).fill("b@example.com")
    approve(c)


def fill_answer(page):
    c = card(page, "ship")
    c.get_by_role("button", name="Submit").wait_for(timeout=PATIENT)
    p = "nt-answer-f_ship"
    c.locator(f"#{p}-street").fill("1 Main St")
    c.locator(f"#{p}-city").fill("Leeds")
    c.locator(f"#{p}-postcode").fill("LS1 4AP")
    assert c.locator(f"#{p}-country").input_value() == "GB"  # the default, shown
    c.locator(f"#{p}-postcode").press("Enter")  # Enter submits


def test_forms_filled_by_hand_send_exactly_the_intended_json(browser, lab, tmp_path):
    out = tmp_path / "calls"
    out.mkdir()
    write_notebook(lab.root / "forms.ipynb", [notebook(out), "result = await chat.send('Go')"])
    context = browser.new_context(timezone_id="UTC", viewport={"width": 1100, "height": 1200})
    page = context.new_page()
    open_notebook(page, lab, "forms.ipynb")
    run_all(page)
    card(page, "query_table").get_by_role("button", name="Edit arguments").wait_for(timeout=PATIENT)
    fill_query_table(page)
    fill_fetch_target(page)
    fill_edit_file(page)
    fill_create_entities(page)
    fill_schedule(page)
    fill_answer(page)
    for name in APPROVED:
        assert wait_for_file(out / f"{name}.json") == INTENDED[name], name
    answers = wait_for_file(out / "answers.json")
    assert json.loads(answers["ship_to"]) == ANSWER
    page.locator(".nt-assistant", has_text="All done.").wait_for(timeout=PATIENT)

    # The Tools panel: a pydantic model with a $ref'd nested default, a readOnly field and a map.
    page.get_by_role("button", name="Tools").click()
    page.locator(".nt-tool-choice", has_text="deploy").click()
    p = "nt-run-deploy"
    assert page.locator(f"#{p}-version").input_value() == "latest"
    assert page.locator(f"#{p}-version").get_attribute("readonly") is not None
    page.locator(f"#{p}-config-retries").fill("5")
    page.locator(f"#{p}-config-timeout_s").fill("2.5")
    page.locator(f"#{p}-config-mode").select_option(label="fast")
    page.get_by_role("button", name="Add an entry to env").click()
    page.get_by_label("Key in env").fill("REGION")
    page.get_by_label("Value in env").fill("eu")
    page.locator(f"#{p}-service").fill("api")
    page.locator(f"#{p}-service").press("Enter")  # Enter runs it
    assert wait_for_file(out / "deploy.json") == INTENDED["deploy"]

    # A slash command without a required argument opens the same form, with the defaults.
    (out / "deploy.json").unlink()
    box = page.get_by_label("Message", exact=True)
    box.fill("/deploy")
    box.press("Enter")
    page.locator(f"#{p}-service").fill("web")
    page.locator(f"#{p}-service").press("Enter")
    defaults = {"retries": 3, "timeout_s": 30.0, "mode": "safe", "tags": []}
    assert wait_for_file(out / "deploy.json") == {
        "service": "web",
        "version": "latest",
        "config": defaults,
        "env": {},
    }
    context.close()
