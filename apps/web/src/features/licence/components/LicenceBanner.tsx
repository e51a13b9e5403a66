import { Alert, Box, Button, CloseButton, Group, Stack, Text } from '@mantine/core';
import type { DeploymentConfig } from '@moat/contracts/console';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { FeatureFlags } from '@moat/contracts/features';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { lazyDialog } from '../../../components/ui/lazy-dialog';
import { requestLicenceContact } from '../../../lib/console-data/request-licence-contact';
import { useTranslation } from '../../../lib/i18n';
import {
  dismissLicenceBanner,
  formatLicenceDate,
  isLicenceBannerDismissed,
  type LicenceBanner as LicenceBannerState,
  licenceBanner,
} from '../licence-status';

const InfoDialog = lazyDialog(() => import('../../../components/ui/InfoDialog').then((m) => m.InfoDialog));

type ContactResult = 'ok' | 'failure' | null;

function BannerText({ banner }: { banner: Exclude<LicenceBannerState, { kind: 'lockedInternal' }> }) {
  const { t, i18n } = useTranslation();
  let message: string;
  if (banner.kind === 'expired') message = t('licence.banner.expired');
  else if (!banner.days) message = t('licence.banner.expiresToday');
  else message = t('licence.banner.aboutToExpire', { count: banner.days });
  return (
    <Stack gap={2}>
      <Text size="sm">{message}</Text>
      {banner.date && (
        <Text size="sm">
          {t('licence.banner.expirationDate', { date: formatLicenceDate(banner.date, i18n.language) })}
        </Text>
      )}
    </Stack>
  );
}

/**
 * SPEC §4 "Licence banner": above the page, for a paid licence about to expire or expired, with a
 * Contact us button; hidden for the rest of the browser session once dismissed or once the
 * contact request went through.
 */
export function LicenceBanner({
  deployment,
  features,
  user,
}: {
  deployment: DeploymentConfig;
  features: FeatureFlags;
  user: CurrentUser;
}) {
  const { t } = useTranslation();
  const [dismissed, setDismissed] = useState(isLicenceBannerDismissed);
  const [result, setResult] = useState<ContactResult>(null);
  const hide = () => {
    dismissLicenceBanner();
    setDismissed(true);
  };
  const contact = useMutation({
    mutationFn: requestLicenceContact,
    onSuccess: (answer) => {
      if (!answer.success) {
        setResult('failure');
        return;
      }
      hide();
      setResult('ok');
    },
    onError: () => setResult('failure'),
  });

  const banner = licenceBanner({ deployment, features, user, dismissed });
  const closeDialog = () => setResult(null);

  return (
    <>
      {banner?.kind === 'lockedInternal' && (
        <Box component="section" aria-label={t('licence.banner.region')} mb="md">
          <Alert color="red" variant="light" role="none">
            <Text size="sm">{t('licence.banner.lockedInternal')}</Text>
          </Alert>
        </Box>
      )}
      {banner && banner.kind !== 'lockedInternal' && (
        <Box component="section" aria-label={t('licence.banner.region')} mb="md">
          <Alert
            role="none"
            color={banner.kind === 'expired' ? 'red' : 'orange'}
            variant="light"
            className="licence-banner"
          >
            <Group justify="space-between" align="center" wrap="wrap" gap="sm">
              <BannerText banner={banner} />
              <Group gap="xs" wrap="nowrap" ml="auto">
                <Button size="xs" loading={contact.isPending} onClick={() => contact.mutate()}>
                  {t('licence.banner.contactUs')}
                </Button>
                <CloseButton aria-label={t('licence.banner.dismiss')} onClick={hide} />
              </Group>
            </Group>
          </Alert>
        </Box>
      )}
      <InfoDialog opened={result === 'ok'} onClose={closeDialog} title={t('licence.contactSuccess.title')}>
        {t('licence.contactSuccess.description')}
      </InfoDialog>
      <InfoDialog
        opened={result === 'failure'}
        onClose={closeDialog}
        title={t('licence.contactFailure.title')}
      >
        {t('licence.contactFailure.description')}
      </InfoDialog>
    </>
  );
}
