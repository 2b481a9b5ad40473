// The log follows what is new (streamed text, new items, prompts) while the person is at its end;
// once they scroll up it stays where they are reading, and a "New messages" pill at the bottom of the
// log jumps to the end. The rule of JupyterLab's chat panel and of most chat clients.
//
// New content is noticed with a MutationObserver on the log's nodes and text, not by hooks in every
// code path that draws: its callback runs right after each change is drawn (streamed text is drawn
// once per frame), so the log never scrolls before the text it follows is there. Attribute changes
// are left out, so a person opening a result or an editor in the log is not moved around. Nor does
// the log move while focus is in an open prompt in it: the person is answering it.
//
// Layout is read at most once a frame: a mutation only notes what changed (no layout read), and the
// follow runs once, before the frame is painted, however many deltas were drawn in it. Changes drawn in
// a frame's callback (streamed text, dom/frame.ts) are followed in that same frame, right after them:
// the layout it reads is the one the frame needs anyway. Other changes are followed in the next frame.
// Reading `scrollHeight` after every write forced a layout of the whole log per delta (issue 40).
//
// The pill says "there is news below": it shows only for transcript items added to the log (or the
// last one redrawn or growing, as streamed text does) that reach below what the person sees. What grows inside an
// item (a form, a folder listing, a table page, opened by the person) is theirs, not news.
import { h } from "./dom";
import { cancelFrame, onFrameWrites, requestFrame } from "./frame";

/** Within this many pixels of the end counts as at the end (a partial line, zoom rounding). */
const SLACK = 16;
const ANSWERING = "section.nt-prompt.nt-pending";
/** Items whose growth is news: streamed text (drawn in place, text/streamed.ts). */
const STREAMED = ".nt-assistant, .nt-thinking";

export interface FollowLog {
  /** The log with its pill: put this where the log would go. */
  el: HTMLElement;
  /** Follow from the end again (the person sent a message), including what is about to be added. */
  toEnd(): void;
  /** Run `scroll`, which moves the log (a prompt scrolled into view), as the widget's move, not the person's. */
  ownScroll(scroll: () => void): void;
  dispose(): void;
}

export function followLog(log: HTMLElement): FollowLog {
  const pill = h("button", { class: "nt-btn nt-new-pill", type: "button", hidden: true }, "New messages");
  const el = h("div", { class: "nt-log-frame" }, log, pill);
  let following = true;
  let ours = -1; // the scrollTop the widget set last, so that its own scroll events are told apart

  const atEnd = () => log.scrollHeight - log.clientHeight - log.scrollTop <= SLACK;
  const answering = () => Boolean(document.activeElement?.closest(ANSWERING) && log.contains(document.activeElement));
  /** Items changed since the last follow that may be news (noted without reading layout). */
  const noted = new Set<HTMLElement>();
  let frame: number | null = null;
  const apply = () => {
    cancel();
    if (log.scrollHeight - log.clientHeight <= SLACK) following = true; // nothing to scroll
    if (following && !answering()) {
      log.scrollTop = log.scrollHeight;
      ours = log.scrollTop;
      pill.hidden = true;
    } else if (below(log, noted)) {
      pill.hidden = false;
    }
    noted.clear();
  };
  const cancel = () => {
    if (frame !== null) cancelFrame(frame);
    frame = null;
  };
  const observer = new MutationObserver((records) => {
    for (const node of newsCandidates(log, records)) noted.add(node);
    frame ??= requestFrame(apply);
  });
  /** Follow now what changed and was not followed yet (the observer's records not delivered, or a
   * frame asked for). */
  const catchUp = () => {
    const missed = observer.takeRecords();
    for (const node of newsCandidates(log, missed)) noted.add(node);
    if (missed.length || frame !== null) apply();
  };
  // Changes drawn in a frame (streamed text) are followed in that frame, right after they are drawn.
  const stopFrames = onFrameWrites(catchUp);
  observer.observe(log, { childList: true, subtree: true, characterData: true });

  const onScroll = () => {
    if (Math.abs(log.scrollTop - ours) < 1) return;
    ours = -1;
    following = atEnd();
    if (following) pill.hidden = true;
  };
  log.addEventListener("scroll", onScroll, { passive: true });
  const toEnd = () => {
    following = true;
    observer.takeRecords(); // the person wants the end: whatever changed, it is followed now
    apply();
  };
  pill.addEventListener("click", toEnd);

  return {
    el,
    toEnd,
    ownScroll: (scroll) => {
      catchUp(); // first catch up with content not yet followed
      scroll();
      ours = log.scrollTop;
    },
    dispose: () => {
      cancel();
      stopFrames();
      observer.disconnect();
      log.removeEventListener("scroll", onScroll);
    },
  };
}

/** Whether `records` add a transcript item to `log` (or redraw or grow its last one: streamed text,
 * drawn in place) that reaches below the log's visible end: news the person cannot see. Changes
 * inside another item are not news. */
export function newsBelow(log: HTMLElement, records: MutationRecord[]): boolean {
  return below(log, newsCandidates(log, records));
}

/** The items `records` add to `log`, or its last one they redraw or grow: what may be news (no layout read). */
export function newsCandidates(log: HTMLElement, records: MutationRecord[]): Set<HTMLElement> {
  const candidates = new Set<HTMLElement>();
  for (const record of records) {
    if (record.target === log && record.type === "childList") {
      for (const node of Array.from(record.addedNodes)) {
        // a new item, or the last one drawn again; an item redrawn in the middle is not news
        if (node instanceof HTMLElement && (record.removedNodes.length === 0 || node === log.lastElementChild)) candidates.add(node);
      }
    } else {
      const last = log.lastElementChild;
      if (last instanceof HTMLElement && last.matches(STREAMED) && last.contains(record.target)) candidates.add(last);
    }
  }
  return candidates;
}

/** Whether any of `candidates` (still in the page, shown) reaches below the log's visible end. The item
 * that holds the focus is not news: the person is in it (an item redrawn by a late update in the very
 * frame they opened its form showed the pill). */
function below(log: HTMLElement, candidates: Set<HTMLElement>): boolean {
  if (!candidates.size) return false;
  const fold = log.getBoundingClientRect().bottom + SLACK;
  const focused = document.activeElement;
  return Array.from(candidates).some(
    (node) => node.isConnected && !node.hidden && !(focused && node.contains(focused)) && node.getBoundingClientRect().bottom > fold,
  );
}
