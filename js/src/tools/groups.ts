// The Tools menu's plan, without the DOM: which by-hand tools go under which plugin, and the words
// that say a plugin's state (text, never colour alone).
import type { PluginInfo, ToolInfo } from "../wire/protocol";

export interface ToolGroup {
  plugin: PluginInfo;
  /** The plugin's tools a person may run by hand. */
  tools: ToolInfo[];
}

/** One group per plugin, in the plugins' order, and the tools in no plugin ("loose"), as before plugins. */
export function groupTools(tools: ToolInfo[], plugins: PluginInfo[]): { groups: ToolGroup[]; loose: ToolInfo[] } {
  const home = new Map<string, string>();
  for (const plugin of plugins) for (const name of plugin.tools) if (!home.has(name)) home.set(name, plugin.name);
  const groups = plugins.map((plugin) => ({ plugin, tools: tools.filter((t) => home.get(t.name) === plugin.name) }));
  return { groups, loose: tools.filter((t) => !home.has(t.name)) };
}

/** "expanded · 3 tools" or "collapsed · 3 tools": whether the model is offered the plugin's tools. */
export function pluginState(plugin: PluginInfo): string {
  const n = plugin.tools.length;
  return `${plugin.expanded ? "expanded" : "collapsed"} · ${n} tool${n === 1 ? "" : "s"}`;
}

/** "Skills: quick_clean (active), report" or "" for a plugin without skills. */
export function skillsLine(plugin: PluginInfo): string {
  if (!plugin.skills.length) return "";
  return `Skills: ${plugin.skills.map((s) => (s.active ? `${s.name} (active)` : s.name)).join(", ")}`;
}

/** What `/plugins` prints: a line per plugin (and its skills), or why there is nothing. */
export function pluginsText(plugins: PluginInfo[]): string {
  if (!plugins.length) return "This agent has no plugins.";
  return plugins
    .map((p) => {
      const skills = skillsLine(p);
      return `${p.name} (${pluginState(p)}): ${p.description}${skills ? `\n  ${skills}` : ""}`;
    })
    .join("\n");
}

/** Whether `/expand NAME` or `/collapse NAME` names a plugin of the session: null if it does, else why not. */
export function pluginProblem(name: string, plugins: PluginInfo[]): string | null {
  if (plugins.some((p) => p.name === name)) return null;
  const have = plugins.map((p) => p.name).join(", ") || "none";
  return `No plugin named ${name}; plugins: ${have}.`;
}
