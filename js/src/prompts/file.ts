// The file prompt: upload from the browser in acked binary chunks, or pick from the kernel's folder.
import type { KernelMsg, KernelMsgOf } from "../wire/protocol";
import type { PromptContext, Renderer } from "./common";
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { formatBytes } from "../text/format";
import { acceptRules, accepts, listingNote, planChunks, withTimeout } from "./upload";

/** The kernel's reply to one request, or an error after `ms` (the kernel is busy, or gone). */
function waitFor<T extends KernelMsg["type"]>(ctx: PromptContext, type: T, match: (msg: KernelMsgOf<T>) => boolean, ms = 15_000): Promise<KernelMsgOf<T>> {
  let stop = () => {};
  const reply = new Promise<KernelMsgOf<T>>((resolve) => {
    stop = ctx.onMessage((msg) => {
      if (msg.type === type && match(msg as KernelMsgOf<T>)) {
        stop();
        resolve(msg as KernelMsgOf<T>);
      }
    });
  });
  return withTimeout(reply, ms, `the kernel did not answer within ${ms / 1000} s; try again`, () => stop());
}

async function upload(ctx: PromptContext, file: File, progress: (sent: number) => void): Promise<string> {
  const uploadId = `up-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const isAck = (msg: KernelMsgOf<"upload_ack">) => msg.upload_id === uploadId;
  let ack = waitFor(ctx, "upload_ack", isAck, 120_000);
  ctx.send({ type: "upload_start", upload_id: uploadId, tool_use_id: ctx.prompt.tool_use_id, name: file.name, size: file.size, media_type: file.type });
  let reply = await ack;
  if (!reply.ok) throw new Error(reply.error ?? "upload refused");
  const ranges = planChunks(file.size);
  for (let seq = 0; seq < ranges.length; seq++) {
    const [start, end] = ranges[seq];
    if (end === start) break;
    const bytes = await file.slice(start, end).arrayBuffer();
    ack = waitFor(ctx, "upload_ack", isAck, 120_000);
    ctx.send({ type: "upload_chunk", upload_id: uploadId, seq }, [bytes]);
    reply = await ack; // one chunk in flight at a time: the comm is never flooded
    if (!reply.ok) throw new Error(reply.error ?? "upload failed");
    progress(reply.received);
  }
  return uploadId;
}

export const renderFile: Renderer = (ctx, body) => {
  const accept = String(ctx.prompt.input.accept ?? "");
  const multiple = Boolean(ctx.prompt.input.multiple);
  const status = h("div", { class: "nt-file-status", "aria-live": "polite" });
  // What went wrong, styled and announced as an error; `say` (progress) and `fail` replace each other.
  const problem = h("div", { class: "nt-error", role: "alert" });
  const say = (text: string) => (setText(status, text), setText(problem, ""));
  const fail = (text: string) => (setText(problem, text), setText(status, ""));
  const bar = h("progress", { class: "nt-progress", max: "1", value: "0", "aria-label": "Upload progress" });
  bar.hidden = true;

  // Upload from this computer.
  const picker = h("input", { type: "file", class: "nt-file-input", "aria-label": "Choose a file to upload" });
  if (acceptRules(accept).length) picker.accept = acceptRules(accept).join(",");
  picker.multiple = multiple;
  const uploadBtn = h("button", { class: "nt-btn nt-primary", type: "button" }, "Upload");
  picker.addEventListener("change", () => {
    bar.hidden = true; // a new choice: the last upload's progress and words are gone
    bar.value = 0;
    say("");
  });
  uploadBtn.addEventListener("click", async () => {
    const files = Array.from(picker.files ?? []);
    if (files.length === 0) return void fail("Choose a file first.");
    const wrong = files.find((f) => !accepts(accept, f.name, f.type));
    if (wrong) return void fail(`${wrong.name} is not an accepted type (${accept}).`);
    const big = files.find((f) => f.size > ctx.maxUploadBytes);
    if (big) return void fail(`${big.name} is ${formatBytes(big.size)}; the limit is ${formatBytes(ctx.maxUploadBytes)}.`);
    uploadBtn.disabled = true;
    picker.disabled = true;
    bar.hidden = false;
    const total = files.reduce((sum, f) => sum + f.size, 0) || 1;
    let done = 0;
    try {
      const ids: string[] = [];
      for (const file of files) {
        ids.push(await upload(ctx, file, (sent) => {
          bar.value = (done + sent) / total;
          say(`Uploading ${file.name}: ${formatBytes(done + sent)} of ${formatBytes(total)}`);
        }));
        done += file.size;
      }
      bar.value = 1;
      say("Uploaded.");
      // Enabled again before the answer goes: the card locks every control while it is sent and
      // gives them back if the kernel refuses it, so another file can be chosen and sent.
      uploadBtn.disabled = false;
      picker.disabled = false;
      ctx.submit({ value: { uploads: ids } });
    } catch (err) {
      fail(`Upload failed: ${(err as Error).message}`);
      uploadBtn.disabled = false;
      picker.disabled = false;
    }
  });

  // Pick from the kernel's working directory: the kernel lists it and applies the prompt's filter
  // (one reading of `accept`, its own: by extension, or by the MIME type a name implies).
  const filter = acceptRules(accept).join(", ");
  const listing = h("div", { class: "nt-listing", role: "listbox", "aria-label": "Files in the working directory" });
  const note = h("div", { class: "nt-empty", hidden: true });
  const where = h("div", { class: "nt-where" });
  const chosen = new Set<string>();
  const pickBtn = h("button", { class: "nt-btn", type: "button" }, "Use selected");
  pickBtn.addEventListener("click", () => {
    if (chosen.size === 0) return void fail("Select a file in the list first.");
    ctx.submit({ value: { paths: Array.from(chosen) } });
  });
  let listed = false;
  const browse = async (path: string, focus = false) => {
    listed = true;
    const requestId = `ls-${Math.random().toString(36).slice(2)}`;
    const reply = waitFor(ctx, "listing", (msg) => msg.request_id === requestId);
    say(path ? `Listing ./${path}…` : "Listing the working directory…");
    ctx.send({ type: "list_dir", request_id: requestId, path, accept });
    let msg: KernelMsgOf<"listing">;
    try {
      msg = await reply;
    } catch (err) {
      return void fail(`${(err as Error).message} (press Browse again)`);
    }
    if (msg.error) return void fail(msg.error);
    say("");
    const folder = msg.folder ?? `./${path}`;
    setText(where, filter ? `${folder} (showing ${filter} files)` : folder);
    listing.replaceChildren();
    if (path) {
      const up = path.split("/").slice(0, -1).join("/");
      const back = h("button", { class: "nt-entry nt-dir", type: "button" }, "..");
      back.addEventListener("click", () => void browse(up, true));
      listing.append(back);
    }
    // What the list leaves out is said, with the folder and the filter: never a silent empty list.
    setText(note, listingNote(msg, folder, filter));
    note.hidden = !note.textContent;
    for (const entry of msg.entries) {
      const row = h("button", { class: `nt-entry ${entry.is_dir ? "nt-dir" : "nt-file"}`, type: "button", role: "option" },
        entry.is_dir ? `${entry.name}/` : entry.name,
        entry.is_dir ? null : h("span", { class: "nt-size" }, formatBytes(entry.size)));
      row.addEventListener("click", () => {
        if (entry.is_dir) return void browse(entry.path, true);
        if (!multiple) {
          chosen.clear();
          for (const other of Array.from(listing.querySelectorAll(".nt-selected"))) other.classList.remove("nt-selected");
        }
        if (chosen.has(entry.path)) chosen.delete(entry.path);
        else chosen.add(entry.path);
        row.classList.toggle("nt-selected", chosen.has(entry.path));
        row.setAttribute("aria-selected", String(chosen.has(entry.path)));
      });
      row.addEventListener("dblclick", () => {
        if (!entry.is_dir) ctx.submit({ value: { paths: [entry.path] } });
      });
      listing.append(row);
    }
    if (focus) (listing.querySelector<HTMLElement>(".nt-file, .nt-dir") ?? browseBtn).focus({ preventScroll: true });
    fold.scrollIntoView?.({ block: "nearest" });
  };
  // Outside the fold, so pressing it always shows something: it opens the fold on the working directory.
  const browseBtn = h("button", { class: "nt-btn", type: "button" }, "Browse working directory");
  const fold = h("details", { class: "nt-browse" }, h("summary", {}, "…or pick a file the kernel can already see"), where, listing, note, h("div", { class: "nt-row" }, pickBtn));
  browseBtn.addEventListener("click", () => {
    fold.open = true;
    void browse("", true);
  });
  fold.addEventListener("toggle", () => {
    if (fold.open && !listed) void browse("");
  });

  body.append(h("div", { class: "nt-row" }, picker, uploadBtn, browseBtn), bar, fold, status, problem);
};
