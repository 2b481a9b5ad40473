// DOM-free filtering of long option lists: when a list gets a filter box, and what the filter keeps
// (the select prompt's options, the tool form's fields).

export const FILTER_THRESHOLD = 8;

/** Options whose label contains the filter text (case-insensitive). */
export function filterOptions(options: string[], filter: string): string[] {
  const needle = filter.trim().toLowerCase();
  return needle ? options.filter((o) => o.toLowerCase().includes(needle)) : options.slice();
}
