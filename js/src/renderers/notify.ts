// nt.notify: a toast in the chat (role="status", dismissed by a click or after a while) and, where the
// page exposes JupyterLab's app, its own notification too (the `apputils:notify` command).
import { h } from "../dom/dom";
import type { BuiltinApi } from "./api";

export const TOAST_MS = 8000;

interface Commands {
  hasCommand(id: string): boolean;
  execute(id: string, args: Record<string, unknown>): Promise<unknown>;
}

export function notify(api: BuiltinApi): void {
  const message = String(api.input.message ?? "").trim();
  const level = String(api.input.level ?? "info");
  if (!message) return api.fail("the notification is empty");
  api.el.append(h("div", { class: "nt-browser-line" }, "Showing a notification."));
  const close = h("button", { class: "nt-btn nt-link", type: "button", "aria-label": "Dismiss notification" }, "×");
  const toast = h("div", { class: `nt-toast nt-toast-${level}`, role: "status" }, h("span", {}, message), close);
  const dismiss = () => toast.remove();
  close.addEventListener("click", dismiss);
  const shownIn = ["widget"];
  const commands = (window as { jupyterapp?: { commands?: Commands } }).jupyterapp?.commands;
  if (commands?.hasCommand("apputils:notify")) {
    const type = level === "warning" ? "warning" : level;
    void commands.execute("apputils:notify", { message, type, options: { autoClose: 5000 } }).catch(() => undefined);
    shownIn.push("jupyterlab");
  }
  // The card is put on the page after this runs: place the toast on the chat once it is there.
  window.setTimeout(() => {
    const chat = api.el.closest(".nt-chat") ?? document.body;
    chat.append(toast);
    window.setTimeout(dismiss, TOAST_MS);
    api.ack({ shown_in: shownIn });
  }, 0);
}
