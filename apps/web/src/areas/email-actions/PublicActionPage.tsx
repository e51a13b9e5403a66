import { Paper, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PageLoader } from '../../components/ui/PageLoader';
import { readActionParams } from '../../features/email-actions/action-params';
import { FlowTitle, PublicFlow } from '../../features/email-actions/components/PublicFlow';
import { ResultMessage } from '../../features/email-actions/components/ResultMessage';
import type { FlowAdapter } from '../../features/email-actions/flow-types';
import { usePublicFeatures } from '../../features/public-settings/api/get-public-features';
import type { TranslationKey } from '../../lib/i18n';
import { useDocumentTitle } from '../../lib/use-document-title';

export interface PublicActionPageConfig {
  requiredParams: readonly string[];
  missingParamsKey: TranslationKey;
  flow: FlowAdapter;
}

/**
 * The frame shared by the public pages (SPEC §2.2): public settings first (they choose the theme;
 * their failure is a 'Connection error'), a page loader that fades out, the required-parameter
 * check, then the page's flow.
 */
export function PublicActionPage({ config }: { config: PublicActionPageConfig }) {
  const { t } = useTranslation();
  const title = t(config.flow.texts.title);
  useDocumentTitle(title);
  const [searchParams] = useSearchParams();
  const features = usePublicFeatures();
  const params = readActionParams(searchParams, config.requiredParams);

  let content = null;
  if (features.isError) {
    content = <ResultMessage tone="error">{t('emailActions.connectionError')}</ResultMessage>;
  } else if (features.isSuccess && !params) {
    content = <ResultMessage tone="error">{t(config.missingParamsKey)}</ResultMessage>;
  }

  return (
    <>
      <PageLoader done={!features.isPending} />
      <Paper withBorder p="lg" radius="md">
        {features.isSuccess && params ? (
          <PublicFlow adapter={config.flow} params={params} />
        ) : (
          <Stack gap="md">
            <FlowTitle>{title}</FlowTitle>
            {content}
          </Stack>
        )}
      </Paper>
    </>
  );
}
