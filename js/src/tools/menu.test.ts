// The Tools menu grouped by plugin, and the transcript's event rows, in jsdom.
// (The menu in real JupyterLab, by keyboard, is tests/test_browser_plugins.py.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import type { Item, PluginInfo, ToolInfo } from "../wire/protocol";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "HTMLButtonElement", "DocumentFragment", "NodeFilter"]) g[name] = (dom.window as any)[name];

const { groupTools, pluginProblem, pluginsText, pluginState, skillsLine } = await import("./groups");
const { redrawKeepingFocus, toolsMenu } = await import("./menu");
const { renderItem } = await import("../chat/transcript");

const tool = (name: string): ToolInfo => ({ name, description: `${name} does things`, input_schema: { type: "object", properties: {} } });
const PLUGINS: PluginInfo[] = [
  { name: "cleaning", description: "Clean a DataFrame", expanded: true, tools: ["drop_nulls", "fill_gaps"], skills: [{ name: "quick_clean", description: "Fast", active: true }, { name: "deep", description: "Slow", active: false }] },
  { name: "plotting", description: "Plots", expanded: false, tools: ["plot"], skills: [] },
];
const TOOLS = [tool("refresh"), tool("fill_gaps"), tool("plot")];

test("tools go under their plugin; tools in no plugin stay loose, in their order", () => {
  const { groups, loose } = groupTools(TOOLS, PLUGINS);
  assert.deepEqual(groups.map((gr) => [gr.plugin.name, gr.tools.map((t) => t.name)]), [["cleaning", ["fill_gaps"]], ["plotting", ["plot"]]]);
  assert.deepEqual(loose.map((t) => t.name), ["refresh"]);
  assert.deepEqual(groupTools(TOOLS, []).loose, TOOLS); // no plugins: the menu as before
});

test("a plugin's state and skills are words, not colour alone", () => {
  assert.equal(pluginState(PLUGINS[0]), "expanded · 2 tools");
  assert.equal(pluginState(PLUGINS[1]), "collapsed · 1 tool");
  assert.equal(skillsLine(PLUGINS[0]), "Skills: quick_clean (active), deep");
  assert.equal(skillsLine(PLUGINS[1]), "");
  assert.equal(pluginsText(PLUGINS), "cleaning (expanded · 2 tools): Clean a DataFrame\n  Skills: quick_clean (active), deep\nplotting (collapsed · 1 tool): Plots");
  assert.equal(pluginsText([]), "This agent has no plugins.");
  assert.equal(pluginProblem("plotting", PLUGINS), null);
  assert.equal(pluginProblem("nope", PLUGINS), "No plugin named nope; plugins: cleaning, plotting.");
});

function menu(overrides: Partial<Parameters<typeof toolsMenu>[0]> = {}) {
  const calls: string[] = [];
  const children = toolsMenu({
    tools: TOOLS, plugins: PLUGINS, busy: false, waiting: new Set(),
    onTool: (t) => calls.push(`tool ${t.name}`), onPlugin: (name, action) => calls.push(`${action} ${name}`),
    ...overrides,
  });
  const panel = document.createElement("div");
  panel.append(...children);
  document.body.replaceChildren(panel);
  return { panel, calls };
}

test("the menu has a section per plugin with its state, skills, toggle and by-hand tools", () => {
  const { panel, calls } = menu();
  const sections = Array.from(panel.querySelectorAll("section.nt-plugin"));
  assert.deepEqual(sections.map((s) => s.getAttribute("aria-label")), ["Plugin cleaning", "Plugin plotting"]);
  assert.match(sections[0].textContent!, /cleaning.*expanded · 2 tools.*Collapse.*Clean a DataFrame.*Skills: quick_clean \(active\), deep.*fill_gaps/);
  assert.match(sections[1].textContent!, /plotting.*collapsed · 1 tool.*Expand.*plot/);
  assert.equal(panel.querySelector(".nt-plugin-other")!.textContent, "Other tools");
  assert.equal(panel.lastElementChild!.textContent, "refresh");
  const buttons = Array.from(panel.querySelectorAll("button"));
  assert.deepEqual(buttons.map((b) => b.getAttribute("aria-label") ?? b.textContent), ["Collapse cleaning", "fill_gaps", "Expand plotting", "plot", "refresh"]);
  for (const b of buttons) b.click();
  assert.deepEqual(calls, ["collapse cleaning", "tool fill_gaps", "expand plotting", "tool plot", "tool refresh"]);
});

test("while the agent runs, or a change is on its way, the toggle says so and does nothing (and keeps focus)", () => {
  const busy = menu({ busy: true });
  const toggle = busy.panel.querySelector<HTMLButtonElement>(".nt-plugin-toggle")!;
  assert.equal(toggle.getAttribute("aria-disabled"), "true");
  assert.equal(toggle.disabled, false); // focusable: the menu is drawn again under the person's focus
  assert.match(toggle.title, /running/);
  toggle.click();
  assert.deepEqual(busy.calls, []);
  const waiting = menu({ waiting: new Set(["plotting"]) });
  const expand = waiting.panel.querySelector<HTMLButtonElement>('[data-plugin="plotting"] .nt-plugin-toggle')!;
  assert.equal(expand.textContent, "Expand…");
  expand.click();
  assert.deepEqual(waiting.calls, []);
});

test("drawn again, the menu puts focus back on the same control", () => {
  const { panel } = menu();
  panel.querySelector<HTMLElement>('[data-focus-key="plugin:plotting"]')!.focus();
  const expanded = PLUGINS.map((p) => ({ ...p, expanded: true }));
  redrawKeepingFocus(panel, toolsMenu({ tools: TOOLS, plugins: expanded, busy: false, waiting: new Set(), onTool: () => {}, onPlugin: () => {} }));
  assert.equal(document.activeElement?.getAttribute("aria-label"), "Collapse plotting");
});

test("no tools and no plugins: the menu says how to get some", () => {
  const { panel } = menu({ tools: [], plugins: [] });
  assert.match(panel.textContent!, /No tool here can be run by hand/);
});

test("an event item is one muted row of text, never markup", () => {
  const item: Item = { id: "e1", kind: "event", text: "cleaning expanded · 1 tool: <img src=x onerror=alert(1)>" };
  const row = renderItem(item, () => null);
  assert.equal(row.className, "nt-event");
  assert.equal(row.getAttribute("role"), "note");
  assert.equal(row.textContent, item.text);
  assert.equal(row.children.length, 0);
});
