/**
 * How matches are shown (in the trace, the console and alerts): never whole. Each type keeps only
 * what lets a person tell two values apart.
 */

/** Stars in groups of four, for the hidden middle of a number. */
const starGroups = (count: number) => ('*'.repeat(count).match(/\*{1,4}/g) ?? []).join(' ');

/** The first and last `keep` characters, the rest as stars in groups of four: `4111 **** **** 1111`. */
export function maskEnds(value: string, keep = 4): string {
  if (value.length <= keep * 2) return '*'.repeat(value.length);
  return [value.slice(0, keep), starGroups(value.length - keep * 2), value.slice(-keep)].join(' ');
}

/** Every character but the last `visible` as a star: `*******8Z`. */
export function maskAllBut(value: string, visible: number): string {
  if (value.length <= visible) return '*'.repeat(value.length);
  return '*'.repeat(value.length - visible) + value.slice(-visible);
}

/** A credential: its first and last four characters around an ellipsis, `AKIA…MPLE`. */
export function maskToken(value: string): string {
  return value.length < 16 ? '…' : `${value.slice(0, 4)}…${value.slice(-4)}`;
}

/** What a custom expression matched: two characters at each end, `AC***42`; short values all hidden. */
export function maskShort(value: string): string {
  return value.length < 8 ? '***' : `${value.slice(0, 2)}***${value.slice(-2)}`;
}
