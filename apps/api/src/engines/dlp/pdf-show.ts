import { decodeString, type FontDecoder, LATIN1_FONT } from './pdf-fonts.ts';

/** Where the text of a PDF is gathered, up to `max` characters. */
export interface TextOut {
  parts: string[];
  length: number;
  max: number;
}

/** A gap in a `TJ` array wider than this (thousandths of the font size) separates words. */
const WORD_GAP = 200;

const isSpace = (code: number) =>
  code === 32 || code === 10 || code === 13 || code === 9 || code === 12 || code === 0;
/** PDF delimiters end names, numbers and operators. */
const isDelimiter = (code: number) => isSpace(code) || '()<>[]{}/%'.includes(String.fromCharCode(code));

/** A literal string `( … )` from `at`: its bytes (escapes resolved, nested parentheses kept) and where it ends. */
function literalString(content: string, at: number): [string, number] {
  const out: string[] = [];
  let depth = 1;
  let i = at + 1;
  let run = i;
  for (; i < content.length; i++) {
    const ch = content[i]!;
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) break;
    else if (ch === '\\') {
      out.push(content.slice(run, i));
      const next = content[i + 1] ?? '';
      const octal = /^[0-7]{1,3}/.exec(content.slice(i + 1, i + 4))?.[0];
      if (octal) {
        out.push(String.fromCharCode(Number.parseInt(octal, 8) & 0xff));
        i += octal.length;
      } else if (next === '\r' || next === '\n') {
        i += next === '\r' && content[i + 2] === '\n' ? 2 : 1;
      } else {
        out.push({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' }[next] ?? next);
        i += 1;
      }
      run = i + 1;
    }
  }
  out.push(content.slice(run, i));
  return [out.join(''), i + 1];
}

/** A hex string `< … >` from `at`: its bytes and where it ends (an odd last digit counts as followed by 0). */
function hexString(content: string, at: number): [string, number] {
  const end = content.indexOf('>', at);
  const stop = end === -1 ? content.length : end;
  const hex = content.slice(at + 1, stop).replace(/[^0-9A-Fa-f]/g, '');
  let out = '';
  for (let i = 0; i < hex.length; i += 2)
    out += String.fromCharCode(Number.parseInt(hex.slice(i, i + 2).padEnd(2, '0'), 16));
  return [out, stop + 1];
}

/** What the interpreter keeps between operators. */
interface State {
  font: FontDecoder;
  fonts: Map<string, FontDecoder>;
  strings: string[];
  numbers: number[];
  array: Array<string | number> | null;
  name: string;
  /** The text line's vertical position: a move along the same line separates words, not lines. */
  lineY: number;
  shownY: number | null;
  /** The break a move asked for, written before the next text unless white space is there already. */
  pending: '' | ' ' | '\n';
}

function write(out: TextOut, text: string): void {
  if (!text || out.length >= out.max) return;
  out.parts.push(text);
  out.length += text.length;
}

const isWhite = (ch: string | undefined) => ch === ' ' || ch === '\n' || ch === '\t';

/** Shown text, after the break a move asked for (a run that starts with its own space needs no other). */
function show(state: State, out: TextOut, text: string): void {
  if (!text) return;
  const last = out.parts.at(-1)?.at(-1);
  if (state.pending === '\n' && last !== undefined && last !== '\n') write(out, '\n');
  else if (state.pending === ' ' && last !== undefined && !isWhite(last) && !isWhite(text[0]))
    write(out, ' ');
  state.pending = '';
  write(out, text);
}

/** A move of the text position: a space when it stays on the line, a new line otherwise. */
function moveTo(state: State, y: number | null): void {
  const sameLine = y !== null && state.shownY !== null && Math.abs(y - state.shownY) < 0.01;
  if (state.pending !== '\n') state.pending = sameLine ? ' ' : '\n';
  if (y !== null) state.shownY = y;
}

/** Runs one operator: text shown is written, moves become spaces or line breaks. */
function operate(op: string, state: State, out: TextOut): void {
  const b = state.numbers.at(-1);
  switch (op) {
    case 'Tf':
      state.font = state.fonts.get(state.name) ?? LATIN1_FONT;
      break;
    case 'BT':
      state.lineY = 0;
      break;
    case 'Td':
    case 'TD':
      state.lineY += b ?? 0;
      moveTo(state, b === 0 ? state.shownY : state.lineY);
      break;
    case 'Tm':
      state.lineY = b ?? 0;
      moveTo(state, state.lineY);
      break;
    case 'T*':
      moveTo(state, null);
      break;
    case "'":
    case '"':
      moveTo(state, null);
      show(state, out, decodeString(state.strings.at(-1) ?? '', state.font));
      break;
    case 'Tj':
      show(state, out, decodeString(state.strings.at(-1) ?? '', state.font));
      break;
    case 'TJ':
      for (const item of state.array ?? []) {
        if (typeof item === 'string') show(state, out, decodeString(item, state.font));
        else if (item < -WORD_GAP && state.pending === '') state.pending = ' ';
      }
      break;
  }
  state.strings = [];
  state.numbers = [];
  state.array = null;
}

/** Skips an inline image (`BI … ID <bytes> EI`): its bytes are no text. */
function skipInlineImage(content: string, at: number): number {
  const data = content.indexOf('ID', at);
  if (data === -1) return content.length;
  const end = /\sEI(?=\s|$)/g;
  end.lastIndex = data + 2;
  const found = end.exec(content);
  return found ? found.index + found[0].length : content.length;
}

/**
 * The text a content stream shows (`Tj`, `TJ`, `'`, `"`), through the fonts `Tf` selects, written
 * to `out`. One pass over the stream; nothing is drawn.
 */
export function showText(content: string, fonts: Map<string, FontDecoder>, out: TextOut): void {
  const state: State = {
    font: LATIN1_FONT,
    fonts,
    strings: [],
    numbers: [],
    array: null,
    name: '',
    lineY: 0,
    shownY: null,
    pending: '\n',
  };
  const n = content.length;
  for (let i = 0; i < n && out.length < out.max; ) {
    const code = content.charCodeAt(i);
    const ch = content[i]!;
    if (isSpace(code)) i++;
    else if (ch === '%') {
      while (i < n && content[i] !== '\n' && content[i] !== '\r') i++;
    } else if (ch === '(' || (ch === '<' && content[i + 1] !== '<')) {
      const [bytes, next] = ch === '(' ? literalString(content, i) : hexString(content, i);
      if (state.array) state.array.push(bytes);
      else state.strings.push(bytes);
      i = next;
    } else if (ch === '[') {
      state.array = [];
      i++;
    } else if (ch === '/') {
      let j = i + 1;
      while (j < n && !isDelimiter(content.charCodeAt(j))) j++;
      state.name = content.slice(i + 1, j);
      i = j;
    } else if (isDelimiter(code)) i++;
    else {
      let j = i + 1;
      while (j < n && !isDelimiter(content.charCodeAt(j))) j++;
      const token = content.slice(i, j);
      i = j;
      const number = Number(token);
      if (/^[+-]?(?:\d+\.?\d*|\.\d+)$/.test(token)) {
        if (state.array) state.array.push(number);
        else if (state.numbers.push(number) > 8) state.numbers.shift();
      } else if (token === 'BI') i = skipInlineImage(content, i);
      else operate(token, state, out);
    }
  }
}
