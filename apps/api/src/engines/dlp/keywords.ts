/**
 * Keyword matching in time linear in the text (plus the matches found), whatever the keywords:
 * an Aho-Corasick automaton over the keywords, lower-cased, their white space runs as one space.
 * The text is brought to the same form once (white space runs to one space, lower case), every
 * keyword occurrence in it is found in one pass, and those that stand as whole words are kept:
 * not preceded or followed by a letter, digit or `_`. At each position the longest keyword wins,
 * and the search resumes after it (so "project falcon" is one match, not also "project").
 */

/**
 * A text with each white space run as one space, lower-cased. Matching runs on this form alone
 * (keywords are brought to it too), so its length may differ from the original's.
 */
export function keywordForm(text: string): string {
  // Most white space is already one space: only longer runs and other spaces are replaced.
  return text.replace(/ ?[^\S ]\s*| {2,}\s*/g, ' ').toLowerCase();
}

const WORD = /[\p{L}\p{N}_]/u;

/** Whether the UTF-16 unit at `i` (with its surrogate pair, if any) is a letter, digit or `_`. */
function wordAt(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const code = text.charCodeAt(i);
  if (code < 0x80) {
    return (
      (code >= 0x30 && code <= 0x39) ||
      (code >= 0x41 && code <= 0x5a) ||
      (code >= 0x61 && code <= 0x7a) ||
      code === 0x5f
    );
  }
  // A low surrogate: the character starts one unit before.
  if (code >= 0xdc00 && code <= 0xdfff && i > 0) {
    return WORD.test(String.fromCodePoint(text.codePointAt(i - 1)!));
  }
  return WORD.test(String.fromCodePoint(text.codePointAt(i)!));
}

/** Up to this many keywords, a text is first searched for each (linear, native) before the automaton runs. */
const PREFILTER_WORDS = 32;

/** A compiled set of keywords. */
export class KeywordMatcher {
  /** Children of each state: `state * 65536 + unit` → state. */
  private readonly next = new Map<number, number>();
  private readonly fail: Int32Array;
  /** The keyword ending at a state (its index), or -1. */
  private readonly word: Int32Array;
  /** The nearest state on the fail chain (itself excluded) where a keyword ends, or -1. */
  private readonly output: Int32Array;
  /** The keywords in their matching form, by index. */
  readonly words: string[];

  constructor(keywords: string[]) {
    this.words = [...new Set(keywords.map((k) => keywordForm(k.trim())).filter(Boolean))];
    let states = 1;
    const ends: Array<[number, number]> = [];
    for (const [index, keyword] of this.words.entries()) {
      let state = 0;
      for (let i = 0; i < keyword.length; i++) {
        const key = state * 65536 + keyword.charCodeAt(i);
        let child = this.next.get(key);
        if (child === undefined) {
          child = states++;
          this.next.set(key, child);
        }
        state = child;
      }
      ends.push([state, index]);
    }
    this.fail = new Int32Array(states);
    this.word = new Int32Array(states).fill(-1);
    this.output = new Int32Array(states).fill(-1);
    for (const [state, index] of ends) this.word[state] = index;
    // Children by state, for the breadth-first walk that sets the fail links.
    const children: Array<Array<[number, number]>> = Array.from({ length: states }, () => []);
    for (const [key, child] of this.next) children[Math.floor(key / 65536)]!.push([key % 65536, child]);
    const queue: number[] = [];
    for (const [, child] of children[0]!) queue.push(child);
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [unit, child] of children[state]!) {
        let f = this.fail[state]!;
        let target = this.next.get(f * 65536 + unit);
        while (target === undefined && f !== 0) {
          f = this.fail[f]!;
          target = this.next.get(f * 65536 + unit);
        }
        const link = target !== undefined && target !== child ? target : 0;
        this.fail[child] = link;
        this.output[child] = this.word[link]! >= 0 ? link : this.output[link]!;
        queue.push(child);
      }
    }
  }

  /**
   * Each whole-word occurrence in a text already in `keywordForm`, in order, as its keyword's
   * index; stops when `found` returns false. The longest keyword starting at a position is known
   * once the scan is `longest` units past it: it is then reported (when no earlier match covers
   * it), so memory stays bounded by the longest keyword.
   */
  find(text: string, found: (index: number) => boolean): void {
    // A few keywords: a native substring search for each tells most texts hold none of them.
    if (this.words.length <= PREFILTER_WORDS && !this.words.some((w) => text.includes(w))) return;
    const lengths = this.words.map((w) => w.length);
    const longest = Math.max(1, ...lengths);
    /** The longest match by start, modulo `longest`: its keyword's index + 1, 0 for none. */
    const best = new Int32Array(longest);
    let resume = 0;
    const settle = (start: number): boolean => {
      const slot = start % longest;
      const index = best[slot]! - 1;
      best[slot] = 0;
      if (index < 0 || start < resume) return true;
      resume = start + lengths[index]!;
      return found(index);
    };
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      let target = this.next.get(state * 65536 + unit);
      while (target === undefined && state !== 0) {
        state = this.fail[state]!;
        target = this.next.get(state * 65536 + unit);
      }
      state = target ?? 0;
      if (!wordAt(text, i + 1)) {
        for (let s = this.word[state]! >= 0 ? state : this.output[state]!; s >= 0; s = this.output[s]!) {
          const index = this.word[s]!;
          const start = i + 1 - lengths[index]!;
          if (wordAt(text, start - 1)) continue;
          const slot = start % longest;
          const known = best[slot]! - 1;
          if (known < 0 || lengths[known]! < lengths[index]!) best[slot] = index + 1;
        }
      }
      // No match starting here can end later than this: its longest is final.
      const settled = i + 1 - longest;
      if (settled >= 0 && !settle(settled)) return;
    }
    for (let start = Math.max(0, text.length - longest + 1); start < text.length; start++) {
      if (!settle(start)) return;
    }
  }
}
