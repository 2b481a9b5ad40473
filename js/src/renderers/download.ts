// nt.download_file: ask the kernel for the file the call names (it sends only a regular, non-hidden
// file inside the chat's root, in chunks under 4 MiB), then offer it with a "Save" button: a file
// reaches the person's machine only when they click, seeing its name and size first (a model never
// drops files into their downloads by itself). Nobody clicking ends with the tool's timeout.
import { h, saveBlob } from "../dom/dom";
import type { KernelMsgOf } from "../wire/protocol";
import type { BuiltinApi } from "./api";
import { errorText } from "./api";
import { focusInCard } from "../dom/focus";

export const DOWNLOAD_WAIT_MS = 60_000;

export function downloadFile(api: BuiltinApi): void {
  const requestId = `dl-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const line = h("div", { class: "nt-browser-line" }, "Getting ", h("code", {}, String(api.input.path ?? "")), " from the kernel…");
  api.el.append(line);
  const parts: ArrayBuffer[] = [];
  // The wait starts again with each chunk: a big file on a slow link is not cut off while it flows.
  const expire = () => {
    stop();
    api.fail(`the kernel sent nothing for ${DOWNLOAD_WAIT_MS / 1000} s`);
  };
  let timer = window.setTimeout(expire, DOWNLOAD_WAIT_MS);
  const stop = api.onMessage((msg, buffers) => {
    if (msg.type !== "download_chunk" || msg.request_id !== requestId) return;
    const chunk = msg as KernelMsgOf<"download_chunk">;
    window.clearTimeout(timer);
    timer = window.setTimeout(expire, DOWNLOAD_WAIT_MS);
    if (chunk.error) {
      window.clearTimeout(timer);
      stop();
      return api.fail(chunk.error);
    }
    const view = buffers?.[0];
    if (view) parts.push(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength) as ArrayBuffer);
    if (!chunk.last) return;
    window.clearTimeout(timer);
    stop();
    save(new Blob(parts, { type: chunk.media_type || "application/octet-stream" }), chunk.filename);
  });
  const save = (blob: Blob, filename: string) => {
    const click = (via: "auto" | "button") => {
      try {
        saveBlob(blob, filename);
        api.ack({ filename, bytes: blob.size, via });
      } catch (err) {
        api.fail(`the browser could not save ${filename}: ${errorText(err)}`);
      }
    };
    line.replaceChildren("Save ", h("code", {}, filename), ` (${blob.size.toLocaleString()} bytes) from the kernel on this computer?`);
    const button = h("button", { class: "nt-btn nt-primary nt-save", type: "button" }, `Save ${filename}`);
    button.addEventListener("click", () => click("button"));
    api.el.append(button);
    focusInCard(button); // never from a cell being typed in
  };
  api.send({ type: "download", request_id: requestId, tool_use_id: api.toolUseId });
}
