import { Alert, Badge, Button, Group, Loader, Paper, Stack, Switch, Text, Title } from '@mantine/core';
import type {
  DkimAlgorithm,
  DkimKeyState,
  DkimPublished,
  DkimSigningDomain,
  DkimSigningKey,
} from '@moat/contracts/dkim-signing';
import { useId } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { type DkimSigningChange, useChangeDkimSigning } from '../api/dkim-signing';
import { RecordToPublish } from './RecordToPublish';

const BADGE = { className: 'quarantine-badge', variant: 'light', size: 'sm', tt: 'none' } as const;

const STATE: Record<DkimKeyState, { color: string; text: TranslationKey }> = {
  active: { color: 'teal', text: 'dmarc.dkimSigning.state.active' },
  pending: { color: 'blue', text: 'dmarc.dkimSigning.state.pending' },
  retired: { color: 'gray', text: 'dmarc.dkimSigning.state.retired' },
};
const PUBLISHED: Record<DkimPublished, { color: string; text: TranslationKey }> = {
  yes: { color: 'teal', text: 'dmarc.dkimSigning.published.yes' },
  no: { color: 'yellow', text: 'dmarc.dkimSigning.published.no' },
  other: { color: 'red', text: 'dmarc.dkimSigning.published.other' },
  unknown: { color: 'gray', text: 'dmarc.dkimSigning.published.unknown' },
};

function useDay() {
  const { i18n } = useTranslation();
  const format = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeZone: 'UTC' });
  return (isoDay: string) => format.format(new Date(`${isoDay.slice(0, 10)}T00:00:00Z`));
}

function KeyCard({ k }: { k: DkimSigningKey }) {
  const { t } = useTranslation();
  const day = useDay();
  const headingId = useId();
  const state = STATE[k.state];
  const published = PUBLISHED[k.published];
  // A retired key's record is shown while DNS still has it (to be removed after the week).
  const showRecord = k.state !== 'retired' || k.published === 'yes';
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="xs">
        <Group gap="xs" wrap="wrap">
          <Title order={4} size="h6" id={headingId} style={{ overflowWrap: 'anywhere' }}>
            {t('dmarc.dkim.selector', { selector: k.selector })}
          </Title>
          <Badge {...BADGE} color="gray">
            {k.algorithm === 'ed25519-sha256'
              ? t('dmarc.dkim.key.ed25519')
              : t('dmarc.dkim.key.rsa', { bits: k.bits })}
          </Badge>
          <Badge {...BADGE} color={state.color}>
            {t(state.text)}
          </Badge>
          <Badge {...BADGE} color={published.color}>
            {t(published.text)}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed">
          {k.state === 'retired' && k.retiredAt
            ? t('dmarc.dkimSigning.retiredOn', {
                date: day(k.retiredAt),
                remove: day(k.removeAfter ?? k.retiredAt),
              })
            : t('dmarc.dkimSigning.createdOn', { date: day(k.createdAt) })}
        </Text>
        {showRecord && <RecordToPublish name={k.recordName} value={k.recordValue} />}
      </Stack>
    </Paper>
  );
}

/**
 * DKIM Management → "Signing by Moat" for one domain: Moat's own keys (made and sealed on the
 * server), the record to publish for each, whether DNS shows it, signing on or off, and the
 * rotation in two steps (a next key to publish, then the switch). Every change answers with the
 * domain as it is now, its warnings included; a refused one says why, inline.
 */
