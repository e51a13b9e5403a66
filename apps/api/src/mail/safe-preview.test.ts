import { describe, expect, it } from 'vitest';
import { inertHtml, PREVIEW_POLICY, previewDocument } from './safe-preview.ts';

describe('inertHtml', () => {
  it('keeps the layout attributes and drops every URL, handler and active element', () => {
    const out = inertHtml(
      '<p class=x style="color:red" onclick="a()">Hi <a href="https://e.example" target=_blank>there</a></p>' +
        "<img src='https://t.example/p.gif' alt='logo' width=10><script>alert(1)</script>" +
        '<object data="x.swf"><p>inside</p></object><!-- <img src=x> -->' +
        '<TABLE BGCOLOR=#fff CELLPADDING=4><tr><td colspan=2>cell</td></tr></TABLE>',
    );
    expect(out).toBe(
      '<p class="x" style="color:red">Hi <a>there</a></p><img alt=\'logo\' width="10">' +
        '<table bgcolor="#fff" cellpadding="4"><tr><td colspan="2">cell</td></tr></table>',
    );
  });

  it('keeps a data: image and the text of style and textarea as it is', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    expect(inertHtml(`<img src="${png}">`)).toBe(`<img src="${png}">`);
    expect(inertHtml('<img src="data:text/html;base64,PHNjcmlwdD4=">')).toBe('<img>');
    expect(inertHtml('<style>a{color:red}</style>')).toBe('<style>a{color:red}</style>');
    expect(inertHtml('<textarea><b>x</b></textarea><script>x</script>')).toBe(
      '<textarea><b>x</b></textarea>',
    );
  });

  it('drops nested embedded documents whole and takes deep nesting in one pass', () => {
    expect(inertHtml('<svg><svg><a href="javascript:x">1</a></svg><a>2</a></svg>after')).toBe('after');
    const deep = `${'<div>'.repeat(100_000)}x${'</div>'.repeat(100_000)}`;
    const started = performance.now();
    expect(inertHtml(deep).length).toBe(deep.length);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('previewDocument', () => {
  it('forbids loading anything and shows a text-only body as text', () => {
    const doc = previewDocument({ html: null, text: 'Hello <b>you</b>' });
    expect(doc).toContain(`content="${PREVIEW_POLICY}"`);
    expect(doc).toContain('Hello &lt;b&gt;you&lt;/b&gt;');
  });
});
