import { Alert, Badge, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import {
  EXCEPTION_KINDS,
  EXCEPTION_LISTS,
  EXCEPTION_SORTS,
  EXCEPTIONS_API,
  type ExceptionEntry,
} from '@moat/contracts/exceptions';
import { useState } from 'react';
import { useLocation } from 'react-router';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { AddressText, DateText } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { useListState } from '../../../components/list/use-list-state';
import { Breakable } from '../../../components/ui/Breakable';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { messageKeyOf } from '../../../lib/error-messages';
import { useTranslation } from '../../../lib/i18n';
import { useDeleteException } from '../api/delete-exception';
import { useExceptions } from '../api/get-exceptions';
import { KIND_LABEL, LIST_LABEL, SCOPE_LABEL } from '../labels';
import { scopeOfPath } from '../scopes';
import { AddExceptionDialog } from './AddExceptionDialog';
import { ImportExceptionsDialog } from './ImportExceptionsDialog';

/** Deleting is red: shade 9 keeps white text above 4.5:1 in both schemes. */
const DELETE_COLOR = 'red.9';

function ExpiryCell({ entry }: { entry: ExceptionEntry }) {
  const { t } = useTranslation();
  return (
    <>
      {entry.expires_at === null ? (
        <Text size="sm" c="dimmed">
          {t('exceptions.never')}
        </Text>
      ) : (
        <Group gap={6} wrap="wrap">
          <Text size="sm" td={entry.expired ? 'line-through' : undefined}>
            <DateText iso={entry.expires_at} />
          </Text>
          {entry.expired && (
            <Badge color="gray" variant="outline" className="quarantine-badge">
              {t('exceptions.expired')}
            </Badge>
          )}
        </Group>
      )}
    </>
  );
}

/**
 * Security Settings → Exceptions (SPEC §2.4): one screen for the Exceptions page (every engine's
 * entries) and each engine's page (its own entries and those for every engine), chosen by the
 * address. Allow and block entries with their kind, comment, author and expiry; add, delete,
 * CSV export and import.
 */
export function ExceptionsScreen() {
  const { t } = useTranslation();
  const scope = scopeOfPath(useLocation().pathname);
  const state = useListState({
    sorts: EXCEPTION_SORTS,
    defaultSort: 'created_at',
    filters: { list: EXCEPTION_LISTS, kind: EXCEPTION_KINDS, include_expired: ['true'] as const },
  });
  const query = { ...state.query, ...(scope === 'all' ? {} : { scope }) };
  const list = useExceptions(query);
  const remove = useDeleteException();
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const [confirming, setConfirming] = useState<ExceptionEntry | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const { sortable } = state;

  const confirmDelete = () => {
    if (!confirming) return;
    remove.mutate(confirming.id, {
      onSuccess: () => {
        setStatus(t('exceptions.confirmDelete.done'));
        setConfirming(null);
      },
    });
  };

  return (
    <Stack gap="md">
      <Text size="sm">
        {scope === 'all'
          ? t('exceptions.intro')
          : scope === 'dlp'
            ? t('exceptions.introDlp')
            : t('exceptions.introScope', { page: t(SCOPE_LABEL[scope]) })}
      </Text>
      {scope === 'dlp' ? (
        <Alert color="blue" variant="light" title={t('exceptions.dlpNoteTitle')}>
          {t('exceptions.dlpNote')}
        </Alert>
      ) : scope === 'click_time' ? (
        <Alert color="blue" variant="light" title={t('exceptions.clickTimeNoteTitle')}>
          {t('exceptions.clickTimeNote')}
        </Alert>
      ) : (
        <Alert color="blue" variant="light" title={t('exceptions.authNoteTitle')}>
          {t('exceptions.authNote')}
        </Alert>
      )}
      <StatusNotice message={status} onClose={() => setStatus(null)} />
      <ListToolbar
        search={state.search}
        onSearchChange={state.setSearch}
        searchPlaceholder={t('exceptions.searchPlaceholder')}
        filters={[
          enumFilter({
            name: 'list',
            label: t('exceptions.columns.list'),
            allLabel: t('exceptions.allLists'),
            values: EXCEPTION_LISTS,
            labelOf: (value) => t(LIST_LABEL[value]),
            value: state.filters.list,
            onChange: (value) => state.setFilter('list', value),
          }),
          enumFilter({
            name: 'kind',
            label: t('exceptions.columns.kind'),
            allLabel: t('exceptions.allKinds'),
            values: EXCEPTION_KINDS,
            labelOf: (value) => t(KIND_LABEL[value]),
            value: state.filters.kind,
            onChange: (value) => state.setFilter('kind', value),
          }),
          enumFilter({
            name: 'include_expired',
            label: t('exceptions.expiredFilter'),
            allLabel: t('exceptions.currentOnly'),
            values: ['true'] as const,
            labelOf: () => t('exceptions.withExpired'),
            value: state.filters.include_expired,
            onChange: (value) => state.setFilter('include_expired', value),
          }),
        ]}
        actions={
          <>
            <Button size="sm" onClick={() => setAdding(true)}>
              {t('exceptions.add')}
            </Button>
            <Button size="sm" variant="default" onClick={() => setImporting(true)}>
              {t('exceptions.import')}
            </Button>
            <ExportCsvButton
              path={EXCEPTIONS_API.export}
              query={{ ...state.exportQuery, ...(scope === 'all' ? {} : { scope }) }}
              total={list.data?.total}
            />
          </>
        }
      />

      <ListTable
        list={list}
        {...state.paging}
        caption={t('exceptions.caption')}
        emptyTitle={t('exceptions.emptyTitle')}
        emptyDescription={t('exceptions.emptyDescription')}
        minWidth={840}
        sortable={sortable}
        rowKey={(entry) => entry.id}
        rowProps={(entry) => ({ 'data-expired': entry.expired })}
        columns={[
          {
            key: 'list',
            label: t('exceptions.columns.list'),
            width: '6rem',
            card: 'badge',
            cell: (entry) => (
              <Badge
                color={entry.list === 'block' ? 'red' : 'green'}
                variant="outline"
                className="quarantine-badge"
              >
                {t(LIST_LABEL[entry.list])}
              </Badge>
            ),
          },
          {
            key: 'kind',
            label: t('exceptions.columns.kind'),
            sort: 'kind',
            width: '7rem',
            cell: (entry) => <Text size="sm">{t(KIND_LABEL[entry.kind])}</Text>,
          },
          {
            key: 'value',
            label: t('exceptions.columns.value'),
            sort: 'value',
            card: 'title',
            cell: (entry) => (
              <Text size="sm" ff="monospace" fw={600}>
                <Breakable text={entry.value} />
              </Text>
            ),
          },
          {
            key: 'scope',
            label: t('exceptions.columns.scope'),
            width: '8rem',
            cell: (entry) => <Text size="sm">{t(SCOPE_LABEL[entry.scope])}</Text>,
          },
          {
            key: 'comment',
            label: t('exceptions.columns.comment'),
            width: '11rem',
            cell: (entry) => (
              <Text size="sm" lineClamp={3} className="list-text-anywhere">
                {entry.comment || '—'}
              </Text>
            ),
          },
          {
            key: 'createdBy',
            label: t('exceptions.columns.createdBy'),
            width: '10rem',
            cell: (entry) =>
              entry.created_by === 'cli' || !entry.created_by ? (
                <Text size="sm">
                  {t(entry.created_by === 'cli' ? 'exceptions.byOperator' : 'exceptions.bySystem')}
                </Text>
              ) : (
                <AddressText address={entry.created_by} />
              ),
          },
          {
            key: 'createdAt',
            label: t('exceptions.columns.createdAt'),
            sort: 'created_at',
            firstDir: 'desc',
            width: '6.5rem',
            cell: (entry) => <DateText iso={entry.created_at} />,
          },
          {
            key: 'expiresAt',
            label: t('exceptions.columns.expiresAt'),
            sort: 'expires_at',
            width: '7rem',
            cell: (entry) => <ExpiryCell entry={entry} />,
          },
        ]}
        actionsWidth="6.5rem"
        rowActions={(entry) => (
          <Button
            size="xs"
            variant="subtle"
            onClick={() => setConfirming(entry)}
            aria-label={t('exceptions.deleteOf', { value: entry.value })}
          >
            {t('exceptions.delete')}
          </Button>
        )}
      />

      <AddExceptionDialog
        opened={adding}
        scope={scope}
        onClose={() => setAdding(false)}
        onAdded={(value) => {
          setAdding(false);
          setStatus(`${t('exceptions.form.added')}: ${value}`);
        }}
      />
      <ImportExceptionsDialog
        opened={importing}
        onClose={() => setImporting(false)}
        onImported={(count) => {
          setImporting(false);
          setStatus(t('exceptions.importDialog.done', { count }));
        }}
      />
      <Modal
        opened={confirming !== null}
        onClose={() => setConfirming(null)}
        title={t('exceptions.confirmDelete.title')}
        size={DIALOG_WIDTH.small}
        centered
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <Stack gap="md">
          <Text size="sm">
            {confirming &&
              t('exceptions.confirmDelete.body', {
                list: t(LIST_LABEL[confirming.list]),
                value: confirming.value,
              })}
          </Text>
          {remove.error && (
            <Alert color="red" variant="light" role="alert">
              {t(messageKeyOf(remove.error))}
            </Alert>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setConfirming(null)}>
              {t('exceptions.confirmDelete.cancel')}
            </Button>
            <Button color={DELETE_COLOR} loading={remove.isPending} onClick={confirmDelete} data-autofocus>
              {t('exceptions.confirmDelete.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
