/**
 * The user guide's Markdown as a page: headings (#, ##, ###), paragraphs, lists (- ), **bold**
 * and `code`. Everything is escaped first, so the file cannot put markup or script on the page.
 */
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')
    .replace(/`([^`]+)`/g, '<code>$1</code>');
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function markdownBody(markdown: string): { title: string; body: string } {
  const out: string[] = [];
  let title = 'User guide';
  let paragraph: string[] = [];
  let items: string[] | null = null;
  const flush = () => {
    if (paragraph.length) out.push(`<p>${inline(paragraph.join(' '))}</p>`);
    paragraph = [];
    if (items) out.push(`<ul>${items.map((item) => `<li>${inline(item)}</li>`).join('')}</ul>`);
    items = null;
  };
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const heading = /^(#{1,3}) (.+)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]!.length;
      const text = heading[2]!;
      if (level === 1) title = text;
      out.push(`<h${level} id="${slug(text)}">${inline(text)}</h${level}>`);
    } else if (/^- /.test(line)) {
      if (paragraph.length) {
        out.push(`<p>${inline(paragraph.join(' '))}</p>`);
        paragraph = [];
      }
      items = items ?? [];
      items.push(line.slice(2));
    } else if (/^\s+\S/.test(line) && items) {
      items[items.length - 1] += ` ${line.trim()}`;
    } else if (line.trim() === '') {
      flush();
    } else {
      if (items) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return { title, body: out.join('\n') };
}

/** A whole page: readable in light and dark, fits a phone. */
export function markdownPage(markdown: string): string {
  const { title, body } = markdownBody(markdown);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
:root { color-scheme: light dark; }
body { font-family: system-ui, sans-serif; line-height: 1.55; margin: 0 auto; max-width: 46rem; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 2rem; } h2 { margin-top: 2rem; border-top: 1px solid color-mix(in srgb, currentColor 20%, transparent); padding-top: 1rem; }
code { font-family: ui-monospace, monospace; }
li { margin-bottom: 0.4rem; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
