import { Anchor, Stack, Text, Title } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { Link } from 'react-router';
import { SamlSignIn } from '../../features/auth/components/SamlSignIn';
import type { TranslationKey } from '../../lib/i18n';
import { useTranslation } from '../../lib/i18n';
import { useDocumentTitle } from '../../lib/use-document-title';

export type ExternalProvider = 'saml' | 'office365' | 'google';

const TITLES: Record<ExternalProvider, TranslationKey> = {
  saml: 'auth.external.samlTitle',
  office365: 'auth.external.office365Title',
  google: 'auth.external.googleTitle',
};

/** The OAuth popup pages (SPEC §2.1): SAML signs in; Microsoft and Google are not available yet. */
export function ExternalSignInPage({ provider }: { provider: ExternalProvider }) {
  const { t } = useTranslation();
  const title = t(TITLES[provider]);
  useDocumentTitle(title);
  if (provider === 'saml') return <SamlSignIn />;
  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        {title}
      </Title>
      <Text>{t('auth.external.unavailable')}</Text>
      <Anchor component={Link} to={ROUTES.auth.login} size="sm">
        {t('common.backToLogin')}
      </Anchor>
    </Stack>
  );
}
