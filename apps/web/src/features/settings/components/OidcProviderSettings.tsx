import { Alert, Button, Group, PasswordInput, Stack, Switch, Text, TextInput } from '@mantine/core';
import type { Role } from '@moat/contracts/deployment';
import { type OidcSettingsAnswer, type SignInSettingsUpdate, SSO_API } from '@moat/contracts/sso';
import { useMutation, useQuery } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { apiPost, isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useDraft } from '../../../lib/use-draft';
import { signInSettingsQueryOptions, useSaveSignInSettings } from '../api/sign-in-settings';
import { CopyField, JitFields, MONO, SaveFooter } from './SsoFormParts';

type Provider = 'microsoft' | 'google';

interface Draft {
  enabled: boolean;
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedDomains: string;
  jitEnabled: boolean;
  jitRole: Role;
}

const draftOf = (s: OidcSettingsAnswer): Draft => ({
  enabled: s.enabled,
  issuer: s.issuer,
  clientId: s.client_id,
  clientSecret: '',
  allowedDomains: s.allowed_domains.join(', '),
  jitEnabled: s.jit_enabled,
  jitRole: s.jit_role,
});

function changesOf(saved: OidcSettingsAnswer, draft: Draft): NonNullable<SignInSettingsUpdate['microsoft']> {
  const body: NonNullable<SignInSettingsUpdate['microsoft']> = {};
  const domains = draft.allowedDomains
    .split(/[\s,;]+/)
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  if (draft.enabled !== saved.enabled) body.enabled = draft.enabled;
  if (draft.issuer.trim() !== saved.issuer) body.issuer = draft.issuer.trim();
  if (draft.clientId.trim() !== saved.client_id) body.client_id = draft.clientId.trim();
  if (draft.clientSecret) body.client_secret = draft.clientSecret;
  if (JSON.stringify(domains) !== JSON.stringify(saved.allowed_domains)) body.allowed_domains = domains;
  if (draft.jitEnabled !== saved.jit_enabled) body.jit_enabled = draft.jitEnabled;
  if (draft.jitRole !== saved.jit_role) body.jit_role = draft.jitRole;
  return body;
}

/**
 * Configuration → Settings → Sign-in with Microsoft or Google (admins, issue 15): the redirect URI
 * to register, the issuer (tested by its discovery document), the client ID and secret (the
 * secret is stored encrypted and never shown again), the allowed domains, users created at first
 * sign-in, and the switch. Saved on its own; audited.
 */
export function OidcProviderSettings({ provider }: { provider: Provider }) {
  const { t } = useTranslation();
  const settings = useQuery(signInSettingsQueryOptions());
  const save = useSaveSignInSettings();
  const test = useMutation({
    mutationFn: (issuer: string) =>
      apiPost<{ issuer: string; authorization_endpoint: string }>(SSO_API.oidcTest, { issuer }),
  });
  const current = settings.data?.[provider];
  const { draft, set, justSaved, savedAs, discard } = useDraft(current, draftOf);

  if (!current || !draft) return null;
  const changes = changesOf(current, draft);
  const dirty = Object.keys(changes).length > 0;
  const fieldError = (field: string) =>
    isApiError(save.error) &&
    save.error.details?.some(
      (d) => d.field === `${provider}.${field}` || d.field === `body.${provider}.${field}`,
    )
      ? save.error.message
      : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    save.mutate({ [provider]: changes }, { onSuccess: (stored) => savedAs(stored[provider]) });
  };

  return (
    <form onSubmit={submit} noValidate aria-label={t(`settings.oidc.${provider}.title`)}>
      <Stack gap="md">
        <Text size="sm">{t(`settings.oidc.${provider}.intro`)}</Text>
        <CopyField label={t('settings.oidc.redirectUri')} value={current.redirect_url} />
        <TextInput
          label={t('settings.oidc.issuer')}
          description={t(`settings.oidc.${provider}.issuerHint`)}
          value={draft.issuer}
          styles={MONO}
          onChange={(event) => {
            test.reset();
            set('issuer', event.currentTarget.value);
          }}
          error={fieldError('issuer') ?? (isApiError(test.error) ? test.error.message : undefined)}
        />
        <Group gap="sm">
          <Button variant="default" loading={test.isPending} onClick={() => test.mutate(draft.issuer.trim())}>
            {t('settings.oidc.test')}
          </Button>
        </Group>
        {test.data && (
          <Alert color="green" variant="light">
            {t('settings.oidc.testOk', { issuer: test.data.issuer })}
          </Alert>
        )}
        <TextInput
          label={t('settings.oidc.clientId')}
          value={draft.clientId}
          styles={MONO}
          onChange={(event) => set('clientId', event.currentTarget.value)}
          error={fieldError('client_id')}
        />
        <PasswordInput
          label={t('settings.oidc.clientSecret')}
          description={current.secret_set ? t('settings.oidc.secretSet') : t('settings.oidc.secretMissing')}
          value={draft.clientSecret}
          autoComplete="new-password"
          onChange={(event) => set('clientSecret', event.currentTarget.value)}
          error={fieldError('client_secret')}
        />
        <TextInput
          label={t('settings.oidc.allowedDomains')}
          description={t('settings.oidc.allowedDomainsHint')}
          value={draft.allowedDomains}
          onChange={(event) => set('allowedDomains', event.currentTarget.value)}
          error={fieldError('allowed_domains')}
        />
        <Switch
          label={t(`settings.oidc.${provider}.enabled`)}
          checked={draft.enabled}
          onChange={(event) => set('enabled', event.currentTarget.checked)}
        />
        <JitFields
          enabled={draft.jitEnabled}
          role={draft.jitRole}
          onEnabled={(value) => set('jitEnabled', value)}
          onRole={(value) => set('jitRole', value)}
        />
        {save.isError && <ApiErrorAlert error={save.error} showServerMessage />}
        <SaveFooter
          saved={justSaved && t('settings.oidc.saved')}
          dirty={dirty}
          pending={save.isPending}
          onDiscard={() => discard(current)}
          saveLabel={t(`settings.oidc.${provider}.save`)}
        />
      </Stack>
    </form>
  );
}
