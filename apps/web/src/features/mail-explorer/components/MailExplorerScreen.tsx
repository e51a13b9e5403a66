import { Anchor, Badge, Button, List, Stack, Table, Text } from '@mantine/core';
import {
  DELIVERY_STATUSES,
  MAIL_ACTIONS,
  MAIL_EXPLORER_API,
  MAIL_SORTS,
  MAIL_VERDICTS,
  type MailLogEntry,
} from '@moat/contracts/mail-explorer';
import { messageTracePath, USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import { useState } from 'react';
import { Link } from 'react-router';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { DateCell, subjectOf } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { SortableTh } from '../../../components/list/SortableTh';
import { useListState } from '../../../components/list/use-list-state';
import { formatBytes } from '../../../lib/format';
import { useTranslation } from '../../../lib/i18n';
import { useMailLog } from '../api/get-mail-log';
import {
  authResultOf,
  DELIVERY_COLOR,
  DELIVERY_LABEL,
  MAIL_ACTION_LABEL,
  MAIL_VERDICT_COLOR,
  MAIL_VERDICT_LABEL,
  type MailVerdict,
} from '../labels';

/** The columns of a row, the details button included: the details row spans them all. */
const COLUMNS = 11;

function VerdictBadge({ verdict }: { verdict: MailVerdict }) {
  const { t } = useTranslation();
  return (
    <Badge variant="outline" color={MAIL_VERDICT_COLOR[verdict]} className="quarantine-badge">
      {t(MAIL_VERDICT_LABEL[verdict])}
    </Badge>
  );
}

/** One SPF, DKIM or DMARC result. */
function AuthCell({ result }: { result: string }) {
  const { t } = useTranslation();
  const { label, color } = authResultOf(result);
  return (
    <Table.Td>
      <Badge variant="light" color={color} className="quarantine-badge">
        {label ? t(label) : result}
      </Badge>
    </Table.Td>
  );
}

/** Why the gateway decided as it did, and what else it knows of the message. */
function MailDetails({ entry }: { entry: MailLogEntry }) {
  const { t, i18n } = useTranslation();
  return (
    <dl className="preview-fields mail-details">
      <div className="preview-field">
        <dt>{t('mailExplorer.details.reasons')}</dt>
        <dd>
          {entry.reasons.length > 0 ? (
            <List size="sm">
              {entry.reasons.map((reason) => (
                <List.Item key={reason}>{reason}</List.Item>
              ))}
            </List>
          ) : (
            t('mailExplorer.details.noReasons')
          )}
        </dd>
      </div>
      <div className="preview-field">
        <dt>{t('mailExplorer.details.from')}</dt>
        <dd>
          {entry.sender_name
            ? t('mailExplorer.details.namedSender', { name: entry.sender_name, email: entry.sender })
            : entry.sender}
        </dd>
      </div>
      {entry.message_id && (
        <div className="preview-field">
          <dt>{t('mailExplorer.details.messageId')}</dt>
          <dd className="mail-details__id">{entry.message_id}</dd>
        </div>
      )}
      <div className="preview-field">
        <dt>{t('mailExplorer.details.size')}</dt>
        <dd>{formatBytes(entry.size, i18n.language)}</dd>
      </div>
      <div className="preview-field">
        <dt>{t('mailExplorer.details.attachments')}</dt>
        <dd>{new Intl.NumberFormat(i18n.language).format(entry.attachments)}</dd>
      </div>
    </dl>
  );
}

function MailRow({
  entry,
  expanded,
  onToggle,
}: {
  entry: MailLogEntry;
  expanded: boolean;
  onToggle: () => void;
}) {
  const { t } = useTranslation();
  const subject = subjectOf(t, entry.subject);
  const detailsId = `mail-details-${entry.id}`;
  return (
    <>
      <Table.Tr>
        <DateCell iso={entry.received_at} />
        <Table.Td className="quarantine-table__message">
          <Text size="sm" lineClamp={1}>
            {entry.sender_name || entry.sender}
          </Text>
          {entry.sender_name && (
            <Text size="xs" c="dimmed" lineClamp={1}>
              {entry.sender}
            </Text>
          )}
        </Table.Td>
        <Table.Td>
          <Text size="sm">{entry.recipient}</Text>
        </Table.Td>
        <Table.Td className="quarantine-table__message">
          <Text size="sm" fw={600} lineClamp={2}>
            {subject}
          </Text>
        </Table.Td>
        <Table.Td>
          <VerdictBadge verdict={entry.verdict} />
        </Table.Td>
        <Table.Td>
          <Text size="sm">{t(MAIL_ACTION_LABEL[entry.action])}</Text>
          {entry.quarantine_message_id && (
            <Anchor
              component={Link}
              to={USER_INTERACTION_ROUTES.quarantineItems}
              size="xs"
              aria-label={t('mailExplorer.heldLinkOf', { subject })}
            >
              {t('mailExplorer.heldLink')}
            </Anchor>
          )}
        </Table.Td>
        <Table.Td>
          <Badge variant="light" color={DELIVERY_COLOR[entry.delivery]} className="quarantine-badge">
            {t(DELIVERY_LABEL[entry.delivery])}
          </Badge>
        </Table.Td>
        <AuthCell result={entry.spf} />
        <AuthCell result={entry.dkim} />
        <AuthCell result={entry.dmarc} />
        <Table.Td>
          <Anchor
            component={Link}
            to={messageTracePath(entry.id)}
            size="sm"
            mr="xs"
            aria-label={t('mailExplorer.traceLinkOf', { subject })}
          >
            {t('mailExplorer.traceLink')}
          </Anchor>
          <Button
            size="xs"
            variant={expanded ? 'light' : 'subtle'}
            onClick={onToggle}
            aria-expanded={expanded}
            aria-controls={expanded ? detailsId : undefined}
            aria-label={t('mailExplorer.detailsOf', { subject })}
          >
            {t('mailExplorer.showDetails')}
          </Button>
        </Table.Td>
      </Table.Tr>
      {expanded && (
        <Table.Tr id={detailsId}>
          <Table.Td colSpan={COLUMNS}>
            <MailDetails entry={entry} />
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

/**
 * Mail Explorer (/mail-explorer): every message the gateway processed, newest first, with search,
 * verdict and action filters, authentication results and the reasons of each verdict.
 */
export function MailExplorerScreen() {
  const { t } = useTranslation();
  const state = useListState({
    sorts: MAIL_SORTS,
    defaultSort: 'received_at',
    filters: {
      verdict: MAIL_VERDICTS,
      action: MAIL_ACTIONS,
      delivery: DELIVERY_STATUSES,
      message_id: 'text',
    },
  });
  const { verdict, action, delivery } = state.filters;
  const list = useMailLog(state.query);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());

  const toggle = (id: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const { sortable } = state;

  return (
    <Stack gap="md">
      <ListToolbar
        search={state.search}
        onSearchChange={state.setSearch}
        range={state.rangeControl}
        filters={[
          enumFilter({
            name: 'verdict',
            label: t('mailExplorer.columns.verdict'),
            allLabel: t('mailExplorer.allVerdicts'),
            values: MAIL_VERDICTS,
            labelOf: (value) => t(MAIL_VERDICT_LABEL[value]),
            value: verdict,
            onChange: (value) => state.setFilter('verdict', value),
          }),
          enumFilter({
            name: 'action',
            label: t('mailExplorer.columns.action'),
            allLabel: t('mailExplorer.allActions'),
            values: MAIL_ACTIONS,
            labelOf: (value) => t(MAIL_ACTION_LABEL[value]),
            value: action,
            onChange: (value) => state.setFilter('action', value),
          }),
          enumFilter({
            name: 'delivery',
            label: t('mailExplorer.columns.delivery'),
            allLabel: t('mailExplorer.allDeliveries'),
            values: DELIVERY_STATUSES,
            labelOf: (value) => t(DELIVERY_LABEL[value]),
            value: delivery,
            onChange: (value) => state.setFilter('delivery', value),
          }),
          {
            name: 'message_id',
            label: t('mailExplorer.messageIdFilter'),
            placeholder: t('mailExplorer.messageIdPlaceholder'),
            value: state.filters.message_id,
            onChange: (value) => state.setFilter('message_id', value),
          },
        ]}
        actions={
          <ExportCsvButton
            path={MAIL_EXPLORER_API.export}
            query={state.exportQuery}
            total={list.data?.total}
          />
        }
      />

      <ListTable
        list={list}
        {...state.paging}
        caption={t('mailExplorer.caption')}
        emptyTitle={t('mailExplorer.emptyTitle')}
        emptyDescription={t('mailExplorer.emptyDescription')}
        minWidth={1300}
        head={
          <>
            <SortableTh
              column="received_at"
              label={t('mailExplorer.columns.received')}
              firstDir="desc"
              {...sortable}
            />
            <SortableTh column="sender" label={t('mailExplorer.columns.from')} {...sortable} />
            <SortableTh column="recipient" label={t('mailExplorer.columns.to')} {...sortable} />
            <SortableTh column="subject" label={t('mailExplorer.columns.subject')} {...sortable} />
            <SortableTh column="verdict" label={t('mailExplorer.columns.verdict')} {...sortable} />
            <Table.Th>{t('mailExplorer.columns.action')}</Table.Th>
            <Table.Th>{t('mailExplorer.columns.delivery')}</Table.Th>
            <Table.Th>{t('mailExplorer.columns.spf')}</Table.Th>
            <Table.Th>{t('mailExplorer.columns.dkim')}</Table.Th>
            <Table.Th>{t('mailExplorer.columns.dmarc')}</Table.Th>
          </>
        }
      >
        {(list.data?.items ?? []).map((entry) => (
          <MailRow
            key={entry.id}
            entry={entry}
            expanded={expanded.has(entry.id)}
            onToggle={() => toggle(entry.id)}
          />
        ))}
      </ListTable>
    </Stack>
  );
}
