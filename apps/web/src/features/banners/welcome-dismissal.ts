/** "Don't show again" of the welcome banner (SPEC §2.4), kept per user in this browser. */
const key = (userId: string) => `moat.welcomeBanner.hidden.${userId}`;

export function isWelcomeBannerHidden(userId: string): boolean {
  try {
    return window.localStorage.getItem(key(userId)) === '1';
  } catch {
    return false;
  }
}

export function hideWelcomeBanner(userId: string): void {
  try {
    window.localStorage.setItem(key(userId), '1');
  } catch {
    // Without storage it is hidden until the page is reloaded.
  }
}
