"""Widget code that crosses to a page once, not once per widget.

An anywidget carries its whole module in its synced state (`_esm`): ~360 KB for a chat. JupyterLab
sends every widget's state when a page (re)loads, in one message, and a notebook saved with widget
state keeps a copy per widget, so 25 chats meant ~10 MB per reload and per save. Here `_esm` is a
loader of ~1.5 KB instead, and no `_css`: the first view on a page asks the kernel once for the
module and its stylesheet (a custom message, answered beside a busy cell like every comm message),
imports it, and every other widget of the same code on that page reuses it. The loader keys the
module by its hash, so a page that meets a newer kernel's code fetches that one. Any front end that
runs anywidget (JupyterLab, Notebook 7, VS Code) loads it the same way: the loader is itself an
ordinary anywidget module.
"""

from __future__ import annotations

import functools
import hashlib
import json
import pathlib
from typing import Any, ClassVar

import anywidget

__all__ = ["CodeOnce", "code_key", "loader"]

WAIT_MS = 60_000
"""How long a view waits for the module before it says the kernel did not send it."""

_LOADER = """\
const KEY = %(key)s;
const codes = (globalThis.__notebookToolsCode ??= new Map());
function fetchModule(model) {
  let module = codes.get(KEY);
  if (module === undefined) {
    module = new Promise((resolve, reject) => {
      const giveUp = () => { model.off("msg:custom", onMessage); reject(new Error("timeout")); };
      const timer = setTimeout(giveUp, %(wait)d);
      function onMessage(message, buffers) {
        if (!message || message.type !== "code" || message.key !== KEY || !buffers || !buffers.length) return;
        model.off("msg:custom", onMessage);
        clearTimeout(timer);
        if (buffers.length > 1 && !document.querySelector(`style[data-notebook-tools="${KEY}"]`)) {
          const style = document.createElement("style");
          style.dataset.notebookTools = KEY;
          style.textContent = new TextDecoder().decode(buffers[1]);
          document.head.append(style);
        }
        const url = URL.createObjectURL(new Blob([buffers[0]], { type: "text/javascript" }));
        import(url).then((m) => resolve(m.default), reject).finally(() => URL.revokeObjectURL(url));
      }
      model.on("msg:custom", onMessage);
      model.send({ type: "code", key: KEY });
    });
    module.catch(() => codes.delete(KEY));  // the next view asks again
    codes.set(KEY, module);
  }
  return module;
}
export default {
  async render(context) {
    let module;
    try {
      module = await fetchModule(context.model);
    } catch {
      context.el.textContent =
        "This widget's code did not arrive from the kernel. Is the kernel running? Run the cell again.";
      return;
    }
    return module.render(context);
  },
};
"""


@functools.cache
def _read(path: pathlib.Path, stamp: tuple[int, ...]) -> tuple[list[bytes], str]:
    parts = [path.read_bytes()]
    style = path.with_suffix(".css")
    if style.exists():
        parts.append(style.read_bytes())
    digest = hashlib.sha256(b"\0".join(parts)).hexdigest()[:20]
    return parts, f"{path.stem}:{digest}"


def _code(path: pathlib.Path) -> tuple[list[bytes], str]:
    """The module at `path` and its stylesheet beside it (same name, .css), and their key."""
    stats = [p.stat() for p in (path, path.with_suffix(".css")) if p.exists()]
    return _read(path, tuple(n for st in stats for n in (st.st_mtime_ns, st.st_size)))


def code_key(path: pathlib.Path) -> str:
    """The name a page keeps the module at `path` under: its file name and content hash."""
    return _code(path)[1]


def loader(path: pathlib.Path) -> str:
    """The `_esm` that fetches the module at `path` (and its stylesheet) from the kernel once per page."""
    return _LOADER % {"key": json.dumps(code_key(path)), "wait": WAIT_MS}


class CodeOnce(anywidget.AnyWidget):
    """An anywidget whose module (`_code`) and its stylesheet reach each page once, through its loader."""

    _code: ClassVar[pathlib.Path]

    @property
    def _esm(self) -> str:
        return loader(self._code)

    def _handle_custom_msg(self, content: Any, buffers: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "code":
            parts, key = _code(self._code)
            if content.get("key") == key:  # a stale page's key gets nothing: its loader times out
                self.send({"type": "code", "key": key}, buffers=parts)
            return
        super()._handle_custom_msg(content, buffers)
