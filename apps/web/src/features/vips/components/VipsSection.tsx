import { Alert, Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import type { Vip, VipListResponse } from '@moat/contracts/vips';
import type { UseQueryResult } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { AddressText, DateText } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { messageKeyOf } from '../../../lib/error-messages';
import { useTranslation } from '../../../lib/i18n';
import { useDeleteVip } from '../api/delete-vip';
import { useVips } from '../api/get-vips';
import { VipDialog } from './VipDialog';

/** Deleting is red: shade 9 keeps white text above 4.5:1 in both schemes. */
const DELETE_COLOR = 'red.9';

/** Whether a VIP matches what was typed in the search box (part of the name or of an address). */
function matches(vip: Vip, search: string): boolean {
  const q = search.trim().toLowerCase();
  return q === '' || vip.name.toLowerCase().includes(q) || vip.emails.some((e) => e.includes(q));
}

/**
 * Anti-Phishing's protected people (VIPs): the names an attacker would pose as, each with the
 * addresses the person really writes from. The list is the organisation's whole (at most
 * VIPS_MAX), searched and paged here; add, change and remove in dialogs.
 */
export function VipsSection() {
  const { t } = useTranslation();
  const headingId = useId();
  const query = useVips();
  const remove = useDeleteVip();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  /** The dialog: a person to change, 'new' to add one, null when closed. */
  const [editing, setEditing] = useState<Vip | 'new' | null>(null);
  const [confirming, setConfirming] = useState<Vip | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  const all = query.data?.items ?? [];
  const found = all.filter((v) => matches(v, search));
  const pages = Math.max(1, Math.ceil(found.length / QUARANTINE_PAGE_SIZE));
  const current = Math.min(page, pages);
  // The list as ListTable reads a server page: this page of what the search found.
  const list = {
    ...query,
    data: query.data && {
      ...query.data,
      items: found.slice((current - 1) * QUARANTINE_PAGE_SIZE, current * QUARANTINE_PAGE_SIZE),
      total: found.length,
    },
  } as UseQueryResult<VipListResponse>;
  const full = query.data !== undefined && query.data.total >= query.data.max;

  const confirmDelete = () => {
    if (!confirming) return;
    remove.mutate(confirming.id, {
      onSuccess: () => {
        setStatus(t('vips.confirmDelete.done', { name: confirming.name }));
        setConfirming(null);
      },
    });
  };

  return (
    <Stack gap="md" component="section" aria-labelledby={headingId} mt="lg">
      <Title order={2} size="h3" id={headingId}>
        {t('vips.title')}
      </Title>
      <Text size="sm">{t('vips.intro')}</Text>
      <StatusNotice message={status} onClose={() => setStatus(null)} />
      <Group justify="space-between" align="flex-end" gap="sm" wrap="wrap">
        <TextInput
          type="search"
          label={t('vips.search')}
          placeholder={t('vips.searchPlaceholder')}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          maxLength={200}
          style={{ flex: '1 1 16rem', maxWidth: '24rem' }}
        />
        <Button size="sm" onClick={() => setEditing('new')} disabled={full}>
          {t('vips.add')}
        </Button>
      </Group>
      {full && query.data && (
        <Alert color="yellow" variant="light">
          {t('vips.full', { max: query.data.max })}
        </Alert>
      )}

      <ListTable
        list={list}
        page={current}
        onPage={setPage}
        filtered={search.trim() !== ''}
        caption={t('vips.caption')}
        emptyTitle={t('vips.emptyTitle')}
        emptyDescription={t('vips.emptyDescription')}
        minWidth={720}
        rowKey={(vip) => vip.id}
        columns={[
          {
            key: 'name',
            label: t('vips.columns.name'),
            card: 'title',
            width: '14rem',
            cell: (vip) => (
              <Text size="sm" fw={600} className="list-text-anywhere">
                {vip.name}
              </Text>
            ),
          },
          {
            key: 'emails',
            label: t('vips.columns.emails'),
            cell: (vip) =>
              vip.emails.length === 0 ? (
                <Text size="sm" c="dimmed">
                  {t('vips.anyAddress')}
                </Text>
              ) : (
                <Stack gap={2}>
                  {vip.emails.map((email) => (
                    <AddressText key={email} address={email} />
                  ))}
                </Stack>
              ),
          },
          {
            key: 'createdBy',
            label: t('vips.columns.createdBy'),
            width: '11rem',
            cell: (vip) =>
              vip.created_by === 'cli' || !vip.created_by ? (
                <Text size="sm">{t('vips.byOperator')}</Text>
              ) : (
                <AddressText address={vip.created_by} />
              ),
          },
          {
            key: 'updatedAt',
            label: t('vips.columns.updatedAt'),
            width: '7rem',
            cell: (vip) => <DateText iso={vip.updated_at} />,
          },
        ]}
        actionsWidth="10.5rem"
        rowActions={(vip) => (
          <>
            <Button
              size="xs"
              variant="subtle"
              onClick={() => setEditing(vip)}
              aria-label={t('vips.editOf', { name: vip.name })}
            >
              {t('vips.edit')}
            </Button>
            <Button
              size="xs"
              variant="subtle"
              onClick={() => setConfirming(vip)}
              aria-label={t('vips.deleteOf', { name: vip.name })}
            >
              {t('vips.delete')}
            </Button>
          </>
        )}
      />

      {editing !== null && (
        <VipDialog
          key={editing === 'new' ? 'new' : editing.id}
          opened
          vip={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setStatus(t(editing === 'new' ? 'vips.form.added' : 'vips.form.saved', { name: saved.name }));
            setEditing(null);
          }}
        />
      )}
      <ConfirmDialog
        opened={confirming !== null}
        title={t('vips.confirmDelete.title')}
        confirmLabel={t('vips.confirmDelete.confirm')}
        confirmColor={DELETE_COLOR}
        pending={remove.isPending}
        onConfirm={confirmDelete}
        onClose={() => {
          remove.reset();
          setConfirming(null);
        }}
      >
        <Stack gap="sm">
          <Text size="sm">{confirming && t('vips.confirmDelete.body', { name: confirming.name })}</Text>
          {remove.error && (
            <Alert color="red" variant="light" role="alert">
              {t(messageKeyOf(remove.error))}
            </Alert>
          )}
        </Stack>
      </ConfirmDialog>
    </Stack>
  );
}
