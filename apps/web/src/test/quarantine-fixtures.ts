import type { MessageSummary, RestoreRequestItem } from '@moat/contracts/quarantine-admin';

let n = 0;
const uuid = () => {
  n += 1;
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
};

/** A held message as the admin lists answer it. */
export function buildMessage(overrides: Partial<MessageSummary> = {}): MessageSummary {
  return {
    id: uuid(),
    saas_type: 'office365_emails',
    recipient: 'ana@acme.test',
    sender: 'billing@supplier.example',
    sender_name: 'Billing',
    subject: 'Invoice 4711',
    received_at: '2025-03-01T10:00:00.000Z',
    verdict: 'suspicious',
    reasons: ['Lookalike domain'],
    state: 'quarantined',
    processing_failed: false,
    size: 2048,
    attachments: [],
    feedback: null,
    feedback_by: null,
    feedback_at: null,
    ...overrides,
  };
}

/** A restore request as GET /api/v1/restore_requests answers it. */
export function buildRestoreRequest(overrides: Partial<RestoreRequestItem> = {}): RestoreRequestItem {
  const message = overrides.message ?? buildMessage();
  return {
    id: uuid(),
    kind: 'email',
    requested_by: message.recipient,
    commentary: 'It is the invoice from our supplier',
    mode: 'request',
    status: 'requested',
    created_at: '2025-03-01T11:00:00.000Z',
    decided_at: null,
    decline_reason: null,
    ...overrides,
    message,
  };
}

/** GET /api/v1/quarantine/messages/{id} for a message. */
export function buildMessageDetail(message: MessageSummary, body: Partial<Record<string, unknown>> = {}) {
  return {
    ...message,
    headers: [
      { name: 'From', value: `"${message.sender_name}" <${message.sender}>` },
      { name: 'Subject', value: message.subject },
    ],
    body_text: 'Hello,\nplease find the invoice attached.',
    links: [],
    raw_sha256: 'a'.repeat(64),
    ...body,
  };
}
