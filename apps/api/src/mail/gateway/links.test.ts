import { describe, expect, it } from 'vitest';
import { linksOf } from './links.ts';

describe('linksOf', () => {
  it('reads anchors with their text, entities decoded, and bare URLs of the text', () => {
    expect(
      linksOf(
        '<p>Hi <a class="x" href="https://evil.test/?a=1&amp;b=2">https://<b>bank</b>.test/</a></p>',
        'see http://plain.test/x',
      ),
    ).toEqual([
      { href: 'https://evil.test/?a=1&b=2', text: 'https://bank.test/' },
      { href: 'http://plain.test/x', text: 'http://plain.test/x' },
    ]);
  });

  it('reads hostile HTML (unclosed anchors, runs of "<") in one pass, keeping to the link limit', () => {
    // A backtracking parser took minutes on this; the linear one reads it like any message.
    const links = linksOf(`${'<a href=x '.repeat(50_000)}>${'<'.repeat(200_000)}`, '');
    expect(links.length).toBeLessThanOrEqual(500);
  });
});
