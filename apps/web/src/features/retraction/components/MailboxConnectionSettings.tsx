import {
  Alert,
  Button,
  Center,
  Checkbox,
  Group,
  Loader,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  type Connection,
  checkConnection,
  IMAP_TLS_MODES,
  type ImapTlsMode,
  type RetractionAction,
} from '@moat/contracts/retraction';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';
import { connectionQueryOptions, useSaveConnection, useTestConnection } from '../api/retraction';

interface Draft {
  enabled: boolean;
  host: string;
  port: number;
  tls_mode: ImapTlsMode;
  verify_tls: boolean;
  master_user: string;
  separator: string;
  password: string;
  action: RetractionAction;
  folder: string;
}

const draftOf = (c: Connection): Draft => ({
  enabled: c.enabled,
  host: c.host,
  port: c.port,
  tls_mode: c.tls_mode,
  verify_tls: c.verify_tls,
  master_user: c.master_user,
  separator: c.separator,
  password: '',
  action: c.action,
  folder: c.folder,
});

const DEFAULT_PORT: Record<ImapTlsMode, number> = { tls: 993, starttls: 143, none: 143 };

/**
 * Settings → Mail flow → Mailbox connection (admins): the IMAP server Moat retracts delivered
 * mail from, through a master user; tested at the press of a button.
 */
export function MailboxConnectionSettings() {
  const { t } = useTranslation();
  const saved = useQuery(connectionQueryOptions());
  const save = useSaveConnection();
  const test = useTestConnection();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [mailbox, setMailbox] = useState('');
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    if (saved.data && draft === null) setDraft(draftOf(saved.data));
  }, [saved.data, draft]);

  if (saved.isPending) {
    return (
      <Center py="md">
        <Loader aria-label={t('retraction.connection.loading')} size="sm" />
      </Center>
    );
  }
  if (saved.isError) return <ApiErrorAlert error={saved.error} />;
  if (!draft) return null;

  const errors = Object.fromEntries(checkConnection(draft).map((e) => [e.field, e.message]));
  const shown = (field: string) => (touched ? errors[field] : undefined);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft({ ...draft, [key]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (Object.keys(errors).length > 0) return;
    save.mutate(
      { ...draft, password: draft.password === '' ? null : draft.password },
      { onSuccess: (c) => setDraft(draftOf(c)) },
    );
  };
  const last = test.data ?? null;

  return (
    <Stack gap="sm" component="section" aria-labelledby="mailbox-connection-title">
      <Title order={3} size="h5" id="mailbox-connection-title">
        {t('retraction.connection.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('retraction.connection.intro')}
      </Text>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Switch
            label={t('retraction.connection.enabled')}
            checked={draft.enabled}
            onChange={(e) => set('enabled', e.currentTarget.checked)}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label={t('retraction.connection.host')}
              placeholder="imap.example.com"
              value={draft.host}
              error={shown('host')}
              onChange={(e) => set('host', e.currentTarget.value)}
              autoComplete="off"
            />
            <NumberInput
              label={t('retraction.connection.port')}
              value={draft.port}
              min={1}
              max={65535}
              error={shown('port')}
              onChange={(v) => set('port', typeof v === 'number' ? v : Number(v) || 0)}
            />
          </SimpleGrid>
          <Select
            label={t('retraction.connection.tls')}
            data={IMAP_TLS_MODES.map((m) => ({ value: m, label: t(`retraction.connection.tlsMode.${m}`) }))}
            value={draft.tls_mode}
            error={shown('tls_mode')}
            allowDeselect={false}
            onChange={(v) => {
              const mode = (v ?? 'tls') as ImapTlsMode;
              setDraft({ ...draft, tls_mode: mode, port: DEFAULT_PORT[mode] });
            }}
          />
          {draft.tls_mode !== 'none' && (
            <Checkbox
              label={t('retraction.connection.verifyTls')}
              checked={draft.verify_tls}
              onChange={(e) => set('verify_tls', e.currentTarget.checked)}
            />
          )}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label={t('retraction.connection.masterUser')}
              description={t('retraction.connection.masterUserHint', { separator: draft.separator || '*' })}
              value={draft.master_user}
              error={shown('master_user')}
              onChange={(e) => set('master_user', e.currentTarget.value)}
              autoComplete="off"
            />
            <TextInput
              label={t('retraction.connection.separator')}
              value={draft.separator}
              error={shown('separator')}
              onChange={(e) => set('separator', e.currentTarget.value)}
              autoComplete="off"
            />
          </SimpleGrid>
          <PasswordInput
            label={t('retraction.connection.password')}
            description={
              saved.data.password_set
                ? t('retraction.connection.passwordKept')
                : t('retraction.connection.passwordNeeded')
            }
            value={draft.password}
            onChange={(e) => set('password', e.currentTarget.value)}
            autoComplete="new-password"
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="retraction-action-label">
              {t('retraction.connection.action')}
            </Text>
            <SegmentedControl
              aria-labelledby="retraction-action-label"
              value={draft.action}
              onChange={(v) => set('action', v as RetractionAction)}
              data={[
                { value: 'move', label: t('retraction.connection.actionMove') },
                { value: 'delete', label: t('retraction.connection.actionDelete') },
              ]}
              fullWidth
            />
          </Stack>
          {draft.action === 'move' && (
            <TextInput
              label={t('retraction.connection.folder')}
              value={draft.folder}
              error={shown('folder')}
              onChange={(e) => set('folder', e.currentTarget.value)}
            />
          )}
          {save.isError && <ApiErrorAlert error={save.error} />}
          {save.isSuccess && !save.isPending && (
            <Text size="sm" fw={500} role="status">
              {t('retraction.connection.saved')}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              {t('retraction.connection.save')}
            </Button>
          </Group>
        </Stack>
      </form>
      {saved.data.configured && (
        <Stack gap="xs">
          <Group align="flex-end" gap="sm" wrap="wrap">
            <TextInput
              style={{ flex: '1 1 14rem' }}
              label={t('retraction.connection.testMailbox')}
              placeholder={t('retraction.connection.testMailboxPlaceholder')}
              value={mailbox}
              onChange={(e) => setMailbox(e.currentTarget.value)}
            />
            <Button variant="default" loading={test.isPending} onClick={() => test.mutate(mailbox.trim())}>
              {t('retraction.connection.test')}
            </Button>
          </Group>
          {test.isError && <ApiErrorAlert error={test.error} />}
          {last && (
            <Alert
              color={last.ok ? 'teal' : 'red'}
              role="status"
              classNames={{ title: 'alert-title-text' }}
              title={
                last.ok
                  ? t('retraction.connection.testOk')
                  : t(`retraction.connection.testFailed.${last.stage ?? 'connect'}`)
              }
            >
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {last.message}
              </Text>
            </Alert>
          )}
          {!last && saved.data.last_test && (
            <Text size="sm" c="dimmed">
              {saved.data.last_test.ok
                ? t('retraction.connection.lastOk')
                : t('retraction.connection.lastFailed')}{' '}
              {saved.data.last_test.message}
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
