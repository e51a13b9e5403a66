/** @jsxImportSource preact */
import { API } from '@moat/contracts/api-paths';
import { REQUIRED_ACTION_PARAMS } from '@moat/contracts/public-actions';
import { ROUTES } from '@moat/contracts/routes';
import { useEffect, useState } from 'preact/hooks';
import { readActionParams } from '../../features/email-actions/action-params';
import { mailActionFlow } from '../../features/email-actions/adapters/mail-action';
import { restoreEmailFlow } from '../../features/email-actions/adapters/restore-email';
import { restoreOriginalFlow } from '../../features/email-actions/adapters/restore-original';
import { type BrandSettings, brandSettingsAnswer } from '../../features/email-actions/api/answers';
import { FlowTitle, PublicFlow } from '../../features/email-actions/components/PublicFlow';
import { Message, PageLoader } from '../../features/email-actions/components/ui';
import type { FlowAdapter } from '../../features/email-actions/flow-types';
import { t } from '../../features/email-actions/texts';
import { applyBrandBodyClass, brandBodyClass } from '../../features/public-settings/brand-class';
import { apiGet } from '../../lib/http';
import type { TranslationKey } from '../../lib/i18n';
import { withRetries } from '../../lib/retry';

interface PageConfig {
  requiredParams: readonly string[];
  missingParamsKey: TranslationKey;
  flow: FlowAdapter;
}

/** The public pages of SPEC §2.2 by path; restore-attachment shows its title only. */
const PAGES: Record<string, PageConfig | 'restoreAttachment'> = {
  [ROUTES.emailActions.restoreEmail]: {
    requiredParams: REQUIRED_ACTION_PARAMS.restoreEmail,
    missingParamsKey: 'emailActions.restoreEmail.missingParams',
    flow: restoreEmailFlow,
  },
  [ROUTES.emailActions.restoreOriginal]: {
    requiredParams: REQUIRED_ACTION_PARAMS.restoreOriginal,
    missingParamsKey: 'emailActions.restoreOriginal.missingParams',
    flow: restoreOriginalFlow,
  },
  [ROUTES.emailActions.action]: {
    requiredParams: REQUIRED_ACTION_PARAMS.action,
    missingParamsKey: 'emailActions.action.missingParams',
    flow: mailActionFlow,
  },
  [ROUTES.emailActions.restoreAttachment]: 'restoreAttachment',
};

/** Whether a hash path (`/email-actions/restore-email`) is one of the public pages. */
export function isPublicPagePath(pathname: string): boolean {
  return Object.hasOwn(PAGES, pathname);
}

/** Sets the browser tab title to "<title> - <app name>". */
function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = t('app.documentTitle', { title });
  }, [title]);
}

/**
 * GET the public settings once (a failure tried twice more): they choose the brand theme; their
 * failure is a 'Connection error'.
 */
function useBrandSettings(): BrandSettings | 'pending' | 'failed' {
  const [settings, setSettings] = useState<BrandSettings | 'pending' | 'failed'>('pending');
  useEffect(() => {
    const abort = new AbortController();
    withRetries(
      () => apiGet(API.uiFeaturesPublic, { schema: brandSettingsAnswer, signal: abort.signal }),
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

/**
 * The frame shared by the public pages (SPEC §2.2): public settings first, a page loader that
 * fades out, the required-parameter check, then the page's flow.
 */
function PublicActionPage({ config, search }: { config: PageConfig; search: URLSearchParams }) {
  const title = t(config.flow.texts.title);
  useDocumentTitle(title);
  const settings = useBrandSettings();
  const [params] = useState(() => readActionParams(search, config.requiredParams));

  let content = null;
  if (settings === 'failed') content = <Message tone="error">{t('emailActions.connectionError')}</Message>;
  else if (settings !== 'pending' && !params)
    content = <Message tone="error">{t(config.missingParamsKey)}</Message>;

  return (
    <>
      <PageLoader done={settings !== 'pending'} />
      <section class="panel">
        {settings !== 'pending' && settings !== 'failed' && params ? (
          <PublicFlow adapter={config.flow} params={params} />
        ) : (
          <div class="stack">
            <FlowTitle>{title}</FlowTitle>
            {content}
          </div>
        )}
      </section>
    </>
  );
}

/** email-actions/restore-attachment: a placeholder page (SPEC §2.2 shows nothing more). */
function RestoreAttachmentPage() {
  const title = t('emailActions.restoreAttachment.title');
  useDocumentTitle(title);
  useBrandSettings();
  return (
    <section class="panel">
      <FlowTitle>{title}</FlowTitle>
    </section>
  );
}

/** The organisation's logo (its own, or the brand's default the server answers), else the product mark. */
function BrandLogo() {
  const [failed, setFailed] = useState(false);
  if (failed) {
    return (
      <svg
        role="img"
        aria-label={t('app.logoAlt')}
        width="56"
        height="56"
        viewBox="0 0 48 48"
        class="app-logo"
      >
        <circle cx="24" cy="24" r="22" fill="none" stroke="currentColor" stroke-width="3" />
        <path d="M24 9l12 5v9c0 8-5.2 13.6-12 16-6.8-2.4-12-8-12-16v-9z" fill="currentColor" />
        <path d="M18.5 24l4 4 7-8" fill="none" stroke="var(--body)" stroke-width="3" />
      </svg>
    );
  }
  return (
    <img
      src={API.customIconPublic}
      alt={t('emailActions.customLogoAlt')}
      class="public-layout__logo-image"
      onError={() => setFailed(true)}
    />
  );
}

/**
 * A public page at a hash location (`/email-actions/restore-email?type=…&msg=…`): the tenant's
 * logo above the page. The page keeps its parameters for its life; `key` starts it afresh.
 */
export function PublicPages({ pathname, search }: { pathname: string; search: URLSearchParams }) {
  const page = PAGES[pathname];
  return (
    <main class="public-layout">
      <div class="public-layout__logo">
        <BrandLogo />
      </div>
      <div class="public-layout__content">
        {page === 'restoreAttachment' ? (
          <RestoreAttachmentPage />
        ) : page ? (
          <PublicActionPage key={`${pathname}?${search}`} config={page} search={search} />
        ) : null}
      </div>
    </main>
  );
}
