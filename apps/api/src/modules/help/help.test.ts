import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/app.ts';
import { markdownBody } from './markdown.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('GET /help', () => {
  it('answers the user guide as a page of its own (docs/user-guide.md), not the API reference', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/help' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<h1 id="moat-user-guide">Moat user guide</h1>');
    expect(res.body).toContain('<h2 id="mail-explorer">Mail Explorer</h2>');
    expect(res.body).not.toMatch(/openapi|swagger/i);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });
});

describe('markdownBody', () => {
  it('renders headings, paragraphs, lists, bold and code, and escapes everything else', () => {
    const { title, body } = markdownBody(
      '# Guide\n\nText with **bold** and `code`\nwrapped.\n\n- one\n  more\n- <script>alert(1)</script>\n',
    );
    expect(title).toBe('Guide');
    expect(body).toBe(
      [
        '<h1 id="guide">Guide</h1>',
        '<p>Text with <strong>bold</strong> and <code>code</code> wrapped.</p>',
        '<ul><li>one more</li><li>&lt;script&gt;alert(1)&lt;/script&gt;</li></ul>',
      ].join('\n'),
    );
  });
});
