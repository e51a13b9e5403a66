/**
 * The DMARC pages' starting filter travels in an encoded `drillDown` query parameter (SPEC §2.4
 * "Several carry an encoded drillDown query parameter"): base64 of a JSON object of strings. The
 * navigation sends `{ dateRange: 'month' }`; the Overview sends a domain, a source and a result.
 */
export type DrillDown = Readonly<Record<string, string>>;

/** UTF-8 safe base64 of the filter (a label may hold non-ASCII words). */
export function encodeDrillDown(filter: DrillDown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(filter));
  return btoa(String.fromCharCode(...bytes));
}

/** The filter a `drillDown` value carries; anything unreadable or not an object of strings is no filter. */
export function decodeDrillDown(value: string | null | undefined): DrillDown {
  if (!value || value.length > 4096) return {};
  try {
    const bytes = Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return {};
  }
}

/** A path with its drill-down filter (empty values left out). */
export function drillDownHref(path: string, filter: Readonly<Record<string, string | undefined>>): string {
  const kept = Object.fromEntries(
    Object.entries(filter).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
  return Object.keys(kept).length === 0
    ? path
    : `${path}?${new URLSearchParams({ drillDown: encodeDrillDown(kept) })}`;
}

/** The periods a drill-down's `dateRange` names, in days. */
export const DRILL_DOWN_DAYS = { week: 7, month: 30, quarter: 90, year: 365 } as const;
export type DrillDownRange = keyof typeof DRILL_DOWN_DAYS;

export const rangeOfDays = (days: number): DrillDownRange | undefined =>
  (Object.keys(DRILL_DOWN_DAYS) as DrillDownRange[]).find((k) => DRILL_DOWN_DAYS[k] === days);

export const daysOfRange = (range: string | undefined): number | undefined =>
  range && range in DRILL_DOWN_DAYS ? DRILL_DOWN_DAYS[range as DrillDownRange] : undefined;
