import { API } from '@moat/contracts/api-paths';
import type { ReactNode } from 'react';
import { useEffect, useState } from 'react';
import { apiGet } from '../../../lib/http';
import { t } from '../../../lib/public-texts';
import { withRetries } from '../../../lib/retry';
import { type PublicSettings, publicSettingsAnswer } from '../api/public-settings-answer';
import { applyBrandBodyClass, brandBodyClass } from '../brand-class';

/** The frames of the public pages (the email-actions pages) and of the sign-in area. */

/** Sets the browser tab title to "<title> - <app name>". */
export function usePublicDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = t('app.documentTitle', { title });
  }, [title]);
}

/**
 * GET the public settings once (a failure tried twice more): they choose the brand theme, which
 * is applied at once; their failure is the page's 'Connection error'.
 */
export function usePublicSettings(): PublicSettings | 'pending' | 'failed' {
  const [settings, setSettings] = useState<PublicSettings | 'pending' | 'failed'>('pending');
  useEffect(() => {
    const abort = new AbortController();
    withRetries(
      () => apiGet(API.uiFeaturesPublic, { schema: publicSettingsAnswer, signal: abort.signal }),
      abort.signal,
    ).then(
      (answer) => {
        applyBrandBodyClass(document.body, brandBodyClass(answer));
        setSettings(answer);
      },
      () => {
        if (!abort.signal.aborted) setSettings('failed');
      },
    );
    return () => abort.abort();
  }, []);
  return settings;
}

/** The organisation's logo (its own, or the brand's default the server answers), else the product mark. */
export function BrandLogo() {
  const [failed, setFailed] = useState(false);
  if (failed) {
    return (
      <svg
        role="img"
        aria-label={t('app.logoAlt')}
        width="56"
        height="56"
        viewBox="0 0 48 48"
        className="app-logo"
      >
        <circle cx="24" cy="24" r="22" fill="none" stroke="currentColor" strokeWidth="3" />
        <path d="M24 9l12 5v9c0 8-5.2 13.6-12 16-6.8-2.4-12-8-12-16v-9z" fill="currentColor" />
        <path d="M18.5 24l4 4 7-8" fill="none" stroke="var(--body)" strokeWidth="3" />
      </svg>
    );
  }
  return (
    <img
      src={API.customIconPublic}
      alt={t('emailActions.customLogoAlt')}
      className="public-layout__logo-image"
      onError={() => setFailed(true)}
    />
  );
}

/** The tenant's logo above the page. */
export function PublicLayout({ children }: { children: ReactNode }) {
  return (
    <main className="public-layout">
      <div className="public-layout__logo">
        <BrandLogo />
      </div>
      <div className="public-layout__content">{children}</div>
    </main>
  );
}

/**
 * The sign-in area's panel (SPEC §2.1): the organisation's logo, a vertical divider (horizontal
 * on narrow screens) and the page. The public bundle's login page and the console's sign-in pages
 * share it.
 */
export function SignInFrame({ children }: { children: ReactNode }) {
  return (
    <main className="sign-in-layout">
      <div className="sign-in-panel">
        <div className="sign-in-panel__brand">
          <BrandLogo />
        </div>
        <hr className="sign-in-panel__divider" />
        <div className="sign-in-panel__content">{children}</div>
      </div>
    </main>
  );
}
