// The Tools button and its panel: the menu (by-hand tools grouped by plugin, see menu.ts), a
// tool's form, and the requests they send (`manual_tool`, `plugin`). The menu is drawn again when
// the `plugins`, `tools` or `busy` trait changes while it shows, and when a `plugin_result` arrives.
import type { RenderProps } from "@anywidget/types";
import type { KernelMsg, Model, PluginInfo, ToolInfo, ViewMsg } from "../wire/protocol";
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { schemaForm } from "../form/form";
import { closeOnEscape } from "../dom/keys";
import { redrawKeepingFocus, toolsMenu } from "./menu";

export interface ToolsPanel {
  button: HTMLButtonElement;
  panel: HTMLElement;
  tools(): ToolInfo[];
  plugins(): PluginInfo[];
  runTool(name: string, args: Record<string, unknown>): void;
  /** Show a tool's form in the panel, with `initial` filled in. */
  openForm(tool: ToolInfo, initial?: Record<string, unknown>): void;
  changePlugin(name: string, action: "expand" | "collapse"): void;
  /** A kernel message: a `plugin_result` ends the wait of its plugin's toggle. */
  onMessage(msg: KernelMsg): void;
  dispose(): void;
}

const requestId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
const WATCHED = ["plugins", "tools", "busy"];

export function toolsPanel(model: RenderProps<Model>["model"], send: (msg: ViewMsg) => void): ToolsPanel {
  const button = h("button", { class: "nt-btn", type: "button", "aria-haspopup": "true", "aria-expanded": "false" }, "Tools");
  const panel = h("div", { class: "nt-tools-panel", hidden: true, role: "dialog", "aria-label": "Run a tool by hand" });
  const tools = (): ToolInfo[] => model.get("tools") ?? [];
  const plugins = (): PluginInfo[] => model.get("plugins") ?? [];
  const waiting = new Map<string, string>(); // request_id -> plugin, until its plugin_result
  let menuOpen = false; // the list is showing (not a tool's form)

  const show = () => {
    panel.hidden = false;
    button.setAttribute("aria-expanded", "true");
  };
  const close = () => {
    panel.hidden = true;
    menuOpen = false;
    button.setAttribute("aria-expanded", "false");
  };
  const runTool = (name: string, args: Record<string, unknown>) =>
    send({ type: "manual_tool", name, input: args, request_id: requestId("run") });
  const changePlugin = (name: string, action: "expand" | "collapse") => {
    const id = requestId("plugin");
    waiting.set(id, name);
    send({ type: "plugin", name, action, request_id: id });
    drawMenu();
  };
  const drawMenu = () => {
    if (!menuOpen || panel.hidden) return;
    const props = { tools: tools(), plugins: plugins(), busy: model.get("busy"), waiting: new Set(waiting.values()), onTool: (tool: ToolInfo) => openForm(tool), onPlugin: changePlugin };
    redrawKeepingFocus(panel, toolsMenu(props));
  };

  const openForm = (tool: ToolInfo, initial: Record<string, unknown> = {}) => {
    const form = schemaForm(tool.input_schema as any, initial, `nt-run-${tool.name}`, { onSubmit: () => run.click() });
    const run = h("button", { class: "nt-btn nt-primary", type: "button" }, `Run ${tool.name}`);
    const back = h("button", { class: "nt-btn", type: "button" }, "Close");
    const problem = h("div", { class: "nt-error", role: "alert" });
    form.watch(problem); // a fixed field clears the line too
    run.addEventListener("click", () => {
      try {
        runTool(tool.name, form.values());
        close();
      } catch (err) {
        setText(problem, (err as Error).message);
      }
    });
    back.addEventListener("click", () => {
      close();
      button.focus();
    });
    menuOpen = false;
    panel.replaceChildren(h("div", { class: "nt-tool-name" }, tool.name), h("div", {}, tool.description.split("\n")[0]), form.el, h("div", { class: "nt-row" }, run, back), problem);
    show();
    form.el.querySelector<HTMLElement>("input, select, textarea")?.focus();
  };

  closeOnEscape(panel, button, close);
  button.addEventListener("click", () => {
    if (!panel.hidden) return close();
    menuOpen = true;
    show();
    drawMenu();
    panel.querySelector<HTMLElement>("button")?.focus(); // the keyboard goes on into the menu
  });
  for (const name of WATCHED) model.on(`change:${name}`, drawMenu);

  return {
    button, panel, tools, plugins, runTool, openForm, changePlugin,
    onMessage: (msg) => {
      if (msg.type !== "plugin_result") return;
      waiting.delete(msg.request_id); // a refusal shows on the error line (the kernel sets it)
      drawMenu();
    },
    dispose: () => {
      for (const name of WATCHED) model.off(`change:${name}`, drawMenu);
    },
  };
}
