import { Anchor, Badge, Button, Group, List, Stack, Text, VisuallyHidden } from '@mantine/core';
import {
  DELIVERY_STATUSES,
  MAIL_ACTIONS,
  MAIL_EXPLORER_API,
  MAIL_SORTS,
  MAIL_VERDICTS,
  type MailLogEntry,
} from '@moat/contracts/mail-explorer';
import { messageTracePath, ROUTES, USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import { useState } from 'react';
import { Link } from 'react-router';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { AddressText, DateText, subjectOf } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
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

function VerdictBadge({ verdict }: { verdict: MailVerdict }) {
  const { t } = useTranslation();
  return (
    <Badge variant="outline" color={MAIL_VERDICT_COLOR[verdict]} className="quarantine-badge">
      {t(MAIL_VERDICT_LABEL[verdict])}
    </Badge>
  );
}

/** SPF, DKIM and DMARC in one compact column: "SPF pass · DKIM pass · DMARC fail", a failure marked. */
function AuthResults({ entry }: { entry: MailLogEntry }) {
  const { t } = useTranslation();
  const checks = [
    ['spf', t('mailExplorer.columns.spf'), entry.spf],
    ['dkim', t('mailExplorer.columns.dkim'), entry.dkim],
    ['dmarc', t('mailExplorer.columns.dmarc'), entry.dmarc],
  ] as const;
  return (
    <Text size="xs" className="auth-results">
      {checks.map(([key, name, result], index) => {
        const { label, tone } = authResultOf(result);
        return (
          <span key={key}>
            {index > 0 && <span aria-hidden="true"> · </span>}
            <span className="nowrap">
              {name}{' '}
              <span className="auth-result" data-tone={tone}>
                {label ? t(label) : result}
              </span>
            </span>
            {index < checks.length - 1 && <VisuallyHidden>,</VisuallyHidden>}
          </span>
        );
      })}
    </Text>
  );
}

/** What the gateway did, and what became of the delivery under it. */
function OutcomeCell({ entry, subject }: { entry: MailLogEntry; subject: string }) {
  const { t } = useTranslation();
  return (
    <Stack gap={4} align="flex-start">
      <Text size="sm">{t(MAIL_ACTION_LABEL[entry.action])}</Text>
      <Badge variant="light" color={DELIVERY_COLOR[entry.delivery]} className="quarantine-badge">
        {t(DELIVERY_LABEL[entry.delivery])}
      </Badge>
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
    </Stack>
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
      <Group justify="flex-end">
        <Anchor component={Link} to={`${ROUTES.mailExplorer}/retract`} size="sm">
          {t('mailExplorer.retractLink')}
        </Anchor>
      </Group>
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
        minWidth={880}
        sortable={sortable}
        rowKey={(entry) => entry.id}
        columns={[
          {
            key: 'received',
            label: t('mailExplorer.columns.received'),
            sort: 'received_at',
            firstDir: 'desc',
            width: '6.5rem',
            cell: (entry) => <DateText iso={entry.received_at} />,
          },
          {
            key: 'from',
            label: t('mailExplorer.columns.from'),
            sort: 'sender',
            width: '10rem',
            cell: (entry) => (
              <>
                {entry.sender_name && (
                  <Text size="sm" lineClamp={2} className="list-text-anywhere">
                    {entry.sender_name}
                  </Text>
                )}
                <AddressText address={entry.sender} size={entry.sender_name ? 'xs' : 'sm'} />
              </>
            ),
          },
          {
            key: 'to',
            label: t('mailExplorer.columns.to'),
            sort: 'recipient',
            width: '9.5rem',
            cell: (entry) => <AddressText address={entry.recipient} />,
          },
          {
            key: 'subject',
            label: t('mailExplorer.columns.subject'),
            sort: 'subject',
            card: 'title',
            cell: (entry) => (
              <Text size="sm" fw={600} lineClamp={2} className="list-text-anywhere">
                {subjectOf(t, entry.subject)}
              </Text>
            ),
            cardCell: (entry) => (
              <Text size="sm" fw={600} className="list-text-anywhere">
                {subjectOf(t, entry.subject)}
              </Text>
            ),
          },
          {
            key: 'verdict',
            label: t('mailExplorer.columns.verdict'),
            sort: 'verdict',
            width: '7rem',
            card: 'badge',
            cell: (entry) => <VerdictBadge verdict={entry.verdict} />,
          },
          {
            key: 'action',
            label: t('mailExplorer.columns.action'),
            width: '9.5rem',
            cell: (entry) => <OutcomeCell entry={entry} subject={subjectOf(t, entry.subject)} />,
          },
          {
            key: 'auth',
            label: t('mailExplorer.columns.authentication'),
            width: '7.5rem',
            cell: (entry) => <AuthResults entry={entry} />,
          },
        ]}
        actionsWidth="6.5rem"
        rowActions={(entry) => {
          const subject = subjectOf(t, entry.subject);
          const open = expanded.has(entry.id);
          return (
            <>
              <Button
                component={Link}
                to={messageTracePath(entry.id)}
                size="xs"
                variant="light"
                aria-label={t('mailExplorer.traceLinkOf', { subject })}
              >
                {t('mailExplorer.traceLink')}
              </Button>
              <Button
                size="xs"
                variant={open ? 'light' : 'subtle'}
                onClick={() => toggle(entry.id)}
                aria-expanded={open}
                aria-controls={open ? `mail-details-${entry.id}` : undefined}
                aria-label={t('mailExplorer.detailsOf', { subject })}
              >
                {t('mailExplorer.showDetails')}
              </Button>
            </>
          );
        }}
        details={(entry) =>
          expanded.has(entry.id) ? (
            <div id={`mail-details-${entry.id}`}>
              <MailDetails entry={entry} />
            </div>
          ) : null
        }
      />
    </Stack>
  );
}
