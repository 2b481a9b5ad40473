// The widget's animation frames: work that waits for a frame, and what follows the writes of a frame.
//
// Work that waits for a frame (streamed text, drawn at most once a frame) writes the DOM in the frame's
// callback; what reacts to those writes (the log following its end, follow.ts) runs in the same frame,
// right after them and before the frame is painted, instead of asking for a frame of its own: one
// frame, one layout and one paint per batch of deltas rather than two (issue 40).
// Where there are no frames (jsdom) the callback runs as a task.

const afterWrites = new Set<() => void>();

/** Run `fn` in the next animation frame, then everything registered with `onFrameWrites`. */
export function requestFrame(fn: () => void): number {
  const run = () => {
    try {
      fn();
    } finally {
      for (const after of Array.from(afterWrites)) {
        try {
          after();
        } catch (err) {
          // reported as the page's error (the console shows it), and the other hooks still run
          if (typeof reportError === "function") reportError(err);
          else console.error(err);
        }
      }
    }
  };
  return typeof requestAnimationFrame === "function" ? requestAnimationFrame(run) : (setTimeout(run, 0) as unknown as number);
}

export function cancelFrame(id: number): void {
  if (typeof cancelAnimationFrame === "function") cancelAnimationFrame(id);
  else clearTimeout(id);
}

/** Call `after` at the end of each frame `requestFrame` runs; returns the function that stops. */
export function onFrameWrites(after: () => void): () => void {
  afterWrites.add(after);
  return () => afterWrites.delete(after);
}
