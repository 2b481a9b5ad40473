// Entry point of the Chat widget (anywidget): transcript, inline prompts, input box, Stop, status.
// `render` composes the view from chat/: its DOM (skeleton.ts), its link to the kernel (connection.ts),
// the transcript and prompt cards (log.ts, cards.ts), the chrome (chrome.ts), slash commands
// (commands.ts), the person's input (input.ts) and the model's events (events.ts).
import type { RenderProps } from "@anywidget/types";
import type { Model } from "./wire/protocol";
import { RendererModules } from "./renderers/api";
import { toolsPanel } from "./tools/panel";
import { promptFocus } from "./dom/focus";
import { staticCopy } from "./chat/staticCopy";
import { chatSkeleton } from "./chat/skeleton";
import { connection } from "./chat/connection";
import { chatLog } from "./chat/log";
import { chromeDrawer } from "./chat/chrome";
import { slashCommands } from "./chat/commands";
import { wireInput } from "./chat/input";
import { listen } from "./chat/events";
import "./widget.css";

function render({ model, el }: RenderProps<Model>): () => void {
  const renderers = new RendererModules(); // this chat's own renderers, sent by the kernel on hello
  const menu = toolsPanel(model, (msg) => link.send(msg));
  const dom = chatSkeleton(el, menu);
  const focus = promptFocus(dom.root, dom.follow.ownScroll);
  // the copy below this view, in its own output area (JupyterLab, Notebook 7): the rest of the page is not its to watch
  const copy = staticCopy((model as unknown as { get(name: string): unknown }).get("_dom_classes"), document, () => el.closest(".jp-OutputArea"));
  const link = connection(model, dom, () => copy.release());
  const log = chatLog(model, dom, link, renderers);
  const drawChrome = chromeDrawer(model, dom, link.gone);
  wireInput(model, dom, link.send, slashCommands(model, menu, log, link.send));
  const drawPrompts = () => {
    log.drawPrompts();
    drawChrome();
    focus.update();
  };
  const unlisten = listen(model, { log, renderers, menu, link, focus, copy, drawChrome, drawPrompts });

  drawPrompts();
  link.open();
  return () => {
    link.close();
    log.dispose();
    copy.dispose();
    unlisten();
    menu.dispose();
    focus.dispose();
    dom.follow.dispose();
  };
}

export default { render };
