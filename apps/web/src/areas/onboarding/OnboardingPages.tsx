import { Button, Center, List, Loader, Stack, Text } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../components/ui/ApiErrorAlert';
import { MessagePanel } from '../../components/ui/MessagePanel';
import {
  onboardingChecklistQueryOptions,
  onboardingQueryOptions,
} from '../../features/onboarding/api/onboarding';
import { missingText } from '../../features/onboarding/checklist';
import { OnboardingWizard } from '../../features/onboarding/components/OnboardingWizard';
import { useTranslation } from '../../lib/i18n';
import { OnboardingFrame } from './OnboardingLayout';

/** /onboarding: the set-up of the organisation's mail flow. */
export function OnboardingPage() {
  return <OnboardingWizard />;
}

/** onboarding/saas-selection: this edition protects SMTP mail, which every organisation has from the start. */
export function SaasSelectionPage() {
  const { t } = useTranslation();
  return (
    <MessagePanel
      title={t('onboarding.saasSelection.title')}
      description={t('onboarding.saasSelection.description')}
    >
      <Button component={Link} to={ROUTES.onboarding.root} style={{ alignSelf: 'flex-start' }}>
        {t('onboarding.saasSelection.continue')}
      </Button>
    </MessagePanel>
  );
}

/**
 * onboarding/all-set: what was set up and, looked up now, what is still missing (a record missing
 * or not checked, a domain waiting, the gateway's name, a mail server) — "all set" only when
 * nothing is; then on to the overview.
 */
export function AllSetPage() {
  const { t } = useTranslation();
  const state = useQuery(onboardingQueryOptions()).data;
  const checklist = useQuery(onboardingChecklistQueryOptions());
  const missing = checklist.data?.missing ?? [];
  const allSet = checklist.isSuccess && missing.length === 0;
  if (checklist.isPending) {
    return (
      <Center py="xl">
        <Stack align="center" gap="sm" role="status">
          <Loader />
          <Text>{t('onboarding.allSet.checking')}</Text>
        </Stack>
      </Center>
    );
  }
  const mailServerMissing = missing.some((item) => item.kind === 'mail_server');
  return (
    <MessagePanel
      title={t(allSet ? 'onboarding.allSet.title' : 'onboarding.allSet.titleMissing')}
      description={
        allSet
          ? t('onboarding.allSet.description')
          : checklist.isError
            ? t('onboarding.allSet.checkFailed')
            : t('onboarding.allSet.descriptionMissing')
      }
    >
      {checklist.isError && <ApiErrorAlert error={checklist.error} />}
      {missing.length > 0 && (
        <List size="sm" spacing={4} aria-label={t('onboarding.allSet.missingLabel')} className="dns-record">
          {missing.map((item) => (
            <List.Item key={`${item.kind}-${item.domain}-${item.record}`}>{missingText(item, t)}</List.Item>
          ))}
        </List>
      )}
      {state && (
        <Stack gap={4}>
          {state.domains.length > 0 && (
            <Text size="sm">{t('onboarding.allSet.domains', { domains: state.domains.join(', ') })}</Text>
          )}
          {!mailServerMissing && (
            <Text size="sm">
              {state.next_hop
                ? t('onboarding.allSet.hop', { hop: state.next_hop })
                : state.deployment_relay
                  ? t('onboarding.allSet.relay')
                  : t('onboarding.allSet.noHop')}
            </Text>
          )}
          <Text size="sm">{t('onboarding.allSet.later')}</Text>
        </Stack>
      )}
      <Button component={Link} to={ROUTES.dashboard} style={{ alignSelf: 'flex-start' }}>
        {t('onboarding.goToDashboard')}
      </Button>
    </MessagePanel>
  );
}

/** v1/wizard: the older set-up wizard (chosen when enableUI2Onboarding is off) leads to the same steps. */
export function WizardPage() {
  return (
    <OnboardingFrame>
      <OnboardingWizard />
    </OnboardingFrame>
  );
}
