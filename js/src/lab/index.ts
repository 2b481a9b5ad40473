// This project's JupyterLab (and Notebook 7) extension: the renderer of a chat's static copy, which
// draws the copy's HTML only where no live view of the chat shows the conversation (copyState.ts).
// Built by @jupyterlab/builder into notebook_tools/labextension (js/labextension/package.json).
import type { IRenderMime } from "@jupyterlab/rendermime-interfaces";
import { RenderedHTML } from "@jupyterlab/rendermime";
import { Widget } from "@lumino/widgets";
import { COPY_MIME, copyChat, copyState, viewOutput, viewsSay } from "./copyState";
import { STYLE_CHAT, STYLE_STATE } from "../chat/staticCopy";

/** The copy's output: JupyterLab's HTML renderer (its sanitizer, its links) when the copy is to be seen. */
export class CopyRenderer extends Widget implements IRenderMime.IRenderer {
  private model: IRenderMime.IMimeModel | null = null;
  private chat: string | null = null;
  private html: RenderedHTML | null = null;
  private heard = false;
  private watcher: MutationObserver | null = null;

  constructor(private readonly options: IRenderMime.IRendererOptions) {
    super();
    this.addClass("nt-copy-output");
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.model = model;
    this.chat = copyChat(model.data[COPY_MIME]);
    this.undraw(); // a newer copy (the kernel replaced it): drawn again only if it is to be seen
    await this.decide();
  }

  protected onAfterAttach(): void {
    this.watch();
    void this.decide();
  }

  protected onBeforeDetach(): void {
    this.watcher?.disconnect();
    this.watcher = null;
  }

  dispose(): void {
    if (this.isDisposed) return;
    this.watcher?.disconnect();
    this.watcher = null;
    this.html?.dispose();
    this.html = null;
    super.dispose();
  }

  private area(): Element | null {
    return this.node.closest(".jp-OutputArea");
  }

  /** Watch what can change the answer: the views' style elements, this output area, the view's output. */
  private watch(): void {
    this.watcher?.disconnect();
    if (typeof MutationObserver !== "function") return;
    this.watcher ??= new MutationObserver(() => {
      this.watch(); // a row added or taken out: watch the view's output there now
      void this.decide();
    });
    this.watcher.observe(document.head, { childList: true, subtree: true, attributes: true, attributeFilter: [STYLE_CHAT, STYLE_STATE] });
    const area = this.area();
    if (area) this.watcher.observe(area, { childList: true }); // rows added or taken out
    const before = viewOutput(this.node);
    if (before) this.watcher.observe(before, { childList: true, attributes: true, attributeFilter: ["class"] });
  }

  private async decide(): Promise<void> {
    const model = this.model;
    if (!model || !this.isAttached) return; // decided again once attached
    this.heard ||= this.chat !== null && viewsSay(document, this.chat) !== null;
    if (copyState(document, viewOutput(this.node), this.chat, this.heard) !== "free") {
      this.undraw();
      return;
    }
    if (this.html) return;
    const html = new RenderedHTML({ ...this.options, mimeType: "text/html" });
    this.html = html;
    this.node.replaceChildren();
    Widget.attach(html, this.node);
    await html.renderModel(model);
  }

  /** Take the drawn copy out of the page; a bare marker stays, so the view's rule hides this row. */
  private undraw(): void {
    const shown = this.node.firstElementChild as HTMLElement | null;
    if (!this.html && shown?.hidden && (shown.dataset.ntChat ?? null) === this.chat) return; // as it is
    this.html?.dispose();
    this.html = null;
    const marker = document.createElement("div");
    if (this.chat) marker.dataset.ntChat = this.chat;
    marker.hidden = true;
    this.node.replaceChildren(marker);
  }
}

const extension: IRenderMime.IExtension = {
  id: "notebook-tools:static-copy",
  description: "Draws a chat's static transcript copy only where no live view of the chat shows it.",
  rendererFactory: {
    safe: true, // it draws through JupyterLab's HTML renderer, which sanitizes an untrusted output
    mimeTypes: [COPY_MIME],
    createRenderer: (options) => new CopyRenderer(options),
  },
  rank: 40, // before text/html (50): the copy's output carries both
  dataType: "string",
};

export default extension;
