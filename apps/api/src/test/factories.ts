import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../db/client.ts';
import {
  mailLog,
  quarantineMessages,
  securityEvents,
  sessions,
  tenantDomains,
  tenants,
  users,
} from '../db/schema.ts';
import { hashToken, newToken } from '../lib/tokens.ts';

const unique = () => randomBytes(4).toString('hex');

export async function buildTenant(
  db: Db,
  overrides: Partial<typeof tenants.$inferInsert> & { domain?: string } = {},
) {
  const { domain = `t${unique()}.test`, ...values } = overrides;
  const [tenant] = await db
    .insert(tenants)
    // An organisation set up already, unless the test says otherwise (onboardedAt: null).
    .values({ name: `Tenant ${domain}`, onboardedAt: new Date(), ...values })
    .returning();
  await db.insert(tenantDomains).values({ tenantId: tenant!.id, domain });
  return { ...tenant!, domain };
}

export async function buildUser(
  db: Db,
  tenantId: string,
  overrides: Partial<typeof users.$inferInsert> = {},
) {
  const [user] = await db
    .insert(users)
    .values({ tenantId, email: `u${unique()}@example.test`, role: 'user', ...overrides })
    .returning();
  return user!;
}

/** A session row and the cookie token that opens it. */
export async function buildSession(
  db: Db,
  user: { id: string; tenantId: string },
  overrides: Partial<typeof sessions.$inferInsert> = {},
) {
  const token = newToken();
  const now = new Date();
  const [session] = await db
    .insert(sessions)
    .values({
      tokenHash: hashToken(token),
      userId: user.id,
      tenantId: user.tenantId,
      expiresAt: new Date(now.getTime() + 12 * 3600_000),
      ...overrides,
    })
    .returning();
  return { session: session!, token };
}

/** A held message (and, unless `event: false`, its security event) written straight to the tables. */
export async function buildQuarantinedMessage(
  db: Db,
  tenantId: string,
  overrides: Partial<typeof quarantineMessages.$inferInsert> & { event?: boolean } = {},
) {
  const { event = true, ...values } = overrides;
  const raw = Buffer.from(`Subject: ${values.subject ?? 'Hello'}\r\n\r\nBody\r\n`);
  const receivedAt = values.receivedAt ?? new Date();
  const [message] = await db
    .insert(quarantineMessages)
    .values({
      tenantId,
      publicId: randomBytes(24).toString('base64url'),
      saasType: 'office365_emails',
      recipient: `r${unique()}@example.test`,
      sender: 'sender@outside.test',
      subject: 'Hello',
      receivedAt,
      verdict: 'phishing',
      reasons: ['Lookalike sender domain'],
      state: 'quarantined',
      raw,
      rawSha256: createHash('sha256').update(raw).digest('hex'),
      size: raw.length,
      expiresAt: new Date(receivedAt.getTime() + 30 * 86_400_000),
      ...values,
    })
    .returning();
  if (event) {
    await db.insert(securityEvents).values({
      tenantId,
      messageId: message!.id,
      // As the intake writes it (migration 0015): what happened, and to whose mail.
      type: message!.state === 'attachments_removed' ? 'strip' : 'hold',
      recipient: message!.recipient,
      sender: message!.sender,
      subject: message!.subject,
      engine: 'anti_phishing',
      verdict: message!.verdict,
      description: message!.reasons.join('; '),
      severity: 'high',
      createdAt: receivedAt,
    });
  }
  return message!;
}

/** A Mail Explorer row (what the gateway did with one message for one recipient), written straight to the table. */
export async function buildMailLogEntry(
  db: Db,
  tenantId: string,
  overrides: Partial<typeof mailLog.$inferInsert> = {},
) {
  const [entry] = await db
    .insert(mailLog)
    .values({
      tenantId,
      inboundId: randomUUID(),
      recipient: `r${unique()}@example.test`,
      sender: 'sender@outside.test',
      subject: 'Hello',
      receivedAt: new Date(),
      verdict: 'clean',
      action: 'delivered',
      size: 1024,
      ...overrides,
    })
    .returning();
  return entry!;
}

/** A security event (the Events screen), written straight to the table; a hold of `messageId` by default. */
export async function buildSecurityEvent(
  db: Db,
  tenantId: string,
  overrides: Partial<typeof securityEvents.$inferInsert> = {},
) {
  const [event] = await db
    .insert(securityEvents)
    .values({
      tenantId,
      type: 'hold',
      engine: 'anti_phishing',
      verdict: 'phishing',
      severity: 'high',
      description: 'Lookalike sender domain',
      recipient: 'someone@example.test',
      sender: 'attacker@evil.example',
      subject: 'Hello',
      ...overrides,
    })
    .returning();
  return event!;
}