export function DkimSigningPanel({ domain, headingOf }: { domain: DkimSigningDomain; headingOf: string }) {
  const { t } = useTranslation();
  const headingId = useId();
  const change = useChangeDkimSigning();
  const run = (c: DkimSigningChange) => change.mutate(c);
  const busy = change.isPending;
  const of = (algorithm: DkimAlgorithm, state: DkimKeyState) =>
    domain.keys.find((k) => k.algorithm === algorithm && k.state === state);
  const rsa = of('rsa-sha256', 'active');
  const rsaNext = of('rsa-sha256', 'pending');
  const ed = of('ed25519-sha256', 'active') ?? of('ed25519-sha256', 'pending');
  const edNext = of('ed25519-sha256', 'pending');
  const hasKey = domain.keys.some((k) => k.state === 'active');
  // The switch moves at once; the answer (or a refusal, shown below it) then decides.
  const asked = change.isPending ? change.variables : undefined;
  const pendingSwitch = asked?.kind === 'signing' ? asked.enabled : undefined;
  const name = domain.domain;
  return (
    <Stack gap="sm" component="section" aria-labelledby={`${headingId} ${headingOf}`}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Title order={3} size="h5" id={headingId}>
          {t('dmarc.dkimSigning.title')}
        </Title>
        <Switch
          label={t('dmarc.dkimSigning.switch', { domain: name })}
          checked={pendingSwitch ?? domain.enabled}
          disabled={busy}
          onChange={(e) => run({ kind: 'signing', domain: name, enabled: e.currentTarget.checked })}
        />
      </Group>
      <Text size="sm" c="dimmed">
        {domain.enabled
          ? t('dmarc.dkimSigning.on', { domain: name })
          : t('dmarc.dkimSigning.off', { domain: name })}
      </Text>
      {change.isError && <ApiErrorAlert error={change.error} showServerMessage />}
      {domain.warnings.map((warning) => (
        <Alert key={warning} color="yellow" variant="light">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {warning}
          </Text>
        </Alert>
      ))}
      {!hasKey && (
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            {t('dmarc.dkimSigning.noKeyTitle')}
          </Text>
          <Text size="sm">{t('dmarc.dkimSigning.noKey', { domain: name })}</Text>
        </Stack>
      )}
      {domain.keys.map((k) => (
        <KeyCard key={k.selector} k={k} />
      ))}
      <Group gap="xs" wrap="wrap">
        {!rsa && !rsaNext && (
          <Button
            size="xs"
            loading={busy}
            onClick={() => run({ kind: 'create', domain: name, algorithm: 'rsa-sha256' })}
          >
            {t('dmarc.dkimSigning.create')}
          </Button>
        )}
        {rsa && !rsaNext && (
          <Button
            size="xs"
            variant="default"
            disabled={busy}
            onClick={() => run({ kind: 'rotate', domain: name, algorithm: 'rsa-sha256' })}
          >
            {t('dmarc.dkimSigning.rotate')}
          </Button>
        )}
        {rsaNext && (
          <Button
            size="xs"
            disabled={busy}
            onClick={() => run({ kind: 'finish', domain: name, algorithm: 'rsa-sha256' })}
          >
            {t('dmarc.dkimSigning.finish', { selector: rsaNext.selector })}
          </Button>
        )}
        {rsa && !ed && (
          <Button
            size="xs"
            variant="default"
            disabled={busy}
            onClick={() => run({ kind: 'create', domain: name, algorithm: 'ed25519-sha256' })}
          >
            {t('dmarc.dkimSigning.addEd25519')}
          </Button>
        )}
        {ed && !edNext && ed.state === 'active' && (
          <Button
            size="xs"
            variant="default"
            disabled={busy}
            onClick={() => run({ kind: 'rotate', domain: name, algorithm: 'ed25519-sha256' })}
          >
            {t('dmarc.dkimSigning.rotateEd25519')}
          </Button>
        )}
        {edNext && (
          <Button
            size="xs"
            disabled={busy}
            onClick={() => run({ kind: 'finish', domain: name, algorithm: 'ed25519-sha256' })}
          >
            {t('dmarc.dkimSigning.finish', { selector: edNext.selector })}
          </Button>
        )}
        {busy && <Loader size="xs" aria-label={t('dmarc.dkimSigning.working')} />}
      </Group>
    </Stack>
  );
}
