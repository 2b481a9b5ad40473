// A folder's entries as a tree: names with "/" nest, folders fold (<details>), sizes on the right.
import { h } from "../dom/dom";
import { bytes } from "./format";

export interface FileEntry {
  name?: unknown;
  size?: unknown;
  is_dir?: unknown;
}

interface Node {
  children: Map<string, Node>;
  isDir: boolean;
  size: number | null;
}

function insert(root: Node, entry: FileEntry): void {
  const parts = String(entry.name ?? "").split("/").filter((p) => p !== "");
  if (parts.length === 0) return;
  let at = root;
  parts.forEach((part, i) => {
    let next = at.children.get(part);
    if (!next) {
      next = { children: new Map(), isDir: i < parts.length - 1, size: null };
      at.children.set(part, next);
    }
    if (i === parts.length - 1) {
      next.isDir = next.isDir || entry.is_dir === true;
      if (typeof entry.size === "number" && Number.isFinite(entry.size)) next.size = entry.size;
    } else next.isDir = true;
    at = next;
  });
}

function rows(node: Node, depth: number): HTMLElement {
  const list = h("ul", { class: "nt-files", role: depth === 0 ? "tree" : "group" });
  const sorted = Array.from(node.children.entries()).sort(([a, x], [b, y]) => Number(y.isDir) - Number(x.isDir) || a.localeCompare(b));
  for (const [name, child] of sorted) {
    const size = child.size !== null && !child.isDir ? h("span", { class: "nt-file-size" }, bytes(child.size)) : null;
    if (child.isDir) {
      const label = h("span", { class: "nt-file-name nt-dir" }, `${name}/`);
      const body = child.children.size ? rows(child, depth + 1) : null;
      list.append(h("li", { role: "treeitem" }, body ? h("details", { open: depth < 1 }, h("summary", {}, label), body) : label));
    } else {
      list.append(h("li", { role: "treeitem" }, h("span", { class: "nt-file-name" }, name), size));
    }
  }
  return list;
}

/** The entries of `path` as a tree, with a count. */
export function renderFileList(path: unknown, files: unknown): HTMLElement {
  const entries = Array.isArray(files) ? (files as FileEntry[]) : [];
  const root: Node = { children: new Map(), isDir: true, size: null };
  for (const entry of entries) if (entry && typeof entry === "object") insert(root, entry);
  return h("div", { class: "nt-file-list" },
    h("div", { class: "nt-file-root" }, `${String(path ?? "") || "."} · ${entries.length} ${entries.length === 1 ? "entry" : "entries"}`),
    rows(root, 0));
}
