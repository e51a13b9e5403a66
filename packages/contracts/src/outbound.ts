import { z } from 'zod/mini';
import { dlpHitSchema } from './dlp.ts';
import { ROUTES } from './routes.ts';

/**
 * Outbound mail (issue 38): the tenant's server submits on SUBMISSION_PORT with SMTP AUTH, using
 * credentials an admin makes here (Settings → Mail flow) or with `tenant:smtp-credential`.
 */
export const OUTBOUND_API = {
  /** GET the tenant's submission credentials (never their passwords); POST a new one (its password shown once). */
  credentials: '/api/v1/outbound/credentials',
  /** DELETE: revoke a credential (a server using it is refused from then on). */
  credential: '/api/v1/outbound/credentials/:id',
  /** GET outbound mail held for review (a DLP hold), newest first; `status` filters. */
  held: '/api/v1/outbound/held',
  /** POST: send it on (signed and queued now); or decline it (the sender is told it was not sent). */
  release: '/api/v1/outbound/held/:id/release',
  decline: '/api/v1/outbound/held/:id/decline',
} as const;

/** Where the console lists held outbound mail: a tab of Security Settings → DLP Data Types. */
export const OUTBOUND_HELD_ROUTE = `${ROUTES.configuration}/data-types/held`;

export const OUTBOUND_HELD_STATUSES = ['held', 'released', 'declined'] as const;
export type OutboundHeldStatus = (typeof OUTBOUND_HELD_STATUSES)[number];

export const outboundHeldSchema = z.object({
  id: z.string(),
  sender: z.string(),
  recipients: z.array(z.string()),
  subject: z.string(),
  /** Why it is held: `dlp`. */
  reason: z.string(),
  hits: z.array(dlpHitSchema),
  status: z.enum(OUTBOUND_HELD_STATUSES),
  createdAt: z.string(),
  decidedAt: z.nullable(z.string()),
  decidedBy: z.nullable(z.string()),
});
export type OutboundHeld = z.infer<typeof outboundHeldSchema>;

export const outboundHeldQuerySchema = z.object({
  status: z.optional(z.enum(OUTBOUND_HELD_STATUSES)),
  limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(200))),
  offset: z.optional(z.coerce.number().check(z.int(), z.gte(0), z.lte(1_000_000))),
});
export const outboundHeldListSchema = z.object({ total: z.number(), items: z.array(outboundHeldSchema) });
export const outboundHeldParamsSchema = z.object({ id: z.uuid() });

/** A label says which server or client uses the credential. */
export const SMTP_CREDENTIAL_LABEL_MAX = 100;

export const smtpCredentialSchema = z.object({
  id: z.string(),
  username: z.string(),
  label: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.nullable(z.string()),
  revokedAt: z.nullable(z.string()),
});
export type SmtpCredential = z.infer<typeof smtpCredentialSchema>;

/** Where and how to submit: what a mail server's smarthost setting needs. */
export const submissionEndpointSchema = z.object({
  /** SUBMISSION_PORT; null when submission is off on this deployment. */
  port: z.nullable(z.number()),
  /** The gateway's host name (SMTP_HOSTNAME), what the server connects to. */
  host: z.string(),
  /** STARTTLS is offered (a certificate is configured); without it AUTH is taken only from this host. */
  starttls: z.boolean(),
});

export const smtpCredentialListSchema = z.object({
  credentials: z.array(smtpCredentialSchema),
  endpoint: submissionEndpointSchema,
});
export type SmtpCredentialList = z.infer<typeof smtpCredentialListSchema>;

export const smtpCredentialBodySchema = z.object({
  label: z._default(z.string().check(z.trim(), z.maxLength(SMTP_CREDENTIAL_LABEL_MAX)), ''),
});
export type SmtpCredentialBody = z.input<typeof smtpCredentialBodySchema>;

/** A new credential with its password, which is shown this once and stored only as a hash. */
export const smtpCredentialCreatedSchema = z.object({
  credential: smtpCredentialSchema,
  password: z.string(),
});
export type SmtpCredentialCreated = z.infer<typeof smtpCredentialCreatedSchema>;

export const smtpCredentialParamsSchema = z.object({ id: z.uuid() });
