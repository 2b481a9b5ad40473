// What a running tool's card says of its reports (DOM-free, tested in node): the latest step, how far
// along it is (a bar only when the share is known, with words for screen readers) and its partial result.
import type { Item } from "../wire/protocol";

export type Activity = NonNullable<Item["activity"]>;

export interface ActivityView {
  step: string;
  /** 0..1 for the bar, or null: no bar (the share is unknown). */
  fraction: number | null;
  /** "40%" or "" when the share is unknown. */
  percent: string;
  message: string;
  /** What a screen reader says of the bar: "40%, downloading". */
  valueText: string;
  preview: string;
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** The card's view of `activity`, or null when there is nothing to show (the call ended, nothing reported). */
export function activityView(activity: Activity | null | undefined, status: Item["status"]): ActivityView | null {
  if (!activity || typeof activity !== "object" || (status !== undefined && status !== "running")) return null;
  const raw = activity.fraction;
  const fraction = typeof raw === "number" && Number.isFinite(raw) ? Math.min(Math.max(raw, 0), 1) : null;
  const percent = fraction === null ? "" : `${Math.round(fraction * 100)}%`;
  const step = text(activity.step);
  const message = text(activity.message);
  const preview = text(activity.preview);
  if (!step && !message && !preview && fraction === null) return null;
  const valueText = [percent, message].filter(Boolean).join(", ") || "working";
  return { step, fraction, percent, message, valueText, preview };
}
