import { SsoSignIn } from '../../features/auth/components/SsoSignIn';
import type { TranslationKey } from '../../lib/i18n';
import { useTranslation } from '../../lib/i18n';
import { useDocumentTitle } from '../../lib/use-document-title';

export type ExternalProvider = 'saml' | 'office365' | 'google';

const TITLES: Record<ExternalProvider, TranslationKey> = {
  saml: 'auth.external.samlTitle',
  office365: 'auth.external.office365Title',
  google: 'auth.external.googleTitle',
};

/** The route's name for each provider and the provider's own. */
const PROVIDER = { saml: 'saml', office365: 'microsoft', google: 'google' } as const;

/** The sign-in popups of SPEC §2.1: SAML, Microsoft and Google (issue 15). */
export function ExternalSignInPage({ provider }: { provider: ExternalProvider }) {
  const { t } = useTranslation();
  const title = t(TITLES[provider]);
  useDocumentTitle(title);
  return <SsoSignIn provider={PROVIDER[provider]} title={title} />;
}
