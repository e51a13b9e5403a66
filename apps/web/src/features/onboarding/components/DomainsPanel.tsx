import { Alert, Badge, Button, Code, Group, Stack, Text, TextInput } from '@mantine/core';
import type { OnboardingState } from '@moat/contracts/onboarding';
import { type FormEvent, useState } from 'react';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useAddDomain, useVerifyDomain } from '../api/onboarding';

/**
 * The organisation's mail domains; a form to add one, which waits (pending) until the TXT record
 * shown is published and verified. Refusals are said under the field or under the domain.
 */
export function DomainsPanel({ state }: { state: OnboardingState }) {
  const { t } = useTranslation();
  const add = useAddDomain();
  const verify = useVerifyDomain();
  const [domain, setDomain] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (domain.trim() === '') return;
    add.mutate(domain.trim(), { onSuccess: () => setDomain('') });
  };
  const messageOf = (error: unknown) => (isApiError(error) ? error.message : t('onboarding.domains.failed'));
  return (
    <Stack gap="sm">
      <Text size="sm">{t('onboarding.domains.intro')}</Text>
      <Group gap="xs" aria-label={t('onboarding.domains.listLabel')} role="list">
        {state.domains.map((d) => (
          <Badge key={d} variant="light" size="lg" tt="none" role="listitem">
            {d}
          </Badge>
        ))}
      </Group>
      {state.pending_domains.map((pending) => (
        <Alert
          key={pending.domain}
          variant="light"
          color="yellow"
          role="group"
          title={t('onboarding.domains.pendingTitle', { domain: pending.domain })}
        >
          <Stack gap={6}>
            <Text size="sm">{t('onboarding.domains.pendingHelp')}</Text>
            <Code block className="dns-record">
              {pending.record}
            </Code>
            {verify.isError && verify.variables === pending.domain && (
              <Text size="sm" fw={700} role="alert" className="dns-record">
                {messageOf(verify.error)}
              </Text>
            )}
            <Button
              variant="light"
              style={{ alignSelf: 'flex-start' }}
              loading={verify.isPending && verify.variables === pending.domain}
              onClick={() => verify.mutate(pending.domain)}
            >
              {t('onboarding.domains.verify', { domain: pending.domain })}
            </Button>
          </Stack>
        </Alert>
      ))}
      <form onSubmit={submit} noValidate>
        <Group align="flex-start" gap="xs" wrap="wrap">
          <TextInput
            label={t('onboarding.domains.add')}
            placeholder="example.com"
            value={domain}
            onChange={(e) => {
              add.reset();
              setDomain(e.currentTarget.value);
            }}
            error={add.error ? messageOf(add.error) : null}
            style={{ flex: '1 1 14rem' }}
          />
          <Button type="submit" loading={add.isPending} mt={{ base: 0, xs: 25 }}>
            {t('onboarding.domains.addButton')}
          </Button>
        </Group>
      </form>
    </Stack>
  );
}
