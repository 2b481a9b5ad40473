// The chat's slash commands, run: /help, /tools, /status and /plugins answer with a notice in the log
// (seen by this view only), /clear asks the kernel for a new conversation, /expand and /collapse
// toggle a plugin, and /tool NAME (or /NAME) runs a tool by hand, or opens its form when a required
// argument is missing. The command line itself is parsed by slash.ts.
import type { RenderProps } from "@anywidget/types";
import type { Model, ViewMsg } from "../wire/protocol";
import { statusText } from "../blocks/usage";
import { coerceArg, parseSlash } from "./slash";
import type { ToolsPanel } from "../tools/panel";
import { pluginProblem, pluginsText } from "../tools/groups";
import type { ChatLog } from "./log";

const HELP = [
  "/help: this list",
  "/tools: the tools you can run by hand",
  "/tool NAME --arg value (or /NAME --arg value): run a tool by hand",
  "/plugins: the plugins, expanded or not, and their skills",
  "/expand NAME, /collapse NAME: offer a plugin's tools to the model, or fold them away",
  "/clear: start a new conversation",
  "/status: the agent's state and token counts",
].join("\n");

/** The function that runs `text` as a slash command; false when it is a plain message. */
export function slashCommands(model: RenderProps<Model>["model"], menu: ToolsPanel, log: Pick<ChatLog, "upsert">, send: (msg: ViewMsg) => void): (text: string) => boolean {
  const { tools, plugins } = menu;
  let localNotices = 0;
  const localNotice = (text: string, level: "info" | "error" = "info") =>
    log.upsert({ id: `local-${++localNotices}`, kind: "notice", text, level });

  return (text: string): boolean => {
    const command = parseSlash(text);
    if (command === null) return false;
    if (command.kind === "help") localNotice(HELP);
    else if (command.kind === "tools") localNotice(tools().map((t) => `${t.name}: ${t.description.split("\n")[0]}`).join("\n") || "No tool here can be run by hand.");
    else if (command.kind === "status") localNotice(statusText(model.get("status"), model.get("usage") ?? {}));
    else if (command.kind === "clear") send({ type: "clear" });
    else if (command.kind === "plugins") localNotice(pluginsText(plugins()));
    else if (command.kind === "plugin") {
      const problem = pluginProblem(command.name, plugins());
      if (problem) localNotice(problem, "error");
      else menu.changePlugin(command.name, command.action);
    }
    else if (command.kind === "error") localNotice(command.message, "error");
    else {
      const tool = tools().find((t) => t.name === command.name);
      if (!tool) return localNotice(`No tool named ${command.name} can be run by hand; /tools lists them.`, "error"), true;
      try {
        const props = ((tool.input_schema as any).properties ?? {}) as Record<string, { type?: string }>;
        const args = Object.fromEntries(
          Object.entries(command.args).map(([k, v]) => {
            try {
              return [k, coerceArg(v, props[k])];
            } catch (err) {
              throw new Error(`${k}: ${(err as Error).message}`);
            }
          }),
        );
        // A required argument not given: the tool's form, with what was given filled in.
        const required: string[] = (tool.input_schema as any).required ?? [];
        if (required.some((k) => !(k in args))) {
          menu.openForm(tool, args);
          return true;
        }
        menu.runTool(tool.name, args);
      } catch (err) {
        localNotice((err as Error).message, "error");
      }
    }
    return true;
  };
}
