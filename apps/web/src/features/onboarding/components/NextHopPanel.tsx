import { Alert, Button, Code, Group, Stack, Text, TextInput } from '@mantine/core';
import type { OnboardingState } from '@moat/contracts/onboarding';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import { useSaveNextHop, useSendTestMessage } from '../api/onboarding';

/**
 * The organisation's mail server (the next hop Moat delivers to) and a test message through it,
 * answered with what that server said.
 */
export function NextHopPanel({ state }: { state: OnboardingState }) {
  const { t } = useTranslation();
  const me = useQuery(currentUserQueryOptions()).data;
  const save = useSaveNextHop();
  const test = useSendTestMessage();
  const [hop, setHop] = useState(state.next_hop ?? '');
  const [to, setTo] = useState(me?.email ?? '');
  const [saved, setSaved] = useState(false);

  const submitHop = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(hop.trim() === '' ? null : hop.trim(), {
      onSuccess: (next) => {
        setHop(next.next_hop ?? '');
        setSaved(true);
        test.reset();
      },
    });
  };
  const submitTest = (event: FormEvent) => {
    event.preventDefault();
    test.mutate(to.trim());
  };
  const hopError = save.error && isApiError(save.error) ? save.error.message : null;
  const testFieldError =
    test.error && isApiError(test.error) && test.error.status === 400 ? test.error.message : null;
  const current = state.next_hop ?? (state.deployment_relay ? t('onboarding.hop.deploymentRelay') : null);

  return (
    <Stack gap="md">
      <Text size="sm">{t('onboarding.hop.intro')}</Text>
      <form onSubmit={submitHop} noValidate>
        <Stack gap="xs">
          <Group align="flex-start" gap="xs" wrap="wrap">
            <TextInput
              label={t('onboarding.hop.label')}
              description={t('onboarding.hop.hint')}
              placeholder="mail.example.com:25"
              value={hop}
              onChange={(e) => {
                setSaved(false);
                save.reset();
                setHop(e.currentTarget.value);
              }}
              error={hopError ?? (save.isError ? t('onboarding.hop.failed') : null)}
              style={{ flex: '1 1 16rem' }}
            />
            <Button type="submit" loading={save.isPending} mt={{ base: 0, xs: 46 }}>
              {t('onboarding.hop.save')}
            </Button>
          </Group>
          <Text size="sm" role="status">
            {saved
              ? t('onboarding.hop.saved')
              : current
                ? t('onboarding.hop.current', { hop: current })
                : t('onboarding.hop.none')}
          </Text>
        </Stack>
      </form>
      <form onSubmit={submitTest} noValidate>
        <Stack gap="xs">
          <Group align="flex-start" gap="xs" wrap="wrap">
            <TextInput
              label={t('onboarding.test.label')}
              description={t('onboarding.test.hint', { domains: state.domains.join(', ') })}
              value={to}
              onChange={(e) => {
                test.reset();
                setTo(e.currentTarget.value);
              }}
              error={testFieldError}
              style={{ flex: '1 1 16rem' }}
            />
            <Button
              type="submit"
              variant="light"
              loading={test.isPending}
              disabled={!current || to.trim() === ''}
              mt={{ base: 0, xs: 46 }}
            >
              {t('onboarding.test.send')}
            </Button>
          </Group>
          {test.isError && !testFieldError && <ApiErrorAlert error={test.error} showServerMessage />}
          {test.data && (
            <Alert
              variant="light"
              color={test.data.delivered ? 'green' : 'red'}
              title={
                test.data.delivered
                  ? t('onboarding.test.delivered', { via: test.data.via })
                  : t('onboarding.test.notDelivered', { via: test.data.via })
              }
              aria-live="polite"
            >
              <Text size="xs" c="dimmed">
                {t('onboarding.test.answer')}
              </Text>
              <Code block className="dns-record">
                {test.data.response}
              </Code>
            </Alert>
          )}
        </Stack>
      </form>
    </Stack>
  );
}
