// The Tools menu's list: by-hand tools grouped under their plugins, each plugin with its state, its
// skills and an Expand or Collapse button; tools in no plugin after them. Every control is a button
// (Tab reaches it, Enter and Space press it); `data-focus-key` lets the menu put focus back on the
// same control after it is drawn again (a trait changed under it).
import type { PluginInfo, ToolInfo } from "../wire/protocol";
import { h } from "../dom/dom";
import { groupTools, pluginState, skillsLine } from "./groups";

export interface ToolsMenuProps {
  tools: ToolInfo[];
  plugins: PluginInfo[];
  /** The agent is running: plugins cannot change now. */
  busy: boolean;
  /** Plugins whose expand or collapse was sent and not answered yet. */
  waiting: ReadonlySet<string>;
  onTool: (tool: ToolInfo) => void;
  onPlugin: (name: string, action: "expand" | "collapse") => void;
}

const HELP_TOOLS = "Run a tool yourself; the model hears about it with your next message.";
const HELP_PLUGINS = "Expand a plugin to offer its tools to the model, or collapse it; the model is told with your next message.";
const NO_TOOLS = 'No tool here can be run by hand (give one mode="manual" or "both").';

function toolButton(tool: ToolInfo, onTool: (tool: ToolInfo) => void): HTMLElement {
  const b = h("button", { class: "nt-btn nt-tool-choice", type: "button", "data-focus-key": `tool:${tool.name}` }, tool.name);
  b.addEventListener("click", () => onTool(tool));
  return b;
}

function pluginSection(plugin: PluginInfo, tools: ToolInfo[], props: ToolsMenuProps): HTMLElement {
  const action = plugin.expanded ? "collapse" : "expand";
  const verb = plugin.expanded ? "Collapse" : "Expand";
  const waiting = props.waiting.has(plugin.name);
  // aria-disabled, not disabled: a disabled button drops focus, and the menu is drawn again under it.
  const unavailable = props.busy || waiting;
  const toggle = h("button", {
    class: "nt-btn nt-plugin-toggle",
    type: "button",
    "aria-label": `${verb} ${plugin.name}`,
    "aria-disabled": unavailable ? "true" : undefined,
    "data-focus-key": `plugin:${plugin.name}`,
    title: props.busy ? "The agent is running: change plugins when the turn has ended." : undefined,
  }, waiting ? `${verb}…` : verb);
  toggle.addEventListener("click", () => {
    if (!unavailable) props.onPlugin(plugin.name, action);
  });
  const skills = skillsLine(plugin);
  return h("section", { class: `nt-plugin${plugin.expanded ? " nt-plugin-expanded" : ""}`, "data-plugin": plugin.name, "aria-label": `Plugin ${plugin.name}` },
    h("div", { class: "nt-row nt-plugin-head" },
      h("span", { class: "nt-tool-name" }, plugin.name),
      h("span", { class: "nt-plugin-state" }, pluginState(plugin)),
      toggle),
    plugin.description ? h("div", { class: "nt-form-help" }, plugin.description) : null,
    skills ? h("div", { class: "nt-form-help nt-plugin-skills" }, skills) : null,
    ...tools.map((tool) => toolButton(tool, props.onTool)),
  );
}

/** The menu's children (the panel is the caller's). */
export function toolsMenu(props: ToolsMenuProps): HTMLElement[] {
  const { groups, loose } = groupTools(props.tools, props.plugins);
  const help = [props.tools.length ? HELP_TOOLS : NO_TOOLS, props.plugins.length ? HELP_PLUGINS : ""].filter(Boolean).join(" ");
  const out: HTMLElement[] = [h("div", { class: "nt-form-help" }, help)];
  out.push(...groups.map((g) => pluginSection(g.plugin, g.tools, props)));
  if (loose.length && groups.length) out.push(h("div", { class: "nt-tool-name nt-plugin-other" }, "Other tools"));
  out.push(...loose.map((tool) => toolButton(tool, props.onTool)));
  return out;
}

/** Draw `children` into `panel`, keeping focus on the control that had it (by its data-focus-key). */
export function redrawKeepingFocus(panel: HTMLElement, children: HTMLElement[]): void {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && panel.contains(active) ? active.dataset.focusKey : undefined;
  panel.replaceChildren(...children);
  if (key === undefined) return;
  const again = Array.from(panel.querySelectorAll<HTMLElement>("[data-focus-key]")).find((el) => el.dataset.focusKey === key);
  again?.focus();
}
