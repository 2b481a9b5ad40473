// The other result views in jsdom, and how a card picks one: JSON tree (also for unknown kinds), file
// tree, code with highlighting, markdown through the sanitizer, images, downloads, display hints,
// and hostile strings in every field staying text.
import { HOSTILE, noInjectedMarkup } from "./testDom";
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Shown } from "../generated/protocol";
import { NO_KERNEL, renderShown, viewOf } from "./index";
import { colour, languageOf, nodesOf } from "./highlight";
import { safeFilename } from "./format";
import { renderFileList } from "./fileList";
import { renderTree } from "./tree";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function shown(kind: string, data: unknown, extra: Partial<Shown> = {}): Shown {
  return { kind, summary: `${kind} summary`, mime_type: null, display: { view: null, language: null, collapsed: false, max_height: null }, data, files: [], ...extra };
}

test("each kind has its view, and an unknown kind falls back to the tree", () => {
  const views = ["table", "diff", "file_list", "file_content", "text", "json", "binary", "git.status"].map((k) => viewOf(shown(k, {})));
  assert.deepEqual(views, ["table", "diff", "files", "code", "text", "tree", "binary", "tree"]);
  const el = renderShown(shown("git.status", { branch: "main", dirty: ["a.py"] }), "g", NO_KERNEL);
  assert.equal(el.dataset.view, "tree");
  assert.ok(el.querySelector("ul.nt-json"));
  assert.match(el.textContent!, /branch: "main"/);
});

test("the summary always shows; hidden shows only it; collapsed starts folded; max_height scrolls", () => {
  const hidden = renderShown(shown("json", { data: { a: 1 } }, { display: { view: "hidden", language: null, collapsed: false, max_height: null } }), "h", NO_KERNEL);
  assert.equal(hidden.textContent, "json summary");
  const folded = renderShown(shown("json", { data: [1] }, { display: { view: null, language: null, collapsed: true, max_height: 120 } }), "f", NO_KERNEL);
  const details = folded.querySelector("details.nt-shown-fold") as HTMLDetailsElement;
  assert.equal(details.open, false);
  assert.equal(details.querySelector("summary")!.textContent, "json summary");
  assert.equal((folded.querySelector(".nt-shown-body") as HTMLElement).style.maxHeight, "120px");
  assert.equal((renderShown(shown("text", { content: "x" }), "o", NO_KERNEL).querySelector("details") as HTMLDetailsElement).open, true);
});

test("the JSON tree folds deep levels and counts what it leaves out", () => {
  const el = renderTree({ a: { b: { c: { d: 1 } } }, list: Array.from({ length: 250 }, (_, i) => i) });
  const folds = Array.from(el.querySelectorAll("details")) as HTMLDetailsElement[];
  assert.equal(folds[0].open, true);
  assert.ok(folds.some((d) => !d.open));
  assert.match(el.textContent!, /… 50 more/);
});

test("a file list is a tree: folders first, nested by '/', sizes readable", () => {
  const el = renderFileList("data", [{ name: "b.csv", size: 2048 }, { name: "raw", is_dir: true }, { name: "raw/x.json", size: 12 }, { name: "a.txt" }]);
  assert.match(el.querySelector(".nt-file-root")!.textContent!, /data · 4 entries/);
  const top = Array.from(el.querySelector("ul")!.children).map((li) => li.querySelector(".nt-file-name")!.textContent);
  assert.deepEqual(top, ["raw/", "a.txt", "b.csv"]);
  assert.match(el.textContent!, /2\.0 KB/);
  assert.ok(el.querySelector("details ul li")!.textContent!.includes("x.json"));
});

test("code is coloured by its language or the file's extension; text with view=code too", () => {
  assert.equal(languageOf("src/app.PY"), "python");
  assert.equal(languageOf("Makefile"), "");
  const file = renderShown(shown("file_content", { path: "q.sql", content: "SELECT 1 FROM t", size: 15 }), "c", NO_KERNEL);
  assert.ok(file.querySelector("code.hljs .hljs-keyword"));
  const text = renderShown(shown("text", { content: "const x = 1;" }, { display: { view: "code", language: "typescript", collapsed: false, max_height: null } }), "t", NO_KERNEL);
  assert.ok(text.querySelector(".hljs-keyword"));
  const unknown = document.createElement("code");
  colour(unknown, "<b>x</b>", "klingon");
  assert.equal(unknown.textContent, "<b>x</b>");
  assert.equal(unknown.children.length, 0);
});

test("highlight.js HTML is read token by token: anything but its spans makes the code plain", () => {
  assert.equal(nodesOf('<span class="hljs-keyword">if</span> a &lt; b')!.textContent, "if a < b");
  assert.equal(nodesOf('<span class="hljs-x">a</span>')!.textContent, "a");
  assert.equal(nodesOf("<img src=x onerror=alert(1)>"), null);
  assert.equal(nodesOf('<span class="x" onclick="y">a</span>'), null);
  assert.equal(nodesOf("</span>"), null);
  assert.equal(nodesOf('<span class="hljs-a">open'), null);
  const frag = nodesOf('<span class="hljs-a evil other">x</span>')!;
  assert.equal((frag.firstChild as HTMLElement).className, "hljs-a");
});

test("markdown goes through the sanitizer", () => {
  const el = renderShown(shown("text", { content: `# Title\n\n**bold** <img src=x onerror="globalThis.pwned=1"> [link](javascript:alert(1))` }, { display: { view: "markdown", language: null, collapsed: false, max_height: null } }), "m", NO_KERNEL);
  assert.ok(el.querySelector(".nt-md h1"));
  assert.ok(el.querySelector(".nt-md strong"));
  assert.equal(el.querySelector("a[href^=javascript]"), null);
  assert.equal(el.querySelector("img[onerror]"), null);
});

