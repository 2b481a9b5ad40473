// The binary parts of a result: images inline (data: URLs of png, jpeg, gif or webp only), any other
// file as a download button, saved under a cleaned name from a Blob URL made when it is clicked.
import { h, saveBlob } from "../dom/dom";
import { isDataImage } from "../text/sanitize";
import { bytes, safeFilename } from "./format";

export interface ShownFileLike {
  mime_type?: unknown;
  filename?: unknown;
  size?: unknown;
  data?: unknown;
  note?: unknown;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decode(data: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64.test(data)) return null;
  try {
    const text = atob(data);
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

function image(file: ShownFileLike): HTMLElement | null {
  const url = `data:${String(file.mime_type)};base64,${String(file.data)}`;
  if (!isDataImage(url) || typeof file.data !== "string" || !BASE64.test(file.data)) return null;
  const img = h("img", { class: "nt-result-image", alt: safeFilename(file.filename, "image returned by the tool") });
  img.src = url; // not h(): it refuses src, which takes only this checked data: URL here
  return img;
}

function download(file: ShownFileLike): HTMLElement {
  const name = safeFilename(file.filename, "download");
  const size = typeof file.size === "number" ? ` (${bytes(file.size)})` : "";
  const type = String(file.mime_type ?? "");
  if (typeof file.data !== "string") {
    return h("div", { class: "nt-file-note" }, h("code", {}, name), `${size}: ${String(file.note ?? "not sent to this view")}`);
  }
  const button = h("button", { class: "nt-btn nt-download", type: "button", "aria-label": `Download ${name}` }, `⬇ ${name}${size}`);
  const encoded = file.data;
  button.addEventListener("click", () => {
    const content = decode(encoded);
    if (content === null) {
      button.disabled = true;
      button.title = "the file's data is damaged";
      return;
    }
    // A Blob of the bytes, typed as octet-stream: the browser saves it and never renders it here.
    saveBlob(new Blob([content], { type: "application/octet-stream" }), name);
  });
  return h("div", { class: "nt-file-download" }, button, type ? h("span", { class: "nt-file-type" }, type) : null);
}

/** Each file: an image shown, any other (or a refused image) a download. */
export function renderFiles(files: unknown): HTMLElement | null {
  const list = Array.isArray(files) ? (files as ShownFileLike[]).filter((f) => f && typeof f === "object") : [];
  if (list.length === 0) return null;
  return h("div", { class: "nt-result-files" }, ...list.map((file) => image(file) ?? download(file)));
}
