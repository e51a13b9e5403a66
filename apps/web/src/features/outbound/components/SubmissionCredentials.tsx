import {
  Alert,
  Badge,
  Button,
  Center,
  Code,
  CopyButton,
  Group,
  Loader,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { SMTP_CREDENTIAL_LABEL_MAX, type SmtpCredential } from '@moat/contracts/outbound';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';
import { credentialsQueryOptions, useCreateCredential, useRevokeCredential } from '../api/smtp-credentials';

const WRAP = { overflowWrap: 'anywhere', wordBreak: 'break-all' } as const;

function Copy({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation();
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button variant="default" size="xs" onClick={copy}>
          {copied ? t('outbound.credentials.copied') : label}
        </Button>
      )}
    </CopyButton>
  );
}

function CredentialCard({ c }: { c: SmtpCredential }) {
  const { t, i18n } = useTranslation();
  const revoke = useRevokeCredential();
  const [confirming, setConfirming] = useState(false);
  const when = (iso: string) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  return (
    <Paper withBorder p="sm" radius="md" component="li" style={{ listStyle: 'none' }}>
      <Stack gap={6}>
        <Group gap="xs" wrap="wrap">
          <Text fw={600} ff="monospace" size="sm" style={WRAP}>
            {c.username}
          </Text>
          <Badge
            className="quarantine-badge"
            variant="light"
            size="sm"
            tt="none"
            color={c.revokedAt ? 'gray' : 'teal'}
          >
            {c.revokedAt ? t('outbound.credentials.revoked') : t('outbound.credentials.active')}
          </Badge>
        </Group>
        {c.label && (
          <Text size="sm" style={WRAP}>
            {c.label}
          </Text>
        )}
        <Text size="xs" c="dimmed">
          {t('outbound.credentials.made', { date: when(c.createdAt) })}
          {' · '}
          {c.lastUsedAt
            ? t('outbound.credentials.lastUsed', { date: when(c.lastUsedAt) })
            : t('outbound.credentials.neverUsed')}
          {c.revokedAt && ` · ${t('outbound.credentials.revokedOn', { date: when(c.revokedAt) })}`}
        </Text>
        {revoke.isError && <ApiErrorAlert error={revoke.error} showServerMessage />}
        {!c.revokedAt &&
          (confirming ? (
            <Group gap="xs" wrap="wrap">
              <Text size="sm">{t('outbound.credentials.revokeConfirm', { username: c.username })}</Text>
              <Button size="xs" color="red" loading={revoke.isPending} onClick={() => revoke.mutate(c.id)}>
                {t('outbound.credentials.revoke')}
              </Button>
              <Button
                size="xs"
                variant="default"
                onClick={() => setConfirming(false)}
                disabled={revoke.isPending}
              >
                {t('outbound.credentials.cancel')}
              </Button>
            </Group>
          ) : (
            <Group>
              <Button size="xs" variant="default" onClick={() => setConfirming(true)}>
                {t('outbound.credentials.revokeOne', { username: c.username })}
              </Button>
            </Group>
          ))}
      </Stack>
    </Paper>
  );
}

/**
 * Settings → Mail flow → Outbound submission: where the tenant's server hands its outbound mail to
 * Moat, the credentials it logs in with (a new one's password shown once, here only), and
 * revoking one. Admins only, as its API.
 */
export function SubmissionCredentials() {
  const { t } = useTranslation();
  const list = useQuery(credentialsQueryOptions());
  const create = useCreateCredential();
  const [label, setLabel] = useState('');
  const made = create.data;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ label }, { onSuccess: () => setLabel('') });
  };

  return (
    <Stack gap="sm" component="section" aria-labelledby="submission-title">
      <Title order={3} size="h5" id="submission-title">
        {t('outbound.credentials.title')}
      </Title>
      {list.isPending && (
        <Center py="sm">
          <Loader size="sm" aria-label={t('outbound.credentials.loading')} />
        </Center>
      )}
      {list.isError && <ApiErrorAlert error={list.error} />}
      {list.data && (
        <>
          <Text size="sm" c="dimmed">
            {list.data.endpoint.port === null
              ? t('outbound.credentials.off')
              : t(
                  list.data.endpoint.starttls
                    ? 'outbound.credentials.intro'
                    : 'outbound.credentials.introNoTls',
                  {
                    host: list.data.endpoint.host,
                    port: list.data.endpoint.port,
                  },
                )}
          </Text>
          {list.data.endpoint.port !== null && !list.data.endpoint.starttls && (
            <Alert color="yellow" variant="light">
              <Text size="sm">{t('outbound.credentials.noTls')}</Text>
            </Alert>
          )}
          {made && (
            <Alert
              color="teal"
              variant="light"
              title={t('outbound.credentials.madeTitle')}
              classNames={{ title: 'alert-title-text' }}
            >
              <Stack gap={6}>
                <Text size="sm">{t('outbound.credentials.madeOnce')}</Text>
                <Text size="xs" fw={600}>
                  {t('outbound.credentials.username')}
                </Text>
                <Code block style={WRAP}>
                  {made.credential.username}
                </Code>
                <Text size="xs" fw={600}>
                  {t('outbound.credentials.password')}
                </Text>
                <Code block style={WRAP}>
                  {made.password}
                </Code>
                <Group gap="xs" wrap="wrap">
                  <Copy value={made.credential.username} label={t('outbound.credentials.copyUsername')} />
                  <Copy value={made.password} label={t('outbound.credentials.copyPassword')} />
                  <Button size="xs" variant="subtle" onClick={() => create.reset()}>
                    {t('outbound.credentials.done')}
                  </Button>
                </Group>
              </Stack>
            </Alert>
          )}
          {list.data.credentials.length === 0 ? (
            <Stack gap={2}>
              <Text size="sm" fw={600}>
                {t('outbound.credentials.emptyTitle')}
              </Text>
              <Text size="sm">{t('outbound.credentials.empty')}</Text>
            </Stack>
          ) : (
            <Stack gap="xs" component="ul" p={0} m={0} aria-label={t('outbound.credentials.listLabel')}>
              {list.data.credentials.map((c) => (
                <CredentialCard key={c.id} c={c} />
              ))}
            </Stack>
          )}
          <form onSubmit={onSubmit}>
            <Group gap="xs" align="flex-end" wrap="wrap">
              <TextInput
                label={t('outbound.credentials.label')}
                description={t('outbound.credentials.labelHelp')}
                value={label}
                maxLength={SMTP_CREDENTIAL_LABEL_MAX}
                onChange={(e) => setLabel(e.currentTarget.value)}
                style={{ flex: '1 1 14rem' }}
              />
              <Button type="submit" loading={create.isPending}>
                {t('outbound.credentials.create')}
              </Button>
            </Group>
          </form>
          {create.isError && <ApiErrorAlert error={create.error} showServerMessage />}
        </>
      )}
    </Stack>
  );
}
