import { Fragment } from 'react';

/**
 * Where an address, a domain or a file name may wrap: after an `@`, before a dot, after a
 * hyphen, underscore, slash or plus. Exported for its test.
 */
export function breakPoints(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (const char of text) {
    if (char === '.' && current !== '') {
      parts.push(current);
      current = char;
      continue;
    }
    current += char;
    if ('@-_/+'.includes(char)) {
      parts.push(current);
      current = '';
    }
  }
  if (current !== '') parts.push(current);
  return parts;
}

/**
 * An address, domain or file name that wraps at its natural points (`<wbr>` after the `@`,
 * before each dot) instead of in the middle of a word; a single part longer than its box still
 * breaks (the `breakable` class), so it never widens the page.
 */
export function Breakable({ text }: { text: string }) {
  const parts = breakPoints(text);
  return (
    <span className="breakable">
      {parts.map((part, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string, in order
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
