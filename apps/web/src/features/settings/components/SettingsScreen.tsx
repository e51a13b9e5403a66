import {
  Alert,
  Anchor,
  Button,
  Center,
  Checkbox,
  Divider,
  Group,
  Loader,
  NumberInput,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { INTERACTION_SETTINGS_ROUTES } from '@moat/contracts/routes';
import { SETTINGS_BOUNDS, type Settings, type SettingsUpdate } from '@moat/contracts/settings';
import { useQuery } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { Section } from '../../../components/ui/Section';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useDraft } from '../../../lib/use-draft';
import { MailFlowSettings } from '../../onboarding/components/MailFlowSettings';
import { SubmissionCredentials } from '../../outbound/components/SubmissionCredentials';
import { MailboxConnectionSettings } from '../../retraction/components/MailboxConnectionSettings';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import { settingsQueryOptions, useSaveSettings } from '../api/settings';
import { OidcProviderSettings } from './OidcProviderSettings';
import { SingleSignOnSettings } from './SingleSignOnSettings';

type Editable = Omit<Settings, 'default_mail_from' | 'default_mail_from_name' | 'domains'>;
type Draft = Omit<Editable, 'alert_recipients' | 'mail_from_address' | 'mail_from_name'> & {
  alert_recipients: string;
  mail_from_address: string;
  mail_from_name: string;
};

function draftOf(s: Settings): Draft {
  return {
    mfa_required: s.mfa_required,
    password_max_age_days: s.password_max_age_days,
    session_idle_minutes: s.session_idle_minutes,
    session_absolute_hours: s.session_absolute_hours,
    support_access_enabled: s.support_access_enabled,
    retention_days: s.retention_days,
    mail_from_address: s.mail_from_address ?? '',
    mail_from_name: s.mail_from_name ?? '',
    alert_recipients: s.alert_recipients.join('\n'),
  };
}

/** What the form changes, as the API takes it; unchanged settings are left out. */
export function changesOf(saved: Settings, draft: Draft): SettingsUpdate {
  const next: Editable = {
    ...draft,
    mail_from_address: draft.mail_from_address.trim() || null,
    mail_from_name: draft.mail_from_name.trim() || null,
    alert_recipients: draft.alert_recipients
      .split(/[\s,;]+/)
      .map((a) => a.trim())
      .filter(Boolean),
  };
  const body: Record<string, unknown> = {};
  for (const key of Object.keys(next) as Array<keyof Editable>) {
    if (JSON.stringify(next[key]) !== JSON.stringify(saved[key])) body[key] = next[key];
  }
  return body as SettingsUpdate;
}

/** The field a refusal names (`body.<field>`), to show it under that field. */
function fieldOfError(error: unknown): string | null {
  if (!isApiError(error)) return null;
  const field = error.details?.find((d) => d.field?.startsWith('body.'))?.field;
  return field ? field.slice('body.'.length) : null;
}

/**
 * Configuration → Settings (admins): sign-in policy, sessions, support access, quarantine, the
 * sender of Moat's mail and who gets the admins' alerts; saved together, each change audited.
 */
