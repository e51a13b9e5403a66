import { Button, Stack, Text } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { MessagePanel } from '../../components/ui/MessagePanel';
import { onboardingQueryOptions } from '../../features/onboarding/api/onboarding';
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

/** onboarding/all-set: what was set up, and on to the overview. */
export function AllSetPage() {
  const { t } = useTranslation();
  const state = useQuery(onboardingQueryOptions()).data;
  return (
    <MessagePanel title={t('onboarding.allSet.title')} description={t('onboarding.allSet.description')}>
      {state && (
        <Stack gap={4}>
          <Text size="sm">{t('onboarding.allSet.domains', { domains: state.domains.join(', ') })}</Text>
          <Text size="sm">
            {state.next_hop
              ? t('onboarding.allSet.hop', { hop: state.next_hop })
              : state.deployment_relay
                ? t('onboarding.allSet.relay')
                : t('onboarding.allSet.noHop')}
          </Text>
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
