import { Badge, Button, Checkbox, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import type { Click, ClickOutcome, ClicksQuery } from '@moat/contracts/click-time';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import { type FormEvent, useId, useState } from 'react';
import { AddressText, DateText } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { Breakable } from '../../../components/ui/Breakable';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { useClicks } from '../api/get-clicks';

export const OUTCOME_LABEL: Record<ClickOutcome, TranslationKey> = {
  redirected: 'clickTime.outcome.redirected',
  warned: 'clickTime.outcome.warned',
  continued: 'clickTime.outcome.continued',
  blocked: 'clickTime.outcome.blocked',
};
export const OUTCOME_COLOR: Record<ClickOutcome, string> = {
  redirected: 'gray',
  warned: 'yellow',
  continued: 'orange',
  blocked: 'red',
};

/** What Moat did with a click, as a badge. */
export function OutcomeBadge({ click }: { click: Pick<Click, 'outcome' | 'scanner'> }) {
  const { t } = useTranslation();
  return (
    <Group gap={4} wrap="wrap">
      <Badge variant="outline" color={OUTCOME_COLOR[click.outcome]} className="quarantine-badge">
        {t(OUTCOME_LABEL[click.outcome])}
      </Badge>
      {click.scanner && (
        <Badge variant="outline" color="gray">
          {t('clickTime.scanner')}
        </Badge>
      )}
    </Group>
  );
}

/** What was typed: a URL (clicks on links that start with it) or a host (and its subdomains). */
function filterOf(text: string): Pick<ClicksQuery, 'host' | 'url'> {
  const value = text.trim();
  if (value === '') return {};
  return /^https?:\/\//i.test(value) ? { url: value } : { host: value.toLowerCase() };
}

/**
 * "Who clicked": for a URL or a host, every person who clicked a link to it, when, and what Moat
 * did; link scanners' visits only when asked for. With nothing typed, the latest clicks.
 */
export function WhoClickedSection() {
  const { t } = useTranslation();
  const headingId = useId();
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  const [scanners, setScanners] = useState(false);
  const [page, setPage] = useState(1);
  const query = useClicks({
    ...filterOf(search),
    scanners: scanners ? 'true' : undefined,
    limit: QUARANTINE_PAGE_SIZE,
    offset: (page - 1) * QUARANTINE_PAGE_SIZE,
  } as ClicksQuery);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSearch(typed);
    setPage(1);
  };

  return (
    <Stack gap="md" component="section" aria-labelledby={headingId} mt="lg">
      <Title order={2} size="h3" id={headingId}>
        {t('clickTime.clicks.title')}
      </Title>
      <Text size="sm">{t('clickTime.clicks.intro')}</Text>
      <form onSubmit={submit}>
        <Group align="flex-end" gap="sm" wrap="wrap">
          <TextInput
            type="search"
            label={t('clickTime.clicks.search')}
            placeholder={t('clickTime.clicks.searchPlaceholder')}
            value={typed}
            onChange={(e) => setTyped(e.currentTarget.value)}
            maxLength={2_000}
            style={{ flex: '1 1 16rem', maxWidth: '28rem' }}
          />
          <Button type="submit" size="sm">
            {t('clickTime.clicks.find')}
          </Button>
          <Checkbox
            label={t('clickTime.clicks.scanners')}
            checked={scanners}
            onChange={(e) => {
              setScanners(e.currentTarget.checked);
              setPage(1);
            }}
            mb={8}
          />
        </Group>
      </form>
      {search.trim() !== '' && query.data && (
        <Text size="sm" fw={600} role="status">
          {t('clickTime.clicks.people', { count: query.data.recipients, target: search.trim() })}
        </Text>
      )}
      <ListTable
        list={query}
        page={page}
        onPage={setPage}
        filtered={search.trim() !== '' || scanners}
        caption={t('clickTime.clicks.caption')}
        emptyTitle={t('clickTime.clicks.emptyTitle')}
        emptyDescription={t('clickTime.clicks.emptyDescription')}
        minWidth={820}
        rowKey={(click) => click.id}
        columns={[
          {
            key: 'recipient',
            label: t('clickTime.clicks.columns.recipient'),
            card: 'title',
            width: '14rem',
            cell: (click) => <AddressText address={click.recipient} />,
          },
          {
            key: 'url',
            label: t('clickTime.clicks.columns.url'),
            cell: (click) => (
              <Stack gap={2}>
                <Text size="sm" fw={600} className="list-text-anywhere">
                  {click.host}
                </Text>
                <Text size="xs" c="dimmed" className="list-text-anywhere">
                  <Breakable text={click.url} />
                </Text>
              </Stack>
            ),
          },
          {
            key: 'outcome',
            label: t('clickTime.clicks.columns.outcome'),
            width: '14rem',
            cell: (click) => <OutcomeBadge click={click} />,
          },
          {
            key: 'clickedAt',
            label: t('clickTime.clicks.columns.clickedAt'),
            width: '8rem',
            cell: (click) => <DateText iso={click.clickedAt} />,
          },
        ]}
      />
    </Stack>
  );
}
