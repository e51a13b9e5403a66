import {
  Alert,
  Badge,
  Button,
  Center,
  Divider,
  Group,
  Loader,
  Modal,
  PasswordInput,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { PASSWORD_MIN_LENGTH } from '@moat/contracts/constants';
import type { OwnSession } from '@moat/contracts/current-user';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { FitTable } from '../../../components/ui/FitTable';
import { formatDateTime } from '../../../lib/format';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { mfaSettingsQueryOptions } from '../../mfa/api/get-mfa-settings';
import {
  ownSessionsQueryOptions,
  useChangePassword,
  useEndOtherSessions,
  useEndSession,
} from '../api/account';

/** A browser's name from its user agent, enough to tell one's sessions apart. */
export function browserOf(userAgent: string | null): string {
  if (!userAgent) return '';
  const known: Array<[RegExp, string]> = [
    [/Edg\//, 'Edge'],
    [/OPR\//, 'Opera'],
    [/Firefox\//, 'Firefox'],
    [/Chrom(e|ium)\//, 'Chrome'],
    [/Safari\//, 'Safari'],
  ];
  const browser = known.find(([pattern]) => pattern.test(userAgent))?.[1] ?? userAgent.slice(0, 40);
  const system = /Windows/.test(userAgent)
    ? 'Windows'
    : /Android/.test(userAgent)
      ? 'Android'
      : /iPhone|iPad/.test(userAgent)
        ? 'iOS'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : '';
  return system ? `${browser}, ${system}` : browser;
}

function PasswordSection() {
  const { t } = useTranslation();
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [done, setDone] = useState(false);
  const [checked, setChecked] = useState(false);
  const tooShort = next.length > 0 && next.length < PASSWORD_MIN_LENGTH;
  const mismatch = confirm.length > 0 && confirm !== next;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    setDone(false);
    if (!current || next.length < PASSWORD_MIN_LENGTH || next !== confirm) return;
    change.mutate(
      { current_password: current, new_password: next, confirm_password: confirm },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
          setConfirm('');
          setChecked(false);
          setDone(true);
        },
      },
    );
  };
  const wrongCurrent = isApiError(change.error) && change.error.code === 'invalid_credentials';

  return (
    <Stack gap="sm" component="section" aria-labelledby="account-password">
      <Title order={3} size="h5" id="account-password">
        {t('account.password.title')}
      </Title>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <PasswordInput
            label={t('account.password.current')}
            autoComplete="current-password"
            value={current}
            onChange={(event) => setCurrent(event.currentTarget.value)}
            error={
              wrongCurrent
                ? t('account.password.wrong')
                : checked && !current
                  ? t('account.password.currentRequired')
                  : undefined
            }
            required
          />
          <PasswordInput
            label={t('account.password.new')}
            description={t('account.password.rule', { min: PASSWORD_MIN_LENGTH })}
            autoComplete="new-password"
            value={next}
            onChange={(event) => setNext(event.currentTarget.value)}
            error={
              tooShort || (checked && next.length < PASSWORD_MIN_LENGTH)
                ? t('account.password.tooShort', { min: PASSWORD_MIN_LENGTH })
                : undefined
            }
            required
          />
          <PasswordInput
            label={t('account.password.confirm')}
            autoComplete="new-password"
            value={confirm}
            onChange={(event) => setConfirm(event.currentTarget.value)}
            error={mismatch || (checked && confirm !== next) ? t('account.password.mismatch') : undefined}
            required
          />
          {change.isError && !wrongCurrent && <ApiErrorAlert error={change.error} showServerMessage />}
          <div role="status" aria-live="polite">
            {done && (
              <Alert color="green" variant="light">
                {t('account.password.done')}
              </Alert>
            )}
          </div>
          <Group justify="flex-end">
            <Button type="submit" loading={change.isPending}>
              {t('account.password.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

function MfaSection({ email, onManage }: { email: string; onManage: () => void }) {
  const { t } = useTranslation();
  const settings = useQuery(mfaSettingsQueryOptions(email));
  return (
    <Stack gap="xs" component="section" aria-labelledby="account-mfa">
      <Group justify="space-between" wrap="wrap">
        <Title order={3} size="h5" id="account-mfa">
          {t('account.mfa.title')}
        </Title>
        {settings.data && (
          <Badge
            color={settings.data.isMfaEnabled ? 'green' : 'gray'}
            variant="light"
            className="quarantine-badge"
          >
            {t(settings.data.isMfaEnabled ? 'account.mfa.on' : 'account.mfa.off')}
          </Badge>
        )}
      </Group>
      {settings.isError && <ApiErrorAlert error={settings.error} />}
      {settings.data && (
        <>
          <Text size="sm">
            {settings.data.mfaRequired
              ? t('account.mfa.required')
              : settings.data.isMfaEnabled
                ? t('account.mfa.onText')
                : t('account.mfa.offText')}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={onManage}>
              {t(settings.data.isMfaEnabled ? 'account.mfa.manage' : 'account.mfa.setUp')}
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}

function SessionWhere({ session }: { session: OwnSession }) {
  const { t } = useTranslation();
  return (
    <>
      <Text size="sm">{browserOf(session.user_agent) || t('account.sessions.unknownBrowser')}</Text>
      <Text size="xs" c="dimmed" ff="monospace">
        {session.ip ?? '—'}
      </Text>
    </>
  );
}

function SessionEnd({ session }: { session: OwnSession }) {
  const { t } = useTranslation();
  const end = useEndSession();
  const browser = browserOf(session.user_agent) || t('account.sessions.unknownBrowser');
  return (
    <>
      {session.current ? (
        <Badge variant="light" className="quarantine-badge">
          {t('account.sessions.current')}
        </Badge>
      ) : (
        <Button
          size="xs"
          variant="subtle"
          color="red.9"
          loading={end.isPending}
          onClick={() => end.mutate(session.id)}
          aria-label={t('account.sessions.endOf', { browser, ip: session.ip ?? '' })}
        >
          {t('account.sessions.end')}
        </Button>
      )}
      {end.isError && <ApiErrorAlert error={end.error} />}
    </>
  );
}

function SessionsSection() {
  const { t, i18n } = useTranslation();
  const list = useQuery(ownSessionsQueryOptions());
  const endOthers = useEndOtherSessions();
  const others = (list.data?.sessions ?? []).filter((s) => !s.current).length;
  return (
    <Stack gap="sm" component="section" aria-labelledby="account-sessions">
      <Group justify="space-between" wrap="wrap">
        <Title order={3} size="h5" id="account-sessions">
          {t('account.sessions.title')}
        </Title>
        <Button
          size="xs"
          variant="default"
          disabled={others === 0}
          loading={endOthers.isPending}
          onClick={() => endOthers.mutate()}
        >
          {t('account.sessions.endOthers')}
        </Button>
      </Group>
      <Text size="sm">{t('account.sessions.intro')}</Text>
      {list.isPending && (
        <Center py="sm">
          <Loader size="sm" aria-label={t('account.sessions.loading')} />
        </Center>
      )}
      {list.isError && <ApiErrorAlert error={list.error} />}
      {endOthers.isError && <ApiErrorAlert error={endOthers.error} />}
      {list.data && (
        <FitTable
          caption={t('account.sessions.caption')}
          rows={list.data.sessions}
          rowKey={(session) => session.id}
          columns={[
            {
              key: 'where',
              label: t('account.sessions.where'),
              cell: (session) => <SessionWhere session={session} />,
            },
            {
              key: 'lastUsed',
              label: t('account.sessions.lastUsed'),
              cell: (session) => formatDateTime(session.last_seen_at, i18n.language),
            },
            {
              key: 'started',
              label: t('account.sessions.started'),
              cell: (session) => formatDateTime(session.created_at, i18n.language),
            },
            {
              key: 'actions',
              label: t('account.sessions.actions'),
              cell: (session) => <SessionEnd session={session} />,
              width: '8rem',
            },
          ]}
        />
      )}
    </Stack>
  );
}

/**
 * The user menu's My account: change the password (the current one required; every other session
 * ends), the account's MFA (set up or turned off in the MFA dialog, under SPEC §6's rules), and the
 * open sessions, each of which can be ended.
 */
export function AccountDialog({
  email,
  mfaOffered,
  opened,
  onClose,
  onManageMfa,
}: {
  email: string;
  /** Whether the tenant offers MFA (feature enableMFA). */
  mfaOffered: boolean;
  opened: boolean;
  onClose: () => void;
  onManageMfa: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('account.title')}
      size={700}
      closeButtonProps={{ 'aria-label': t('common.close') }}
      centered
    >
      <Stack gap="lg">
        <Text size="sm" c="dimmed">
          {email}
        </Text>
        <PasswordSection />
        {mfaOffered && (
          <>
            <Divider />
            <MfaSection email={email} onManage={onManageMfa} />
          </>
        )}
        <Divider />
        <SessionsSection />
      </Stack>
    </Modal>
  );
}
