// The chat's DOM skeleton: the banners (kernel gone, scripted notice, error), the log in its follow
// frame, the prompts that belong to no item, the Tools panel, the composer and the status line. It
// builds and places the elements; what they show and do is drawn and wired by the other chat/ modules.
import { h } from "../dom/dom";
import { followLog, type FollowLog } from "../dom/follow";
import { keepKeysInWidget } from "../dom/keys";

export interface ChatDom {
  root: HTMLElement;
  /** Says the kernel is gone (see connection.ts); hidden until then. */
  goneBar: HTMLElement;
  /** The `notice` trait (a scripted user answers, and the like). */
  notice: HTMLElement;
  errorBar: HTMLElement;
  errorText: HTMLElement;
  dismiss: HTMLButtonElement;
  /** The transcript's items, inside `follow.el`. */
  log: HTMLElement;
  follow: FollowLog;
  /** Cards of open prompts with no transcript item. */
  loose: HTMLElement;
  menuPanel: HTMLElement;
  composer: HTMLElement;
  input: HTMLTextAreaElement;
  sendBtn: HTMLButtonElement;
  stopBtn: HTMLButtonElement;
  status: HTMLElement;
}

/** The chat's elements, appended to `el`; `tools` is the Tools button and its panel (tools/panel.ts). */
export function chatSkeleton(el: HTMLElement, tools: { button: HTMLElement; panel: HTMLElement }): ChatDom {
  const root = h("div", { class: "nt-chat", role: "region", "aria-label": "Claude chat" });
  const notice = h("div", { class: "nt-banner nt-scripted", role: "note" });
  const errorBar = h("div", { class: "nt-banner nt-error-banner", role: "alert" });
  const errorText = h("span");
  const dismiss = h("button", { class: "nt-btn nt-link", type: "button", "aria-label": "Dismiss error" }, "Dismiss");
  errorBar.append(errorText, dismiss);
  const log = h("div", { class: "nt-log", "aria-live": "polite" });
  const loose = h("div", { class: "nt-loose-prompts" });
  const input = h("textarea", { class: "nt-input nt-compose", rows: "2", placeholder: "Message Claude (Enter to send, Shift+Enter for a new line)", "aria-label": "Message" });
  const sendBtn = h("button", { class: "nt-btn nt-primary", type: "button" }, "Send");
  const stopBtn = h("button", { class: "nt-btn nt-stop", type: "button", "aria-label": "Stop the agent" }, "Stop");
  const status = h("div", { class: "nt-status", role: "status" });
  const composer = h("div", { class: "nt-composer" }, input, h("div", { class: "nt-col" }, sendBtn, stopBtn, tools.button));
  const follow = followLog(log);
  root.append(notice, errorBar, follow.el, loose, tools.panel, composer, status);
  el.append(root);
  keepKeysInWidget(root);
  // A view whose kernel restarted or went away says so and takes no more input (see liveness.ts).
  const goneBar = h("div", { class: "nt-banner nt-gone-banner", role: "alert", hidden: true });
  root.prepend(goneBar);
  return { root, goneBar, notice, errorBar, errorText, dismiss, log, follow, loose, menuPanel: tools.panel, composer, input, sendBtn, stopBtn, status };
}
