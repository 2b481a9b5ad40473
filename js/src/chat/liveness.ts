// Whether the kernel behind this view is still the one that made it.
//
// A kernel restart (or shutdown) closes every comm: the model stays on the page but nothing it sends
// arrives (JupyterLab logs "Cannot send"). anywidget hands the view the ipywidgets manager, whose
// `kernel` is JupyterLab's kernel connection: its status says "restarting"/"autorestarting" on a
// restart and "dead" when the kernel is gone, and the connection is disposed when the notebook
// switches kernels. Any of these ends this view's kernel for good: a restarted kernel has new comms.

export type Gone = (reason: string) => void;

interface Signal<T> {
  connect(slot: (sender: unknown, value: T) => void): boolean;
  disconnect(slot: (sender: unknown, value: T) => void): boolean;
}

interface KernelLike {
  statusChanged?: Signal<string>;
  disposed?: Signal<void>;
  status?: string;
}

export const RESTARTED = "The kernel restarted, so this chat is no longer connected to it. Run its cell again to start over (or rebuild it with nt.Chat.resume from a store).";
export const STOPPED = "The kernel stopped, so this chat is no longer connected to it. Start a kernel and run its cell again.";
export const CLOSED = "This chat's connection to the kernel is closed (the kernel restarted or was changed). Run its cell again.";

/** Why a kernel status ends this view, or null while it lives. */
export function goneReason(status: string): string | null {
  if (status === "restarting" || status === "autorestarting") return RESTARTED;
  if (status === "dead") return STOPPED;
  return null;
}

/** Call `gone` once when this view's kernel restarts, dies or is replaced; returns the unsubscribe. */
export function watchKernel(manager: unknown, gone: Gone): () => void {
  const kernel = (manager as { kernel?: KernelLike } | undefined)?.kernel;
  if (!kernel || !kernel.statusChanged) return () => {}; // not in JupyterLab (a test page, another host)
  let done = false;
  const once = (reason: string | null) => {
    if (done || reason === null) return;
    done = true;
    gone(reason);
  };
  const onStatus = (_sender: unknown, status: string) => once(goneReason(status));
  const onDisposed = () => once(CLOSED);
  kernel.statusChanged.connect(onStatus);
  kernel.disposed?.connect(onDisposed);
  if (kernel.status) once(goneReason(kernel.status));
  return () => {
    kernel.statusChanged?.disconnect(onStatus);
    kernel.disposed?.disconnect(onDisposed);
  };
}
