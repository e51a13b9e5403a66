import { Badge, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import type { OnboardingState } from '@moat/contracts/onboarding';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../../lib/http';
import { useAddDomain } from '../api/onboarding';

/** The organisation's mail domains, and a form to add one (refusals said under the field). */
export function DomainsPanel({ state }: { state: OnboardingState }) {
  const { t } = useTranslation();
  const add = useAddDomain();
  const [domain, setDomain] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (domain.trim() === '') return;
    add.mutate(domain.trim(), { onSuccess: () => setDomain('') });
  };
  const error = add.error
    ? isApiError(add.error)
      ? add.error.message
      : t('onboarding.domains.failed')
    : null;
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
            error={error}
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
