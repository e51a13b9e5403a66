import { Button, Center, Loader, Stack, Text, Title } from '@mantine/core';
import type { DeploymentConfig } from '@moat/contracts/console';
import { TRIAL_REQUEST_FAILURE_TIMEOUT_MS } from '@moat/contracts/constants';
import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Navigate, useLoaderData } from 'react-router';
import { InfoDialog } from '../../components/ui/InfoDialog';
import { deploymentQueryOptions } from '../../lib/console-data/get-deployment';
import { requestTrialExtension } from '../../lib/console-data/request-trial-extension';
import { useTranslation } from '../../lib/i18n';
import { queryKeys } from '../../lib/query-keys';
import { PageFrame } from './PageFrame';

/**
 * The admin's request to extend the trial (SPEC §4 "Trial extension"): on success the page waits
 * for approval; on failure a dialog shows, after TRIAL_REQUEST_FAILURE_TIMEOUT_MS, the server's
 * info message or a generic one.
 */
function ExtendTrialRequest({ user, waiting }: { user: CurrentUser; waiting: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [failure, setFailure] = useState<string | null>(null);
  const [failing, setFailing] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const fail = (message: string) => {
    setFailing(true);
    timer.current = setTimeout(() => {
      setFailing(false);
      setFailure(message);
    }, TRIAL_REQUEST_FAILURE_TIMEOUT_MS);
  };
  const request = useMutation({
    mutationFn: () =>
      requestTrialExtension({
        requester_email_address: user.email,
        requester_first_name: user.first_name,
        requester_last_name: user.last_name,
      }),
    onSuccess: (answer) => {
      if (!answer.success) {
        fail(answer.info || t('trial.failureGeneric'));
        return;
      }
      queryClient.setQueryData<DeploymentConfig>(queryKeys.console.deployment(), (current) =>
        current ? { ...current, waitingForApproval: true } : current,
      );
    },
    onError: () => fail(t('trial.failureGeneric')),
  });

  if (waiting || request.data?.success) {
    return (
      <Stack gap="xs" role="status">
        <Title order={2} size="h3">
          {t('trial.waitingTitle')}
        </Title>
        <Text>{t('trial.waitingDescription')}</Text>
      </Stack>
    );
  }
  return (
    <Stack gap="md" align="flex-start">
      <Text>{t('trial.adminDescription')}</Text>
      <Button loading={request.isPending || failing} onClick={() => request.mutate()}>
        {t('trial.submitRequest')}
      </Button>
      <InfoDialog opened={failure !== null} onClose={() => setFailure(null)} title={t('trial.failureTitle')}>
        {failure ?? ''}
      </InfoDialog>
    </Stack>
  );
}

/**
 * trial (SPEC §2.4 "Trial page"): a spinner while loading; content only for a poc deployment whose
 * trial has expired (anyone else goes to the overview). An admin can ask for an extension; others
 * read that the trial has expired.
 */
export function TrialPage() {
  const { t } = useTranslation();
  const user = useLoaderData<CurrentUser>();
  const deployment = useQuery(deploymentQueryOptions());

  if (deployment.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label={t('trial.loading')} role="status" />
      </Center>
    );
  }
  const config = deployment.data;
  if (config?.deploymentMode !== 'poc' || !config.trialExpired) {
    return <Navigate to={ROUTES.dashboard} replace />;
  }
  const title = t('trial.title');
  return (
    <PageFrame title={title} trail={[{ label: t('common.home'), to: ROUTES.dashboard }, { label: title }]}>
      {user.role === 'admin' ? (
        <ExtendTrialRequest user={user} waiting={config.waitingForApproval} />
      ) : (
        <Text>{t('trial.description')}</Text>
      )}
    </PageFrame>
  );
}
