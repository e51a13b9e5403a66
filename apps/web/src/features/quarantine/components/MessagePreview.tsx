import {
  Accordion,
  Alert,
  Button,
  Center,
  Code,
  Group,
  List,
  Loader,
  Stack,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import type { MessageDetail } from '@moat/contracts/quarantine-admin';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiErrorMessage } from '../../../components/ui/ApiErrorAlert';
import { Breakable } from '../../../components/ui/Breakable';
import { Field } from '../../../components/ui/Field';
import { FitTable } from '../../../components/ui/FitTable';
import { formatBytes, formatDateTime } from '../../../lib/format';
import { useTranslation } from '../../../lib/i18n';
import { useQuarantineMessage } from '../api/get-quarantine-message';
import { ATTACHMENT_STATE_LABEL, MESSAGE_STATE_LABEL } from '../labels';
import { VerdictBadge } from './Badges';

/**
 * A held message, safely (SPEC §2.4 User Interaction): headers, the body as plain pre-wrapped text
 * (never HTML), links listed as inert text, and the attachments with their SHA-256 and state.
 * `extra` (e.g. the recipient's request) goes under the summary.
 */
export function MessagePreview({ id, extra }: { id: string; extra?: ReactNode }) {
  return <LoadedPreview message={useQuarantineMessage(id)} extra={extra} />;
}

/** What a preview shows: an admin's view of a message, or a user's own (without recipient, size or hash). */
export type PreviewedMessage = Pick<
  MessageDetail,
  | 'id'
  | 'subject'
  | 'sender'
  | 'sender_name'
  | 'received_at'
  | 'verdict'
  | 'reasons'
  | 'state'
  | 'body_text'
  | 'links'
  | 'attachments'
  | 'headers'
> &
  Partial<Pick<MessageDetail, 'recipient' | 'size' | 'raw_sha256'>>;

/** A preview while its message loads: a spinner, an error with Try again, or the message. */
export function LoadedPreview({
  message,
  extra,
}: {
  message: UseQueryResult<PreviewedMessage>;
  extra?: ReactNode;
}) {
  const { t } = useTranslation();

  if (message.isPending) {
    return (
      <Center py="xl" role="status">
        <Loader />
        <VisuallyHidden>{t('app.loading')}</VisuallyHidden>
      </Center>
    );
  }
  if (message.isError) {
    return (
      <Alert color="red" variant="light" role="alert" title={t('quarantine.preview.loadFailed')}>
        <Stack gap="xs" align="flex-start">
          <ApiErrorMessage error={message.error} />
          <Button size="xs" variant="light" onClick={() => void message.refetch()}>
            {t('quarantine.list.retry')}
          </Button>
        </Stack>
      </Alert>
    );
  }

  return <PreviewView m={message.data} extra={extra} />;
}

function PreviewView({ m, extra }: { m: PreviewedMessage; extra?: ReactNode }) {
  const { t, i18n } = useTranslation();
  return (
    <Stack gap="lg">
      <Title order={3} className="preview-subject">
        {m.subject || t('quarantine.list.noSubject')}
      </Title>
      <dl className="preview-fields">
        <Field label={t('quarantine.preview.from')}>
          {m.sender_name && `${m.sender_name} <`}
          <Breakable text={m.sender} />
          {m.sender_name && '>'}
        </Field>
        {m.recipient !== undefined && (
          <Field label={t('quarantine.preview.to')}>
            <Breakable text={m.recipient} />
          </Field>
        )}
        <Field label={t('quarantine.preview.received')}>{formatDateTime(m.received_at, i18n.language)}</Field>
        <Field label={t('quarantine.preview.verdict')}>
          <VerdictBadge verdict={m.verdict} />
        </Field>
        {m.reasons.length > 0 && (
          <Field label={t('quarantine.preview.reasons')}>{m.reasons.join(', ')}</Field>
        )}
        <Field label={t('quarantine.preview.state')}>{t(MESSAGE_STATE_LABEL[m.state])}</Field>
        {m.size !== undefined && (
          <Field label={t('quarantine.preview.size')}>{formatBytes(m.size, i18n.language)}</Field>
        )}
        {m.raw_sha256 !== undefined && (
          <Field label={t('quarantine.preview.sha256')}>
            <Code className="preview-hash">{m.raw_sha256}</Code>
          </Field>
        )}
      </dl>
      {extra}

      <section aria-labelledby={`body-${m.id}`}>
        <Title order={4} id={`body-${m.id}`} mb="xs">
          {t('quarantine.preview.body')}
        </Title>
        {m.body_text ? (
          <pre className="preview-body">{m.body_text}</pre>
        ) : (
          <Text c="dimmed">{t('quarantine.preview.noBody')}</Text>
        )}
      </section>

      {m.links.length > 0 && (
        <section aria-labelledby={`links-${m.id}`}>
          <Title order={4} id={`links-${m.id}`} mb="xs">
            {t('quarantine.preview.links', { count: m.links.length })}
          </Title>
          <Text size="sm" c="dimmed" mb="xs">
            {t('quarantine.preview.linksNote')}
          </Text>
          <List spacing="xs" size="sm" className="preview-links">
            {m.links.map((link, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: links may repeat; their order is fixed.
              <List.Item key={index}>
                {link.text && link.text !== link.href && <Text span>{link.text}: </Text>}
                <Code className="preview-hash">{link.href}</Code>
              </List.Item>
            ))}
          </List>
        </section>
      )}

      <section aria-labelledby={`attachments-${m.id}`}>
        <Title order={4} id={`attachments-${m.id}`} mb="xs">
          {t('quarantine.preview.attachments', { count: m.attachments.length })}
        </Title>
        {m.attachments.length === 0 ? (
          <Text c="dimmed">{t('quarantine.preview.noAttachments')}</Text>
        ) : (
          <FitTable
            caption={t('quarantine.preview.attachments', { count: m.attachments.length })}
            rows={m.attachments}
            rowKey={(attachment) => attachment.id}
            columns={[
              {
                key: 'name',
                label: t('quarantine.preview.attachmentName'),
                cell: (attachment) => <Breakable text={attachment.filename} />,
              },
              {
                key: 'type',
                label: t('quarantine.preview.attachmentType'),
                cell: (attachment) => <Breakable text={attachment.content_type} />,
              },
              {
                key: 'size',
                label: t('quarantine.preview.size'),
                width: '6rem',
                cell: (attachment) => formatBytes(attachment.size, i18n.language),
              },
              {
                key: 'sha256',
                label: t('quarantine.preview.sha256'),
                cell: (attachment) => <Code className="preview-hash">{attachment.sha256}</Code>,
              },
              {
                key: 'state',
                label: t('quarantine.preview.state'),
                cell: (attachment) => t(ATTACHMENT_STATE_LABEL[attachment.state]),
              },
            ]}
          />
        )}
      </section>

      <Accordion variant="contained">
        <Accordion.Item value="headers">
          <Accordion.Control>
            {t('quarantine.preview.headers', { count: m.headers.length })}
          </Accordion.Control>
          <Accordion.Panel>
            <dl className="preview-headers">
              {m.headers.map((header, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: headers repeat (Received); their order is fixed.
                <Group key={index} gap={4} wrap="nowrap" align="flex-start" className="preview-header">
                  <dt>{header.name}:</dt>
                  <dd>{header.value}</dd>
                </Group>
              ))}
            </dl>
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
    </Stack>
  );
}
