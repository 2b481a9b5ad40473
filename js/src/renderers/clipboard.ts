// nt.copy_to_clipboard: write the text; where the browser wants a gesture first (NotAllowedError, an
// unfocused page), a "Copy" button does it on click.
import { h } from "../dom/dom";
import type { BuiltinApi } from "./api";
import { errorText } from "./api";
import { focusInCard } from "../dom/focus";

export function copyToClipboard(api: BuiltinApi): void {
  const text = String(api.input.text ?? "");
  const chars = Array.from(text).length; // code points, as the kernel counts them
  const preview = h("pre", { class: "nt-copy-text" }, text.length > 400 ? `${text.slice(0, 400)}…` : text);
  const line = h("div", { class: "nt-browser-line" }, `Copying ${chars} character${chars === 1 ? "" : "s"} to your clipboard.`);
  const button = h("button", { class: "nt-btn nt-primary nt-copy", type: "button" }, "Copy");
  api.el.append(line, preview);
  const clipboard = navigator.clipboard;
  if (!clipboard?.writeText) return api.fail("the clipboard is not available on this page (it needs a secure context)");
  const write = (via: "auto" | "button") =>
    clipboard.writeText(text).then(
      () => api.ack({ chars, via }),
      (err: unknown) => {
        if (via === "auto" && (err as DOMException)?.name === "NotAllowedError") return offerButton();
        api.fail(`the browser could not write to the clipboard: ${errorText(err)}`);
      },
    );
  const offerButton = () => {
    line.textContent = "The browser wants a click before it writes to your clipboard.";
    api.el.append(button);
    button.addEventListener("click", () => void write("button"));
    focusInCard(button); // never from a cell being typed in
  };
  if (api.again) return offerButton();
  void write("auto");
}
