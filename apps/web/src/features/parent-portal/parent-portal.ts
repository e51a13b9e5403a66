import { USER_ACTIVE_MESSAGE_INTERVAL_MS } from '@moat/contracts/constants';

/**
 * The provider domains whose portals may embed this app (SPEC §4 "Parent portal message"): an
 * origin is trusted when its host is one of them or a subdomain of one, over https.
 */
export const PARENT_PORTAL_DOMAINS = ['checkpoint.com', 'avanan.com'] as const;

/** The message sent to the parent portal while the user is active. */
export const USER_ACTIVE_MESSAGE = Object.freeze({ source: 'email_collaboration', action: 'user-active' });

/** Input events that count as activity. */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart', 'scroll'] as const;

export function isAllowedParentOrigin(origin: string | null | undefined): boolean {
  if (!origin) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.origin !== origin.replace(/\/$/, '')) return false;
  const host = url.hostname.toLowerCase();
  return PARENT_PORTAL_DOMAINS.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** The embedding page's origin, when the browser tells it and it is an allowed portal. */
export function embeddingOrigin(win: Window): string | null {
  const ancestor = win.location.ancestorOrigins?.[0];
  if (ancestor && isAllowedParentOrigin(ancestor)) return ancestor;
  try {
    const referrer = win.document.referrer ? new URL(win.document.referrer).origin : null;
    return referrer && isAllowedParentOrigin(referrer) ? referrer : null;
  } catch {
    return null;
  }
}

export interface ParentPortalOptions {
  win: Window;
  /** The page that embeds this app; the reporter does nothing when it is `win` itself. */
  parent: Pick<Window, 'postMessage'>;
  now?: () => number;
  /** A message accepted from an allowed portal. */
  onMessage?: (event: MessageEvent) => void;
}

/**
 * SPEC §4 "Parent portal message": when embedded, every USER_ACTIVE_MESSAGE_INTERVAL_MS in which
 * the user had input and the page is visible, tells the parent portal the user is active. Only
 * messages from allowed portal origins are accepted (their origin becomes the target of ours when
 * the browser did not tell the embedding origin); others are refused with a console error.
 * Returns the function that stops it all.
 */
export function startParentPortalReporter({
  win,
  parent,
  now = Date.now,
  onMessage,
}: ParentPortalOptions): () => void {
  if ((parent as unknown) === win) return () => {};
  let parentOrigin = embeddingOrigin(win);
  let lastInput = Number.NEGATIVE_INFINITY;

  const markActive = () => {
    lastInput = now();
  };
  const receive = (event: MessageEvent) => {
    if (!isAllowedParentOrigin(event.origin)) {
      console.error(`Ignored a message from ${event.origin || 'an unknown origin'}: not an allowed portal.`);
      return;
    }
    parentOrigin ??= event.origin;
    onMessage?.(event);
  };
  const tick = () => {
    const active = now() - lastInput <= USER_ACTIVE_MESSAGE_INTERVAL_MS;
    if (!active || win.document.visibilityState !== 'visible' || !parentOrigin) return;
    parent.postMessage({ ...USER_ACTIVE_MESSAGE }, parentOrigin);
  };

  for (const type of ACTIVITY_EVENTS)
    win.addEventListener(type, markActive, { passive: true, capture: true });
  win.addEventListener('message', receive);
  const interval = setInterval(tick, USER_ACTIVE_MESSAGE_INTERVAL_MS);
  return () => {
    for (const type of ACTIVITY_EVENTS) win.removeEventListener(type, markActive, { capture: true });
    win.removeEventListener('message', receive);
    clearInterval(interval);
  };
}
