import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import type { DeliveredSearch, RetractionPreview, RetractionVerdict } from '@moat/contracts/retraction';
import { ROUTES } from '@moat/contracts/routes';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { formatDateTime } from '../../../lib/format';
import { useTranslation } from '../../../lib/i18n';
import { useBulkRetract, usePreview, useRetractions } from '../api/retraction';
import { VerdictSelect } from './VerdictSelect';

interface Fields {
  sender: string;
  subject: string;
  url: string;
  sha256: string;
  from: string;
  to: string;
}
const EMPTY: Fields = { sender: '', subject: '', url: '', sha256: '', from: '', to: '' };

/** The fields typed, as the API takes them (empty ones left out; dates as the day's start, UTC). */
function searchOf(f: Fields): DeliveredSearch {
  const search: DeliveredSearch = {};
  if (f.sender.trim()) search.sender = f.sender.trim();
  if (f.subject.trim()) search.subject = f.subject.trim();
  if (f.url.trim()) search.url = f.url.trim();
  if (f.sha256.trim()) search.sha256 = f.sha256.trim();
  if (f.from) search.from = new Date(`${f.from}T00:00:00Z`).toISOString();
  if (f.to) search.to = new Date(new Date(`${f.to}T00:00:00Z`).getTime() + 86_400_000).toISOString();
  return search;
}

/**
 * Mail Explorer → Retract delivered mail (admins): search what was delivered (sender, subject,
 * link, attachment hash, dates), see what would be pulled back, then retract it from the mailboxes.
 */
