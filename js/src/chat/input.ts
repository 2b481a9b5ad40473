// What the person does in the chat's chrome: Enter (not Shift+Enter) or Send sends the composer's
// text, as a slash command when it is one, and brings the log back to its end; Stop stops the agent;
// Dismiss clears the error banner; a notice's Retry asks the kernel to retry the failed request, and
// a turn notice's Continue to carry the cut-off turn on.
import type { RenderProps } from "@anywidget/types";
import type { Model, ViewMsg } from "../wire/protocol";
import type { ChatDom } from "./skeleton";

/** `slash` runs a slash command (commands.ts) and says whether the text was one. */
export function wireInput(model: RenderProps<Model>["model"], dom: ChatDom, send: (msg: ViewMsg) => void, slash: (text: string) => boolean): void {
  const { input, sendBtn, stopBtn, dismiss, follow, log } = dom;
  const sendInput = () => {
    const text = input.value.trim();
    if (!text || input.disabled) return;
    input.value = "";
    follow.toEnd();
    if (slash(text)) return;
    send({ type: "send", text });
  };
  sendBtn.addEventListener("click", sendInput);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      sendInput();
    }
  });
  stopBtn.addEventListener("click", () => send({ type: "stop" }));
  dismiss.addEventListener("click", () => {
    model.set("error", "");
    model.save_changes();
  });
  log.addEventListener("click", (event) => {
    const target = event.target as HTMLElement;
    if (target.classList.contains("nt-retry")) {
      (target as HTMLButtonElement).disabled = true;
      send({ type: "retry" });
    } else if (target.classList.contains("nt-continue")) {
      (target as HTMLButtonElement).disabled = true; // the kernel takes the button away as the turn goes on
      send({ type: "continue" });
    }
  });
}