export function SettingsScreen() {
  const { t } = useTranslation();
  const settings = useQuery(settingsQueryOptions());
  const canChange = useQuery(currentUserQueryOptions()).data?.role === 'admin';
  const save = useSaveSettings();
  const { draft, set, justSaved, savedAs, discard } = useDraft(settings.data, draftOf);

  if (settings.isPending || (settings.data && !draft)) {
    return (
      <Center py="xl">
        <Loader aria-label={t('settings.loading')} />
      </Center>
    );
  }
  if (settings.isError) return <ApiErrorAlert error={settings.error} />;
  if (!draft) return null;

  const changes = changesOf(settings.data, draft);
  const dirty = Object.keys(changes).length > 0;
  const errorField = fieldOfError(save.error);
  const errorOf = (field: keyof Draft) =>
    errorField === field && isApiError(save.error) ? save.error.message : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    save.mutate(changes, { onSuccess: savedAs });
  };
  const B = SETTINGS_BOUNDS;
  const domains = settings.data.domains.join(', ');

  const form = (
    <form onSubmit={submit} noValidate>
      <fieldset disabled={!canChange} style={{ border: 0, margin: 0, padding: 0, minWidth: 0 }}>
        <Stack gap="md">
          <Text size="sm">{t('settings.intro')}</Text>
          {!canChange && (
            <Alert variant="light" color="blue">
              {t('settings.readOnly')}
            </Alert>
          )}
          <Section id="settings-sign-in" title={t('settings.signIn.title')}>
            <Switch
              label={t('settings.signIn.mfaRequired')}
              description={t('settings.signIn.mfaRequiredHint')}
              checked={draft.mfa_required}
              onChange={(event) => set('mfa_required', event.currentTarget.checked)}
            />
            <Checkbox
              label={t('settings.signIn.passwordExpires')}
              checked={draft.password_max_age_days !== null}
              onChange={(event) => set('password_max_age_days', event.currentTarget.checked ? 90 : null)}
            />
            {draft.password_max_age_days !== null && (
              <NumberInput
                label={t('settings.signIn.passwordMaxAge')}
                description={t('settings.bounds', B.passwordMaxAgeDays)}
                min={B.passwordMaxAgeDays.min}
                max={B.passwordMaxAgeDays.max}
                allowDecimal={false}
                value={draft.password_max_age_days}
                onChange={(value) => set('password_max_age_days', Number(value) || 0)}
                error={errorOf('password_max_age_days')}
                maw={320}
              />
            )}
            <Switch
              label={t('settings.signIn.supportAccess')}
              description={t('settings.signIn.supportAccessHint')}
              checked={draft.support_access_enabled}
              onChange={(event) => set('support_access_enabled', event.currentTarget.checked)}
            />
          </Section>
          <Section id="settings-sessions" title={t('settings.sessions.title')}>
            <Text size="sm" c="dimmed">
              {t('settings.sessions.hint')}
            </Text>
            <Group align="flex-start" wrap="wrap">
              <NumberInput
                label={t('settings.sessions.idle')}
                description={t('settings.bounds', B.sessionIdleMinutes)}
                min={B.sessionIdleMinutes.min}
                max={B.sessionIdleMinutes.max}
                allowDecimal={false}
                value={draft.session_idle_minutes}
                onChange={(value) => set('session_idle_minutes', Number(value) || 0)}
                error={errorOf('session_idle_minutes')}
                w={280}
              />
              <NumberInput
                label={t('settings.sessions.absolute')}
                description={t('settings.bounds', B.sessionAbsoluteHours)}
                min={B.sessionAbsoluteHours.min}
                max={B.sessionAbsoluteHours.max}
                allowDecimal={false}
                value={draft.session_absolute_hours}
                onChange={(value) => set('session_absolute_hours', Number(value) || 0)}
                error={errorOf('session_absolute_hours')}
                w={280}
              />
            </Group>
          </Section>
          <Section id="settings-quarantine" title={t('settings.quarantine.title')}>
            <Group align="flex-start" wrap="wrap">
              <NumberInput
                label={t('settings.quarantine.retention')}
                description={t('settings.quarantine.retentionHint')}
                min={B.retentionDays.min}
                max={B.retentionDays.max}
                allowDecimal={false}
                value={draft.retention_days}
                onChange={(value) => set('retention_days', Number(value) || 0)}
                error={errorOf('retention_days')}
                w={280}
              />
            </Group>
            {/* The recipients' notices and digest have one home: Settings → User Interaction → Quarantine. */}
            <Text size="sm">
              {t('settings.quarantine.digestElsewhere')}{' '}
              <Anchor
                component={Link}
                to={INTERACTION_SETTINGS_ROUTES.quarantine}
                size="sm"
                underline="always"
              >
                {t('settings.quarantine.digestLink')}
              </Anchor>
            </Text>
          </Section>
          <Section id="settings-mail" title={t('settings.mail.title')}>
            <Text size="sm" c="dimmed">
              {settings.data.domains.length > 0
                ? t('settings.mail.hint', { domains })
                : t('settings.mail.hintNoDomain')}
            </Text>
            {!settings.data.mail_from_address && !settings.data.default_mail_from && (
              <Alert
                color="yellow"
                variant="light"
                title={
                  // The light yellow's own title colour is too pale to read on its background.
                  <Text component="span" fw={700} c="var(--mantine-color-text)">
                    {t('settings.mail.noSenderTitle')}
                  </Text>
                }
              >
                {t('settings.mail.noSender')}
              </Alert>
            )}
            <Group align="flex-start" wrap="wrap">
              <TextInput
                label={t('settings.mail.address')}
                description={
                  settings.data.default_mail_from
                    ? t('settings.mail.default', { address: settings.data.default_mail_from })
                    : undefined
                }
                placeholder={settings.data.default_mail_from ?? undefined}
                type="email"
                value={draft.mail_from_address}
                onChange={(event) => set('mail_from_address', event.currentTarget.value)}
                error={errorOf('mail_from_address')}
                w={340}
              />
              <TextInput
                label={t('settings.mail.name')}
                placeholder={settings.data.default_mail_from_name}
                maxLength={100}
                value={draft.mail_from_name}
                onChange={(event) => set('mail_from_name', event.currentTarget.value)}
                error={errorOf('mail_from_name')}
                w={340}
              />
            </Group>
          </Section>
          <Section id="settings-alerts" title={t('settings.alerts.title')}>
            <Textarea
              label={t('settings.alerts.recipients')}
              description={t('settings.alerts.hint', { domains, max: B.alertRecipients.max })}
              rows={4}
              value={draft.alert_recipients}
              onChange={(event) => set('alert_recipients', event.currentTarget.value)}
              error={errorOf('alert_recipients')}
              maw={560}
            />
          </Section>
          {save.isError && !errorField && <ApiErrorAlert error={save.error} showServerMessage />}
          <StatusNotice message={justSaved && t('settings.saved')} />
          {canChange && (
            <Group justify="flex-end" gap="sm">
              <Button variant="default" disabled={!dirty} onClick={() => discard(settings.data)}>
                {t('settings.discard')}
              </Button>
              <Button type="submit" disabled={!dirty} loading={save.isPending}>
                {t('settings.save')}
              </Button>
            </Group>
          )}
        </Stack>
      </fieldset>
    </form>
  );
  if (!canChange) return form;
  // The mail flow and single sign-on save on their own (their own forms): beside the settings form.
  return (
    <Stack gap="md">
      {form}
      <Section id="settings-mail-flow" title={t('settings.mailFlow.title')}>
        <MailFlowSettings />
        <Divider />
        <MailboxConnectionSettings />
        <Divider />
        <SubmissionCredentials />
      </Section>
      <Section id="settings-sso" title={t('settings.sso.title')}>
        <SingleSignOnSettings />
      </Section>
      <Section id="settings-microsoft" title={t('settings.oidc.microsoft.title')}>
        <OidcProviderSettings provider="microsoft" />
      </Section>
      <Section id="settings-google" title={t('settings.oidc.google.title')}>
        <OidcProviderSettings provider="google" />
      </Section>
    </Stack>
  );
}