export function RetractScreen() {
  const { t, i18n } = useTranslation();
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [verdict, setVerdict] = useState<RetractionVerdict>('phishing');
  const [previewed, setPreviewed] = useState<{ search: DeliveredSearch; result: RetractionPreview } | null>(
    null,
  );
  const preview = usePreview();
  const bulk = useBulkRetract();
  const list = useRetractions();
  const set = (key: keyof Fields) => (e: { currentTarget: { value: string } }) => {
    setFields({ ...fields, [key]: e.currentTarget.value });
    setPreviewed(null);
    bulk.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const search = searchOf(fields);
    preview.mutate(search, { onSuccess: (result) => setPreviewed({ search, result }) });
  };
  const toRetract = previewed ? previewed.result.total - previewed.result.already_retracted : 0;

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h3">
          {t('retraction.screen.title')}
        </Title>
        <Anchor component={Link} to={ROUTES.mailExplorer} size="sm">
          {t('retraction.screen.back')}
        </Anchor>
      </Group>
      <Text size="sm" c="dimmed">
        {t('retraction.screen.intro')}{' '}
        <Anchor component={Link} to={`${ROUTES.configuration}/settings`} size="sm" underline="always">
          {t('retraction.screen.connectLink')}
        </Anchor>
      </Text>
      <Paper withBorder p="md" radius="md">
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <TextInput
                label={t('retraction.screen.sender')}
                placeholder="name@example.com, @example.com"
                value={fields.sender}
                onChange={set('sender')}
              />
              <TextInput
                label={t('retraction.screen.subject')}
                value={fields.subject}
                onChange={set('subject')}
              />
              <TextInput
                label={t('retraction.screen.url')}
                placeholder="https://… or host.example"
                value={fields.url}
                onChange={set('url')}
              />
              <TextInput
                label={t('retraction.screen.sha256')}
                value={fields.sha256}
                onChange={set('sha256')}
              />
              <TextInput
                type="date"
                label={t('retraction.screen.from')}
                value={fields.from}
                onChange={set('from')}
              />
              <TextInput
                type="date"
                label={t('retraction.screen.to')}
                value={fields.to}
                onChange={set('to')}
              />
            </SimpleGrid>
            {preview.isError && <ApiErrorAlert error={preview.error} />}
            <Group justify="flex-end">
              <Button type="submit" loading={preview.isPending}>
                {t('retraction.screen.preview')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>

      {previewed && (
        <Paper withBorder p="md" radius="md" aria-live="polite">
          <Stack gap="sm">
            <Text fw={500}>
              {previewed.result.total === 0
                ? t('retraction.screen.none')
                : t('retraction.screen.matches', {
                    total: previewed.result.total,
                    done: previewed.result.already_retracted,
                  })}
            </Text>
            {previewed.result.items.length > 0 && (
              <Table.ScrollContainer minWidth={0}>
                <Table striped fz="sm" layout="fixed">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('retraction.screen.recipient')}</Table.Th>
                      <Table.Th visibleFrom="sm">{t('retraction.screen.senderColumn')}</Table.Th>
                      <Table.Th>{t('retraction.screen.subjectColumn')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {previewed.result.items.map((item) => (
                      <Table.Tr key={item.mail_log_id}>
                        <Table.Td style={{ overflowWrap: 'anywhere' }}>
                          {item.recipient}{' '}
                          {item.retracted && (
                            <Badge
                              color="orange"
                              variant="light"
                              tt="none"
                              size="sm"
                              className="quarantine-badge"
                            >
                              {t('retraction.badge')}
                            </Badge>
                          )}
                        </Table.Td>
                        <Table.Td visibleFrom="sm" style={{ overflowWrap: 'anywhere' }}>
                          {item.sender}
                        </Table.Td>
                        <Table.Td style={{ overflowWrap: 'anywhere' }}>{item.subject}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
            {previewed.result.total > previewed.result.items.length && (
              <Text size="sm" c="dimmed">
                {t('retraction.screen.more', { shown: previewed.result.items.length })}
              </Text>
            )}
            {toRetract > 0 && (
              <Group align="flex-end" gap="sm" wrap="wrap">
                <VerdictSelect value={verdict} onChange={setVerdict} />
                <Button
                  color="red"
                  loading={bulk.isPending}
                  disabled={bulk.isSuccess}
                  onClick={() =>
                    bulk.mutate({ search: previewed.search, expected: previewed.result.total, verdict })
                  }
                >
                  {t('retraction.screen.retract', { count: toRetract })}
                </Button>
              </Group>
            )}
            {bulk.isError && <ApiErrorAlert error={bulk.error} />}
            {bulk.isSuccess && (
              <Alert color="teal" role="status">
                {t('retraction.screen.started', { count: bulk.data.copies })}
              </Alert>
            )}
          </Stack>
        </Paper>
      )}

      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('retraction.screen.recent')}
          </Title>
          {list.isError && <ApiErrorAlert error={list.error} />}
          {list.data && list.data.items.length === 0 && (
            <Text size="sm" c="dimmed">
              {t('retraction.screen.noneYet')}
            </Text>
          )}
          {list.data?.items.map((r) => (
            <Stack key={r.id} gap={2} data-testid="retraction-row">
              <Group gap="xs" wrap="wrap">
                <Badge
                  variant="light"
                  tt="none"
                  className="quarantine-badge"
                  color={r.status === 'done' ? 'teal' : r.status === 'failed' ? 'red' : 'blue'}
                >
                  {t(`retraction.status.${r.status}`)}
                </Badge>
                <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                  {r.reason}
                </Text>
              </Group>
              <Text size="sm" c="dimmed">
                {t('retraction.screen.counts', {
                  retracted: r.retracted,
                  total: r.total,
                  notFound: r.not_found,
                  failed: r.failed,
                  skipped: r.skipped,
                })}{' '}
                · {formatDateTime(r.created_at, i18n.language)}
              </Text>
            </Stack>
          ))}
          <Anchor component={Link} to={`${ROUTES.userInteraction}/quarantine-item`} size="sm">
            {t('retraction.screen.toQuarantine')}
          </Anchor>
        </Stack>
      </Paper>
    </Stack>
  );
}
