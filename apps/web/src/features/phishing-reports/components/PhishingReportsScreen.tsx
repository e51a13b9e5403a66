import { Alert, Badge, Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import {
  type PhishingReport,
  REPORT_KINDS,
  REPORT_SORTS,
  REPORT_STATUSES,
  USER_INTERACTION_API,
} from '@moat/contracts/phishing-reports';
import type { ReportSettings } from '@moat/contracts/user-interaction-settings';
import { useState } from 'react';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { AddressText, DateText, MessageCell, subjectOf } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { useListState } from '../../../components/list/use-list-state';
import { useTranslation } from '../../../lib/i18n';
import { decisionErrorText } from '../../quarantine/error-text';
import { useReportSettings } from '../../user-interaction-settings/api/report-settings';
import { useConfirmPhishingReport } from '../api/confirm-phishing-report';
import { useDismissPhishingReport } from '../api/dismiss-phishing-report';
import { usePhishingReports } from '../api/get-phishing-reports';

const STATUS_COLOR = { open: 'orange', confirmed: 'red', dismissed: 'green' } as const;

/**
 * Confirming removes the held copies and may block the sender, as Settings → User Interaction →
 * Phishing Reports says: the dialog says what will happen, and asks about the sender only when
 * the organisation leaves it to the admin.
 */
function ConfirmDialog({
  report,
  pending,
  settings,
  onConfirm,
  onClose,
}: {
  report: PhishingReport | null;
  pending: boolean;
  settings: Pick<ReportSettings, 'confirm_scope' | 'block_sender' | 'verdict_email'> | undefined;
  onConfirm: (blockSender: boolean) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [block, setBlock] = useState(false);
  const close = () => {
    setBlock(false);
    onClose();
  };
  return (
    <Modal
      opened={report !== null}
      onClose={close}
      title={t('reports.confirmTitle')}
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      {report && (
        <Stack gap="md">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {t(
              settings?.confirm_scope === 'reported_copy'
                ? 'reports.confirmDescriptionOne'
                : 'reports.confirmDescription',
              { subject: subjectOf(t, report.subject), sender: report.sender },
            )}{' '}
            {t(settings?.verdict_email === false ? 'reports.reporterNotTold' : 'reports.reporterTold')}
          </Text>
          {(settings?.block_sender ?? 'ask') === 'ask' ? (
            <Checkbox
              label={t('reports.blockSender', { sender: report.sender })}
              checked={block}
              onChange={(event) => setBlock(event.currentTarget.checked)}
              styles={{ label: { overflowWrap: 'anywhere' } }}
            />
          ) : (
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {t(settings?.block_sender === 'always' ? 'reports.blockAlways' : 'reports.blockNever', {
                sender: report.sender,
              })}
            </Text>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              {t('common.cancel')}
            </Button>
            <Button
              color="red.9"
              loading={pending}
              onClick={() => onConfirm(settings?.block_sender === 'ask' || !settings ? block : false)}
              data-autofocus
            >
              {t('reports.confirm')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

/**
 * Phishing Reports (/user-interaction/reported-phishing): what recipients reported from the link
 * in their notice. Confirm removes every held copy (and may block the sender); Mark safe dismisses.
 */
export function PhishingReportsScreen() {
  const { t } = useTranslation();
  const state = useListState({
    sorts: REPORT_SORTS,
    defaultSort: 'created_at',
    filters: { status: REPORT_STATUSES, kind: REPORT_KINDS },
  });
  const list = usePhishingReports(state.query);
  const confirm = useConfirmPhishingReport();
  const dismiss = useDismissPhishingReport();
  const reportSettings = useReportSettings();
  const [confirming, setConfirming] = useState<PhishingReport | null>(null);
  const [feedback, setFeedback] = useState<{ ok: boolean; text: string } | null>(null);
  const { sortable } = state;

  const onConfirm = (blockSender: boolean) => {
    if (!confirming) return;
    confirm.mutate(
      { id: confirming.id, blockSender },
      {
        onSuccess: (answer) =>
          setFeedback({ ok: true, text: t('reports.confirmed', { count: answer.hidden }) }),
        onError: (error) => setFeedback({ ok: false, text: decisionErrorText(t, error) }),
        onSettled: () => setConfirming(null),
      },
    );
  };
  const onDismiss = (report: PhishingReport) =>
    dismiss.mutate(
      { id: report.id },
      {
        onSuccess: () => setFeedback({ ok: true, text: t('reports.dismissed') }),
        onError: (error) => setFeedback({ ok: false, text: decisionErrorText(t, error) }),
      },
    );

  return (
    <Stack gap="md">
      <ListToolbar
        search={state.search}
        onSearchChange={state.setSearch}
        range={state.rangeControl}
        filters={[
          enumFilter({
            name: 'status',
            label: t('reports.columns.status'),
            allLabel: t('reports.allStatuses'),
            values: REPORT_STATUSES,
            labelOf: (value) => t(`reports.status.${value}`),
            value: state.filters.status,
            onChange: (value) => state.setFilter('status', value),
          }),
          enumFilter({
            name: 'kind',
            label: t('reports.columns.kind'),
            allLabel: t('reports.allKinds'),
            values: REPORT_KINDS,
            labelOf: (value) => t(`reports.kind.${value}`),
            value: state.filters.kind,
            onChange: (value) => state.setFilter('kind', value),
          }),
        ]}
        actions={
          <ExportCsvButton
            path={USER_INTERACTION_API.reportsExport}
            query={state.exportQuery}
            total={list.data?.total}
          />
        }
      />

      <div role="status" aria-live="polite">
        {feedback && (
          <Alert
            color={feedback.ok ? 'green' : 'red'}
            variant="light"
            withCloseButton
            onClose={() => setFeedback(null)}
          >
            {feedback.text}
          </Alert>
        )}
      </div>

      <ListTable
        list={list}
        {...state.paging}
        caption={t('reports.caption')}
        emptyTitle={t('reports.emptyTitle')}
        emptyDescription={t('reports.emptyDescription')}
        minWidth={840}
        sortable={sortable}
        rowKey={(report) => report.id}
        columns={[
          {
            key: 'reported',
            label: t('reports.columns.reported'),
            sort: 'created_at',
            firstDir: 'desc',
            width: '6.5rem',
            cell: (report) => <DateText iso={report.created_at} />,
          },
          {
            key: 'reporter',
            label: t('reports.columns.reporter'),
            sort: 'reporter',
            width: '10rem',
            cell: (report) => <AddressText address={report.reporter} />,
          },
          {
            key: 'message',
            label: t('reports.columns.message'),
            sort: 'subject',
            card: 'title',
            cell: (report) => <MessageCell subject={subjectOf(t, report.subject)} sender={report.sender} />,
          },
          {
            key: 'kind',
            label: t('reports.columns.kind'),
            width: '9rem',
            card: 'badge',
            cell: (report) => (
              <Badge
                variant="outline"
                color={report.kind === 'reported_phishing' ? 'red' : 'green'}
                className="quarantine-badge"
              >
                {t(`reports.kind.${report.kind}`)}
              </Badge>
            ),
          },
          {
            key: 'status',
            label: t('reports.columns.status'),
            sort: 'status',
            width: '8rem',
            card: 'badge',
            cell: (report) => (
              <>
                <Badge variant="light" color={STATUS_COLOR[report.status]} className="quarantine-badge">
                  {t(`reports.status.${report.status}`)}
                </Badge>
                {report.block_sender && (
                  <Text size="xs" c="dimmed">
                    {t('reports.blockedSender')}
                  </Text>
                )}
              </>
            ),
          },
        ]}
        actionsWidth="8rem"
        rowActions={(report) => {
          const subject = subjectOf(t, report.subject);
          return (
            report.status === 'open' && (
              <>
                <Button
                  size="xs"
                  color="red.9"
                  onClick={() => setConfirming(report)}
                  aria-label={t('reports.confirmOf', { subject })}
                >
                  {t('reports.confirm')}
                </Button>
                <Button
                  size="xs"
                  variant="default"
                  loading={dismiss.isPending && dismiss.variables?.id === report.id}
                  onClick={() => onDismiss(report)}
                  aria-label={t('reports.dismissOf', { subject })}
                >
                  {t('reports.dismiss')}
                </Button>
              </>
            )
          );
        }}
      />

      <ConfirmDialog
        report={confirming}
        pending={confirm.isPending}
        settings={reportSettings.data}
        onConfirm={onConfirm}
        onClose={() => setConfirming(null)}
      />
    </Stack>
  );
}
