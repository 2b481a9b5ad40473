// Wire shapes between the kernel and this front end, under the names the views use. They are generated
// (src/generated/protocol.ts) from their one source, notebook_tools/widgets/_wire.py: edit that, then
// `npm run gen`.
import type { KernelMessage, PromptState, Traits, ViewMessage } from "../generated/protocol";

export type { Answer, Entry, Execution, Item, Link, Mark, PluginInfo, PromptPreview, PromptState, SkillInfo, Source, ToolInfo, UsageCounts, UsageState } from "../generated/protocol";

export type PromptKind = PromptState["kind"];
export type PromptStatus = PromptState["status"];

/** The Chat widget's synced traits. */
export type Model = Traits;

/** A custom message from the kernel. */
export type KernelMsg = KernelMessage;

/** The kernel message of one `type`. */
export type KernelMsgOf<T extends KernelMsg["type"]> = Extract<KernelMsg, { type: T }>;

/** A custom message to the kernel. */
export type ViewMsg = ViewMessage;
