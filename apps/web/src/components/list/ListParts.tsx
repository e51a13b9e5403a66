import { Button, Drawer, Group, Pagination, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import type { ReactNode } from 'react';
import { formatDateTime } from '../../lib/format';
import type { TFunction } from '../../lib/i18n';
import { useTranslation } from '../../lib/i18n';
import { Breakable } from '../ui/Breakable';

export function subjectOf(t: TFunction, subject: string): string {
  return subject || t('quarantine.list.noSubject');
}

/** The first cell of a row: the subject, and the sender under it. */
export function MessageCell({ subject, sender }: { subject: string; sender: string }) {
  return (
    <>
      <Text size="sm" fw={600} lineClamp={2} className="list-text-anywhere">
        {subject}
      </Text>
      <Text size="xs" c="dimmed">
        <Breakable text={sender} />
      </Text>
    </>
  );
}

/** An address (or a domain) in a list: it wraps at its @ and dots. */
export function AddressText({ address, size = 'sm' }: { address: string; size?: 'sm' | 'xs' }) {
  // No address (a report has no sender of its own): a dash, not an empty cell.
  if (address === '')
    return (
      <Text size={size} c="dimmed">
        —
      </Text>
    );
  return (
    <Text size={size}>
      <Breakable text={address} />
    </Text>
  );
}

/** A row's actions: Preview, then the row's own. */
export function RowActions({
  subject,
  onPreview,
  children,
}: {
  subject: string;
  onPreview: () => void;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Button
        size="xs"
        variant="subtle"
        onClick={onPreview}
        aria-label={t('quarantine.actions.previewOf', { subject })}
      >
        {t('quarantine.actions.preview')}
      </Button>
      {children}
    </>
  );
}

/** A date and time of the API: the date and the time each kept whole, on two lines where the column is narrow. */
export function DateText({ iso }: { iso: string }) {
  const { i18n } = useTranslation();
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <Text size="sm">{iso}</Text>;
  const day = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' }).format(date);
  const time = new Intl.DateTimeFormat(i18n.language, { timeStyle: 'short' }).format(date);
  return (
    <Text size="sm" component="time" dateTime={iso} title={formatDateTime(iso, i18n.language)}>
      <span className="nowrap">{day},</span> <span className="nowrap">{time}</span>
    </Text>
  );
}

/** The preview drawer: on the right, the whole width of a phone. */
export function PreviewDrawer({
  opened,
  onClose,
  children,
}: {
  opened: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const narrow = useMediaQuery('(max-width: 48em)');
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size={narrow ? '100%' : 'xl'}
      title={t('quarantine.preview.title')}
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      {children}
    </Drawer>
  );
}

const CONTROL_LABELS = {
  previous: 'quarantine.list.previousPage',
  next: 'quarantine.list.nextPage',
  first: 'quarantine.list.firstPage',
  last: 'quarantine.list.lastPage',
} as const;

/** Under a list: which rows are shown of how many, and the pages. */
export function ListFooter({
  page,
  total,
  shown,
  onPage,
}: {
  page: number;
  total: number;
  shown: number;
  onPage: (page: number) => void;
}) {
  const { t } = useTranslation();
  const pages = Math.max(1, Math.ceil(total / QUARANTINE_PAGE_SIZE));
  const first = (page - 1) * QUARANTINE_PAGE_SIZE + 1;
  return (
    <Group justify="space-between" gap="sm" wrap="wrap">
      <Text size="sm" c="dimmed">
        {t('quarantine.list.range', { first, last: first + shown - 1, total })}
      </Text>
      {pages > 1 && (
        <Pagination
          total={pages}
          value={page}
          onChange={onPage}
          size="sm"
          getControlProps={(control) => ({ 'aria-label': t(CONTROL_LABELS[control]) })}
          getItemProps={(item) => ({ 'aria-label': t('quarantine.list.page', { page: item }) })}
        />
      )}
    </Group>
  );
}
