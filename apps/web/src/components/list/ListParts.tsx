import { Button, Drawer, Group, Pagination, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import type { ReactNode } from 'react';
import { formatDateTime } from '../../lib/format';
import type { TFunction } from '../../lib/i18n';
import { useTranslation } from '../../lib/i18n';

export function subjectOf(t: TFunction, subject: string): string {
  return subject || t('quarantine.list.noSubject');
}

/** The first cell of a row: the subject, and the sender under it. */
export function MessageCell({ subject, sender }: { subject: string; sender: string }) {
  return (
    <>
      <Text size="sm" fw={600} lineClamp={1}>
        {subject}
      </Text>
      <Text size="xs" c="dimmed" lineClamp={1}>
        {sender}
      </Text>
    </>
  );
}

/** The last cell of a row: Preview, then the row's own actions. */
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
    <Table.Td>
      <Group gap={4} wrap="nowrap" justify="flex-end">
        <Button
          size="xs"
          variant="subtle"
          onClick={onPreview}
          aria-label={t('quarantine.actions.previewOf', { subject })}
        >
          {t('quarantine.actions.preview')}
        </Button>
        {children}
      </Group>
    </Table.Td>
  );
}

/** A cell with a date and time of the API. */
export function DateCell({ iso }: { iso: string }) {
  const { i18n } = useTranslation();
  return (
    <Table.Td>
      {/* One line: the table scrolls sideways on a phone rather than stacking a date on three lines. */}
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {formatDateTime(iso, i18n.language)}
      </Text>
    </Table.Td>
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
