// What the chat's chrome shows of the model's traits: the composer enabled only while the agent is
// idle and no prompt waits for an answer, Stop only while it is busy, the composer and status line
// only in "chat" mode, the status line, and the notice and error banners.
import type { RenderProps } from "@anywidget/types";
import type { Model, PromptState } from "../wire/protocol";
import { setText } from "../text/sanitize";
import { drawStatus } from "../blocks/usage";
import type { ChatDom } from "./skeleton";

/** The traits the chrome shows; a change of any of them redraws it. */
export const CHROME_TRAITS = ["busy", "status", "usage", "error", "notice", "mode"];

/** The function that draws the chrome from the model's traits now; `gone`: the kernel went away. */
export function chromeDrawer(model: RenderProps<Model>["model"], dom: ChatDom, gone: () => boolean): () => void {
  const { input, sendBtn, stopBtn, composer, status, notice, errorText, errorBar } = dom;
  // What was drawn last: the chrome is drawn after every message from the kernel (streamed text
  // too, many a second), and writing the same values again still costs the page a style pass.
  let drawn = "";
  return () => {
    if (gone()) return; // what the view shows stays as it was when the kernel went away
    const prompts = Object.values((model.get("prompts") ?? {}) as Record<string, PromptState>);
    const waiting = prompts.some((p) => p.status === "pending");
    const busy = model.get("busy");
    const shown = JSON.stringify([waiting, busy, model.get("mode"), model.get("status"), model.get("usage") ?? {}, model.get("notice"), model.get("error")]);
    if (shown === drawn) return;
    drawn = shown;
    input.disabled = busy || waiting;
    sendBtn.disabled = busy || waiting;
    stopBtn.disabled = !busy;
    composer.hidden = model.get("mode") !== "chat";
    status.hidden = model.get("mode") !== "chat";
    drawStatus(status, waiting ? "waiting for your answer" : model.get("status"), model.get("usage") ?? {});
    setText(notice, model.get("notice"));
    notice.hidden = !model.get("notice");
    setText(errorText, model.get("error"));
    errorBar.hidden = !model.get("error");
  };
}
