import { Button, Center, Group, Loader, Paper, Stack, Stepper, Text, Title } from '@mantine/core';
import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { queryKeys } from '../../../lib/query-keys';
import { useDocumentTitle } from '../../../lib/use-document-title';
import {
  onboardingChecklistQueryOptions,
  onboardingQueryOptions,
  useCompleteOnboarding,
} from '../api/onboarding';
import { isStepDone, ONBOARDING_STEPS, type OnboardingStep } from '../checklist';
import { DnsCheckPanel } from './DnsCheckPanel';
import { DomainsPanel } from './DomainsPanel';
import { NextHopPanel } from './NextHopPanel';
import { OrganisationPanel } from './OrganisationPanel';

const STEP_LABEL: Record<OnboardingStep, TranslationKey> = {
  organisation: 'onboarding.steps.organisation',
  domains: 'onboarding.steps.domains',
  dns: 'onboarding.steps.dns',
  hop: 'onboarding.steps.hop',
};

/**
 * Onboarding (SPEC §2.5): the organisation's name, its domains, their DNS records, its mail server
 * and a test message, then done. Each step can be left for later, but a step is shown done only
 * when what it sets up is right (the DNS step: every record of every domain, as looked up now);
 * finishing leads to all-set, which lists what is still missing.
 */
export function OnboardingWizard() {
  const { t } = useTranslation();
  useDocumentTitle(t('onboarding.title'));
  const state = useQuery(onboardingQueryOptions());
  const checklist = useQuery(onboardingChecklistQueryOptions());
  const complete = useCompleteOnboarding();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [active, setActive] = useState(0);

  if (state.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label={t('onboarding.loading')} />
      </Center>
    );
  }
  if (state.isError) return <ApiErrorAlert error={state.error} />;

  const finish = () =>
    complete.mutate(undefined, {
      onSuccess: () => {
        // The user is done: the console's guards let them in from now on (all-set is a child of
        // this route, whose guard does not run again on the way there).
        queryClient.setQueryData<CurrentUser>(queryKeys.currentUser(), (user) =>
          user ? { ...user, on_boarding_required: false } : user,
        );
        void navigate(ROUTES.onboarding.allSet);
      },
    });
  const last = active === ONBOARDING_STEPS.length - 1;
  /** Each step's state: done only when nothing of it is missing (the organisation's name always is). */
  const done = (step: OnboardingStep) =>
    step === 'organisation' || (checklist.data ? isStepDone(step, checklist.data) : null);
  const stepProps = (step: OnboardingStep) => {
    const status = done(step);
    return {
      label: t(STEP_LABEL[step]),
      description:
        status === null
          ? checklist.isPending
            ? t('onboarding.stepStatus.checking')
            : undefined
          : t(status ? 'onboarding.stepStatus.done' : 'onboarding.stepStatus.todo'),
      // A step passed but not done is not ticked off.
      ...(status === false ? { color: 'yellow', completedIcon: <span aria-hidden="true">!</span> } : {}),
    };
  };

  return (
    <Paper withBorder p={{ base: 'md', sm: 'lg' }} radius="md">
      <Stack gap="lg">
        <Stack gap={4}>
          <Title order={1} size="h2">
            {t('onboarding.title')}
          </Title>
          <Text>{t('onboarding.description')}</Text>
        </Stack>
        <Stepper active={active} onStepClick={setActive} size="sm" allowNextStepsSelect>
          <Stepper.Step {...stepProps('organisation')}>
            <OrganisationPanel state={state.data} />
          </Stepper.Step>
          <Stepper.Step {...stepProps('domains')}>
            <DomainsPanel state={state.data} />
          </Stepper.Step>
          <Stepper.Step {...stepProps('dns')}>
            <DnsCheckPanel state={state.data} checklist={checklist.data ?? null} />
          </Stepper.Step>
          <Stepper.Step {...stepProps('hop')}>
            <NextHopPanel state={state.data} />
          </Stepper.Step>
        </Stepper>
        {complete.isError && <ApiErrorAlert error={complete.error} />}
        <Group justify="space-between">
          <Button variant="default" onClick={() => setActive(active - 1)} disabled={active === 0}>
            {t('onboarding.back')}
          </Button>
          {last ? (
            <Button onClick={finish} loading={complete.isPending}>
              {t('onboarding.finish')}
            </Button>
          ) : (
            <Button onClick={() => setActive(active + 1)}>{t('onboarding.next')}</Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
