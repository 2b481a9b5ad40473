// DOM-free reading of an edited approval: the kernel's summary "Approved with edits: {...}" back into
// the arguments the call ran with, each marked changed or not, for the answered approval card.

/** One argument of an edited call, as the answered approval card lists it. */
export interface EditedArg {
  key: string;
  /** The value it ran with, as JSON; null when the edit removed it. */
  value: string | null;
  changed: boolean;
}

/** "Approved with edits: {...}" (the kernel's summary of an edited approval) read back into its parts:
 * the arguments, changed ones first, and what follows them ("(remembered ...)"); null for any other answer. */
export function parseEditedAnswer(answer: string, original: Record<string, unknown>): { head: string; args: EditedArg[]; changed: number; tail: string } | null {
  const match = /^(Approved with edits): (\{[\s\S]*\})((?: \([^(){}]*\))?)$/.exec(answer);
  if (!match) return null;
  let edited: unknown;
  try {
    edited = JSON.parse(match[2]);
  } catch {
    return null;
  }
  if (typeof edited !== "object" || edited === null || Array.isArray(edited)) return null;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const args: EditedArg[] = Object.entries(edited).map(([key, value]) => ({
    key,
    value: JSON.stringify(value),
    changed: !(key in original) || !same(original[key], value),
  }));
  for (const key of Object.keys(original)) if (!(key in edited)) args.push({ key, value: null, changed: true });
  const changed = args.filter((a) => a.changed).length;
  // Changed first (stable sort): what the person did is what the card is for.
  args.sort((a, b) => Number(b.changed) - Number(a.changed));
  return { head: match[1], args, changed, tail: match[3].trim() };
}
