/** Only web links leave the app from a server-given href (never `javascript:` and the like). */
export function safeExternalHref(href: string): string | null {
  try {
    const url = new URL(href, window.location.origin);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