test("images show from data: URLs; other files, SVGs and damaged data become downloads", () => {
  const el = renderShown(shown("binary", { filename: "dot.png" }, { files: [{ mime_type: "image/png", filename: "dot.png", size: 68, data: PNG }] }), "i", NO_KERNEL);
  assert.equal((el.querySelector("img") as HTMLImageElement).src, `data:image/png;base64,${PNG}`);
  const others = renderShown(shown("binary", {}, { files: [
    { mime_type: "application/pdf", filename: "../../etc/report.pdf", size: 9, data: "JVBERi0xLjQ=" },
    { mime_type: "image/svg+xml", filename: "x.svg", size: 3, data: "PHN2Zz4=" },
    { mime_type: "image/png", filename: "bad.png", size: 3, data: "not base64!" },
    { mime_type: "application/zip", filename: "big.zip", size: 9_000_000, note: "too big to show here" },
  ] }), "b", NO_KERNEL);
  assert.equal(others.querySelectorAll("img").length, 0);
  assert.deepEqual(Array.from(others.querySelectorAll("button.nt-download")).map((b) => b.getAttribute("aria-label")), ["Download report.pdf", "Download x.svg", "Download bad.png"]);
  assert.match(others.querySelector(".nt-file-note")!.textContent!, /big\.zip \(8\.6 MB\): too big/);
});

test("file names are cleaned before they are saved", () => {
  assert.equal(safeFilename("../../.bashrc"), "bashrc");
  assert.equal(safeFilename("C:\\x\\evil\u202Etxt.exe"), "eviltxt.exe");
  assert.equal(safeFilename("<>:\"|?*"), "download");
  assert.equal(safeFilename(null, "image"), "image");
  assert.equal(safeFilename("a".repeat(300)).length, 120);
});

test("hostile strings in every field of every kind never become HTML", () => {
  for (const evil of HOSTILE) {
    const hints = { view: null, language: evil, collapsed: false, max_height: null } as const;
    const cases: Shown[] = [
      shown("text", { content: evil }, { summary: evil, display: hints, note: evil }),
      shown("text", { content: evil }, { display: { ...hints, view: "code" } }),
      shown("text", { content: evil }, { display: { ...hints, view: "markdown" } }),
      shown("file_content", { path: evil, content: evil, size: 1 }),
      shown("file_list", { path: evil, files: [{ name: evil, size: 1 }, { name: `${evil}/${evil}`, is_dir: true }], count: 2 }),
      shown("json", { data: { [evil]: [evil, { [evil]: evil }] } }),
      shown("diff", { path: evil, original: evil, modified: `${evil}!`, is_new: false }),
      shown("table", { columns: [evil], dtypes: [evil], shape: [1, 1], index: [evil], rows: [[evil]] }),
      shown("binary", { filename: evil }, { files: [{ mime_type: evil, filename: evil, size: 1, data: PNG }, { mime_type: "image/png", filename: evil, size: 1, data: evil }] }),
      shown("x.evil", { [evil]: evil }, { summary: null }),
      shown("table", { columns: evil, rows: evil }),
    ];
    for (const c of cases) {
      const el = renderShown(c, evil, NO_KERNEL);
      noInjectedMarkup(el);
      // Outside sanitized markdown (which may keep a <b>), a payload is its own text, whole.
      if (c.display.view !== "markdown") assert.equal(el.querySelector("b"), null);
    }
  }
});

test("a kernel run shows its code, outputs, changes with cells, what was sent, and Undo asks for its checkpoint", () => {
  const data = {
    code: `df["x"] = 1  # ${HOSTILE}`,
    outputs: [{ kind: "stdout", text: `printed ${HOSTILE}` }, { kind: "stderr", text: "a warning" }, { kind: "table", text: "DataFrame 2x1" }, { kind: "image", file: 0 }],
    error: null,
    stopped: null,
    duration: 0.1,
    checkpoint: "c2",
    changes: [{ name: "df", change: "changed", summary: `df: DataFrame 2x1 → 2x2: columns added: x`, cells: [{ row: "0", column: "sex", before: "nan", after: HOSTILE }] }],
    sent: { choice: "mask", masked: ["island"] },
  };
  const sent: unknown[] = [];
  const el = renderShown(shown("kernel.run", data), "r1", { send: (m) => sent.push(m), onMessage: () => () => undefined });
  assert.equal(el.dataset.view, "kernel_run");
  noInjectedMarkup(el);
  assert.ok(el.querySelector("code.nt-code")!.textContent!.startsWith('df["x"] = 1'));
  assert.ok(el.querySelector(".nt-run-stderr"));
  assert.match(el.textContent!, /columns added: x/);
  assert.equal(el.querySelectorAll(".nt-run-cells tbody tr").length, 1);
  assert.match(el.textContent!, /Sent to Claude with columns masked: island/);
  const undo = el.querySelector<HTMLButtonElement>(".nt-run-undo")!;
  undo.click();
  undo.click(); // disabled after the first: one request
  assert.equal(sent.length, 1);
  assert.deepEqual({ ...(sent[0] as Record<string, unknown>), request_id: "" }, { type: "manual_tool", name: "undo", input: { to: "c2" }, request_id: "" });
  const plain = renderShown(shown("kernel.run", { code: "x = 1", outputs: [], changes: [], checkpoint: null, sent: { choice: "withhold", masked: [] } }), "r2", NO_KERNEL);
  assert.match(plain.textContent!, /cannot be undone/);
  assert.match(plain.textContent!, /Nothing of its output was sent/);
  assert.equal(plain.querySelector(".nt-run-undo"), null);
});
