import {
  Alert,
  Badge,
  Button,
  Center,
  Group,
  Loader,
  Paper,
  SegmentedControl,
  Stack,
  Text,
} from '@mantine/core';
import { OUTBOUND_HELD_STATUSES, type OutboundHeld, type OutboundHeldStatus } from '@moat/contracts/outbound';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { useTranslation } from '../../../lib/i18n';
import { useCreateException } from '../../exceptions/api/create-exception';
import { heldQueryOptions, useDecideHeld } from '../api/dlp';
import { HELD_STATUS_LABEL } from '../labels';
import { HitsList } from './HitsList';

const WRAP = { overflowWrap: 'anywhere' } as const;
const STATUS_COLOR: Record<OutboundHeldStatus, string> = {
  held: 'orange',
  released: 'teal',
  declined: 'gray',
};

function HeldCard({ item, onDone }: { item: OutboundHeld; onDone: (message: string) => void }) {
  const { t, i18n } = useTranslation();
  const decide = useDecideHeld();
  const block = useCreateException();
  const [asking, setAsking] = useState<'release' | 'decline' | null>(null);
  const [blocking, setBlocking] = useState(false);
  const when = (iso: string) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  const subject = item.subject || t('dlp.held.noSubject');
  return (
    <Paper withBorder p="sm" radius="md" component="li" style={{ listStyle: 'none' }}>
      <Stack gap={6}>
        <Group gap="xs" wrap="wrap">
          <Text fw={600} style={WRAP}>
            {subject}
          </Text>
          <Badge
            className="quarantine-badge"
            variant="light"
            size="sm"
            tt="none"
            color={STATUS_COLOR[item.status]}
          >
            {t(HELD_STATUS_LABEL[item.status])}
          </Badge>
        </Group>
        <Text size="sm" style={WRAP}>
          {t('dlp.held.fromTo', { sender: item.sender, recipients: item.recipients.join(', ') })}
        </Text>
        <Text size="xs" c="dimmed">
          {t('dlp.held.at', { date: when(item.createdAt) })}
          {item.decidedAt &&
            ` · ${t('dlp.held.decided', { status: t(HELD_STATUS_LABEL[item.status]), by: item.decidedBy ?? '', date: when(item.decidedAt) })}`}
        </Text>
        {(item.reason === 'rate' || item.reason === 'phishing') && (
          <Alert color="orange" variant="light" p="xs">
            <Text size="sm">
              {item.reason === 'rate'
                ? t('dlp.held.rate', { sender: item.sender })
                : t('dlp.held.phishing', { sender: item.sender })}
            </Text>
          </Alert>
        )}
        {item.hits.length > 0 && <HitsList hits={item.hits} />}
        {decide.isError && <ApiErrorAlert error={decide.error} showServerMessage />}
        {block.isError && <ApiErrorAlert error={block.error} showServerMessage />}
        {item.status === 'held' && (
          <Group gap="xs">
            <Button size="xs" onClick={() => setAsking('release')}>
              {t('dlp.held.release')}
            </Button>
            <Button size="xs" variant="default" color="red" onClick={() => setAsking('decline')}>
              {t('dlp.held.decline')}
            </Button>
            <Button size="xs" variant="default" onClick={() => setBlocking(true)}>
              {t('dlp.held.block', { sender: item.sender })}
            </Button>
          </Group>
        )}
      </Stack>
      <ConfirmDialog
        opened={blocking}
        title={t('dlp.held.blockTitle')}
        confirmLabel={t('dlp.held.blockConfirm')}
        confirmColor="red"
        pending={block.isPending}
        onClose={() => setBlocking(false)}
        onConfirm={() =>
          block.mutate(
            {
              list: 'block',
              kind: 'sender',
              scope: 'dlp',
              value: item.sender,
              comment: t('dlp.held.blockComment', { subject }),
            },
            {
              onSuccess: () => {
                setBlocking(false);
                onDone(t('dlp.held.blocked', { sender: item.sender }));
              },
              onError: () => setBlocking(false),
            },
          )
        }
      >
        {t('dlp.held.blockText', { sender: item.sender })}
      </ConfirmDialog>
      <ConfirmDialog
        opened={asking !== null}
        title={asking === 'release' ? t('dlp.held.releaseTitle') : t('dlp.held.declineTitle')}
        confirmLabel={asking === 'release' ? t('dlp.held.release') : t('dlp.held.decline')}
        confirmColor={asking === 'decline' ? 'red' : undefined}
        pending={decide.isPending}
        onClose={() => setAsking(null)}
        onConfirm={() =>
          asking &&
          decide.mutate(
            { id: item.id, decision: asking },
            {
              onSuccess: () => {
                onDone(t(asking === 'release' ? 'dlp.held.released' : 'dlp.held.declined', { subject }));
                setAsking(null);
              },
              onError: () => setAsking(null),
            },
          )
        }
      >
        {asking === 'release'
          ? t('dlp.held.releaseText', { count: item.recipients.length })
          : t('dlp.held.declineText', { sender: item.sender })}
      </ConfirmDialog>
    </Paper>
  );
}

/** Outbound mail DLP held: what was found (masked), and release or decline (the sender is told). */
export function HeldMailPanel() {
  const { t } = useTranslation();
  const [status, setStatus] = useState<OutboundHeldStatus | 'all'>('held');
  const [notice, setNotice] = useState<string | null>(null);
  const list = useQuery(heldQueryOptions(status));
  return (
    <Stack gap="md">
      <Text size="sm">{t('dlp.held.intro')}</Text>
      <SegmentedControl
        value={status}
        onChange={(value) => setStatus(value as OutboundHeldStatus | 'all')}
        aria-label={t('dlp.held.filter')}
        data={[
          ...OUTBOUND_HELD_STATUSES.map((s) => ({ value: s, label: t(HELD_STATUS_LABEL[s]) })),
          { value: 'all', label: t('dlp.held.all') },
        ]}
        style={{ alignSelf: 'flex-start' }}
      />
      <StatusNotice message={notice} onClose={() => setNotice(null)} />
      {list.isPending && (
        <Center py="md">
          <Loader size="sm" aria-label={t('dlp.held.loading')} />
        </Center>
      )}
      {list.isError && <ApiErrorAlert error={list.error} />}
      {list.data &&
        (list.data.items.length === 0 ? (
          <Text size="sm" c="dimmed">
            {status === 'held' ? t('dlp.held.noneWaiting') : t('dlp.held.none')}
          </Text>
        ) : (
          <Stack gap="xs" component="ul" p={0} m={0}>
            {list.data.items.map((item) => (
              <HeldCard key={item.id} item={item} onDone={setNotice} />
            ))}
          </Stack>
        ))}
      {list.data && list.data.total > list.data.items.length && (
        <Text size="xs" c="dimmed">
          {t('dlp.held.more', { shown: list.data.items.length, total: list.data.total })}
        </Text>
      )}
    </Stack>
  );
}
