import { Alert, Button, Center, EmptyState, Loader, Stack, Table, VisuallyHidden } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from '../../lib/i18n';
import { ApiErrorMessage } from '../ui/ApiErrorAlert';
import { TableScroll } from '../ui/TableScroll';
import { ListFooter } from './ListParts';

/** A list that is loading, failed (with a retry) or empty; null when it has rows to show. */
function ListState({
  isPending,
  error,
  isEmpty,
  filtered,
  emptyTitle,
  emptyDescription,
  onRetry,
}: {
  isPending: boolean;
  error: unknown;
  isEmpty: boolean;
  /** A search or filter is active: the empty state says nothing matched. */
  filtered: boolean;
  emptyTitle: string;
  emptyDescription: string;
  onRetry: () => void;
}) {
  const { t } = useTranslation();
  if (isPending) {
    return (
      <Center py="xl" role="status">
        <Loader />
        <VisuallyHidden>{t('app.loading')}</VisuallyHidden>
      </Center>
    );
  }
  if (error) {
    return (
      <Alert color="red" variant="light" role="alert" title={t('quarantine.list.loadFailed')}>
        <Stack gap="xs" align="flex-start">
          <ApiErrorMessage error={error} />
          <Button size="xs" variant="light" onClick={onRetry}>
            {t('quarantine.list.retry')}
          </Button>
        </Stack>
      </Alert>
    );
  }
  if (isEmpty) {
    return (
      <EmptyState
        title={filtered ? t('quarantine.list.noMatchTitle') : emptyTitle}
        description={filtered ? t('quarantine.list.noMatchDescription') : emptyDescription}
        withIndicatorBackground
      />
    );
  }
  return null;
}

/**
 * An admin list: loading, error (with a retry) and empty states, else the table (scrolling
 * sideways on a phone) and its footer with the pages.
 */
export function ListTable({
  list,
  page,
  onPage,
  filtered,
  caption,
  emptyTitle,
  emptyDescription,
  minWidth,
  head,
  children,
}: {
  list: UseQueryResult<{ items: unknown[]; total: number }>;
  page: number;
  onPage: (page: number) => void;
  filtered: boolean;
  caption: string;
  emptyTitle: string;
  emptyDescription: string;
  minWidth: number;
  /** The header cells, but the last one (the row actions, added here). */
  head: ReactNode;
  /** The rows. */
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const shown = list.data?.items.length ?? 0;
  return (
    <>
      <ListState
        isPending={list.isPending}
        error={list.isError ? list.error : null}
        isEmpty={list.isSuccess && shown === 0}
        filtered={filtered}
        emptyTitle={emptyTitle}
        emptyDescription={emptyDescription}
        onRetry={() => void list.refetch()}
      />
      {list.isSuccess && shown > 0 && (
        <>
          <TableScroll minWidth={minWidth} label={caption}>
            <Table
              highlightOnHover
              verticalSpacing="sm"
              className="quarantine-table"
              aria-busy={list.isPlaceholderData}
            >
              <Table.Caption>
                <VisuallyHidden>{caption}</VisuallyHidden>
              </Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  {head}
                  <Table.Th>
                    <VisuallyHidden>{t('quarantine.list.actions')}</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>{children}</Table.Tbody>
            </Table>
          </TableScroll>
          <ListFooter page={page} total={list.data.total} shown={shown} onPage={onPage} />
        </>
      )}
    </>
  );
}
