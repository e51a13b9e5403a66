import { Center, Divider, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';
import { onboardingQueryOptions } from '../api/onboarding';
import { DnsCheckPanel } from './DnsCheckPanel';
import { DomainsPanel } from './DomainsPanel';
import { NextHopPanel } from './NextHopPanel';

/** Settings → Mail flow (admins): onboarding's steps, to come back to once it is done. */
export function MailFlowSettings() {
  const { t } = useTranslation();
  const state = useQuery(onboardingQueryOptions());
  if (state.isPending) {
    return (
      <Center py="md">
        <Loader aria-label={t('onboarding.loading')} size="sm" />
      </Center>
    );
  }
  if (state.isError) return <ApiErrorAlert error={state.error} />;
  return (
    <>
      <DomainsPanel state={state.data} />
      <Divider />
      <DnsCheckPanel state={state.data} checklist={null} />
      <Divider />
      <NextHopPanel state={state.data} />
    </>
  );
}
