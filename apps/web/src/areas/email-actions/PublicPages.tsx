import { REQUIRED_ACTION_PARAMS } from '@moat/contracts/public-actions';
import { ROUTES } from '@moat/contracts/routes';
import { lazy, Suspense, useState } from 'react';
import { Message, PageLoader } from '../../components/public/ui';
import { readActionParams } from '../../features/email-actions/action-params';
import { mailActionFlow } from '../../features/email-actions/adapters/mail-action';
import { restoreEmailFlow } from '../../features/email-actions/adapters/restore-email';
import { restoreOriginalFlow } from '../../features/email-actions/adapters/restore-original';
import { FlowTitle, PublicFlow } from '../../features/email-actions/components/PublicFlow';
import type { FlowAdapter } from '../../features/email-actions/flow-types';
import {
  PublicLayout,
  usePublicDocumentTitle,
  usePublicSettings,
} from '../../features/public-settings/components/PublicLayout';
import type { TranslationKey } from '../../lib/i18n';
import { t } from '../../lib/public-texts';

interface PageConfig {
  requiredParams: readonly string[];
  missingParamsKey: TranslationKey;
  flow: FlowAdapter;
}

/** The public pages of SPEC §2.2 by path; restore-attachment shows its title only. */
const PAGES: Record<string, PageConfig | 'restoreAttachment' | 'link'> = {
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
  [ROUTES.emailActions.link]: 'link',
};

/** Whether a hash path (`/email-actions/restore-email`) is one of the public pages. */
export function isPublicPagePath(pathname: string): boolean {
  return Object.hasOwn(PAGES, pathname);
}

/**
 * The frame shared by the public pages (SPEC §2.2): public settings first, a page loader that
 * fades out, the required-parameter check, then the page's flow.
 */
function PublicActionPage({ config, search }: { config: PageConfig; search: URLSearchParams }) {
  const title = t(config.flow.texts.title);
  usePublicDocumentTitle(title);
  const settings = usePublicSettings();
  const [params] = useState(() => readActionParams(search, config.requiredParams));

  let content = null;
  if (settings === 'failed') content = <Message tone="error">{t('emailActions.connectionError')}</Message>;
  else if (settings !== 'pending' && !params)
    content = <Message tone="error">{t(config.missingParamsKey)}</Message>;

  return (
    <>
      <PageLoader done={settings !== 'pending'} />
      <section className="panel">
        {settings !== 'pending' && settings !== 'failed' && params ? (
          <PublicFlow adapter={config.flow} params={params} />
        ) : (
          <div className="stack">
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
  usePublicDocumentTitle(title);
  usePublicSettings();
  return (
    <section className="panel">
      <FlowTitle>{title}</FlowTitle>
    </section>
  );
}

/** In a chunk of its own: the restore and action pages do not load it (their bundle budget). */
const LinkPage = lazy(() =>
  import('../../features/click-time/LinkPage').then((m) => ({ default: m.LinkPage })),
);

/** A rewritten link's warning or block page, in the tenant's brand (click-time protection). */
function ClickedLinkPage({ search }: { search: URLSearchParams }) {
  const settings = usePublicSettings();
  return (
    <>
      <PageLoader done={settings !== 'pending'} />
      <section className="panel">
        {settings !== 'pending' && (
          <Suspense fallback={null}>
            <LinkPage search={search} />
          </Suspense>
        )}
      </section>
    </>
  );
}

/**
 * A public page at a hash location (`/email-actions/restore-email?type=…&msg=…`): the tenant's
 * logo above the page. The page keeps its parameters for its life; `key` starts it afresh.
 */
export function PublicPages({ pathname, search }: { pathname: string; search: URLSearchParams }) {
  const page = PAGES[pathname];
  return (
    <PublicLayout>
      {page === 'restoreAttachment' ? (
        <RestoreAttachmentPage />
      ) : page === 'link' ? (
        <ClickedLinkPage key={`${pathname}?${search}`} search={search} />
      ) : page ? (
        <PublicActionPage key={`${pathname}?${search}`} config={page} search={search} />
      ) : null}
    </PublicLayout>
  );
}
