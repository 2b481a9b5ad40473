// The model's events, wired to the view: each custom message from the kernel goes to the log (items,
// streamed text, the snapshot, a cleared conversation), to this chat's renderer modules, to the Tools
// panel and to every subscriber, then the chrome is redrawn; a change of the `prompts` trait redraws
// the prompt cards, and a change of a trait the chrome shows redraws the chrome. Focus follows the
// open prompts after either: an item carries its prompt, so a redrawn item may close one.
import type { RenderProps } from "@anywidget/types";
import type { KernelMsg, Model } from "../wire/protocol";
import type { PromptFocus } from "../dom/focus";
import type { RendererModules } from "../renderers/api";
import type { ToolsPanel } from "../tools/panel";
import { CHROME_TRAITS } from "./chrome";
import type { Connection } from "./connection";
import type { ChatLog } from "./log";

export interface Listeners {
  log: ChatLog;
  /** This chat's own renderers: the kernel sends their modules on hello. */
  renderers: RendererModules;
  menu: ToolsPanel;
  link: Connection;
  focus: PromptFocus;
  /** The static copy of the transcript below the widget (staticCopy.ts). */
  copy: { hide(): void };
  drawChrome: () => void;
  /** Redraw after the `prompts` trait changed. */
  drawPrompts: () => void;
}

/** Listen to the model's custom messages and trait changes; returns the function that stops. */
export function listen(model: RenderProps<Model>["model"], on: Listeners): () => void {
  const { log, renderers, menu, link, focus, copy, drawChrome, drawPrompts } = on;
  const onCustom = (msg: KernelMsg, buffers?: DataView[]) => {
    if (msg.type === "renderers") renderers.set(msg.renderers);
    else if (msg.type === "items") {
      msg.items.forEach(log.upsert);
      // An item redrawn with its prompt answered changes the open prompts as the trait does: the
      // `prompts` trait and the items are separate messages, and either may come first.
      focus.update();
    } else if (msg.type === "delta") log.delta(msg.id, msg.text);
    else if (msg.type === "snapshot") {
      log.snapshot(msg.items);
      focus.update();
      focus.ready();
      copy.hide(); // this view has the kernel's transcript: the static copy below would show it twice
    } else if (msg.type === "cleared") log.clear();
    menu.onMessage(msg);
    link.dispatch(msg, buffers);
    drawChrome();
  };
  model.on("msg:custom", onCustom);
  model.on("change:prompts", drawPrompts);
  for (const name of CHROME_TRAITS) model.on(`change:${name}`, drawChrome);
  return () => {
    model.off("msg:custom", onCustom);
    model.off("change:prompts", drawPrompts);
    for (const name of CHROME_TRAITS) model.off(`change:${name}`, drawChrome);
  };
}
