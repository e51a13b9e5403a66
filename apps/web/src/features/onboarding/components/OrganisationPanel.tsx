import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { type OnboardingState, ORGANISATION_NAME_MAX_LENGTH } from '@moat/contracts/onboarding';
import { type FormEvent, useState } from 'react';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useRenameOrganisation } from '../api/onboarding';

/** The organisation's own name: the first one starts as its admin's mail domain. */
export function OrganisationPanel({ state }: { state: OnboardingState }) {
  const { t } = useTranslation();
  const rename = useRenameOrganisation();
  const [name, setName] = useState(state.name);
  const [empty, setEmpty] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') {
      setEmpty(true);
      return;
    }
    rename.mutate(name.trim(), { onSuccess: (next) => setName(next.name) });
  };
  let error: string | undefined;
  if (empty) error = t('onboarding.organisation.required');
  else if (rename.isError) {
    error = isApiError(rename.error) ? rename.error.message : t('onboarding.organisation.failed');
  }
  return (
    <Stack gap="sm">
      <Text size="sm">{t('onboarding.organisation.intro')}</Text>
      <form onSubmit={submit} noValidate>
        <Group align="flex-start" gap="xs" wrap="wrap">
          <TextInput
            label={t('onboarding.organisation.label')}
            value={name}
            maxLength={ORGANISATION_NAME_MAX_LENGTH}
            onChange={(event) => {
              setName(event.currentTarget.value);
              setEmpty(false);
              rename.reset();
            }}
            error={error}
            style={{ flex: '1 1 16rem' }}
          />
          <Button type="submit" loading={rename.isPending} mt={{ base: 0, xs: 25 }}>
            {t('onboarding.organisation.save')}
          </Button>
        </Group>
      </form>
      {rename.isSuccess && (
        <Text size="sm" role="status">
          {t('onboarding.organisation.saved')}
        </Text>
      )}
    </Stack>
  );
}
