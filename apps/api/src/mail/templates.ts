import type { Brand } from '@moat/contracts/deployment';

const BRAND: Record<Brand, { name: string; colour: string }> = {
  moat: { name: 'Moat', colour: '#1c6fd1' },
  checkpoint: { name: 'Email Security', colour: '#e1066b' },
  sonicwall: { name: 'Cloud Email Security', colour: '#ff791a' },
};

export interface MailBrand {
  name: string;
  colour: string;
}

export function mailBrand(tenant: { brand: Brand; brandName: string | null } | null): MailBrand {
  const base = BRAND[tenant?.brand ?? 'moat'] ?? BRAND.moat;
  return { name: tenant?.brandName || base.name, colour: base.colour };
}

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

/**
 * One layout for every email: a plain-text part and an HTML part with the same words.
 * Paragraphs are plain strings (escaped here); `code` is shown large; `action` is a button link.
 */
export function renderMail(
  brand: MailBrand,
  content: {
    subject: string;
    heading: string;
    paragraphs: string[];
    code?: string;
    action?: { label: string; url: string };
    /** Further links, shown smaller under the main action. */
    links?: Array<{ label: string; url: string }>;
    footer?: string;
  },
): Rendered {
  const footer =
    content.footer ?? `This message was sent by ${brand.name}. If you did not expect it, you can ignore it.`;
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((p) => [p, '']),
    ...(content.code ? [content.code, ''] : []),
    ...(content.action ? [`${content.action.label}: ${content.action.url}`, ''] : []),
    ...(content.links ?? []).flatMap((l) => [`${l.label}: ${l.url}`, '']),
    '--',
    footer,
  ].join('\n');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f6f8;font-family:Segoe UI,Helvetica,Arial,sans-serif;color:#1f2933">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:${brand.colour};color:#ffffff;padding:16px 24px;font-size:18px;font-weight:700">${escapeHtml(brand.name)}</td></tr>
<tr><td style="padding:24px">
<h1 style="margin:0 0 16px;font-size:20px">${escapeHtml(content.heading)}</h1>
${content.paragraphs.map((p) => `<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(p)}</p>`).join('\n')}
${content.code ? `<p style="margin:16px 0;font-size:32px;font-weight:700;letter-spacing:8px;font-family:Consolas,monospace">${escapeHtml(content.code)}</p>` : ''}
${content.action ? `<p style="margin:20px 0"><a href="${escapeHtml(content.action.url)}" style="background:${brand.colour};color:#ffffff;padding:10px 18px;border-radius:4px;text-decoration:none;display:inline-block">${escapeHtml(content.action.label)}</a></p><p style="margin:0 0 12px;font-size:12px;color:#52606d;word-break:break-all">${escapeHtml(content.action.url)}</p>` : ''}
${(content.links ?? []).map((l) => `<p style="margin:8px 0;font-size:13px"><a href="${escapeHtml(l.url)}" style="color:${brand.colour}">${escapeHtml(l.label)}</a></p>`).join('\n')}
</td></tr>
<tr><td style="padding:16px 24px;font-size:12px;color:#52606d;border-top:1px solid #e4e7eb">${escapeHtml(footer)}</td></tr>
</table></td></tr></table></body></html>`;
  return { subject: content.subject, text, html };
}
