import { z } from 'zod/mini';

/**
 * Outbound mail (issue 38): the tenant's server submits on SUBMISSION_PORT with SMTP AUTH, using
 * credentials an admin makes here (Settings → Mail flow) or with `tenant:smtp-credential`.
 */
export const OUTBOUND_API = {
  /** GET the tenant's submission credentials (never their passwords); POST a new one (its password shown once). */
  credentials: '/api/v1/outbound/credentials',
  /** DELETE: revoke a credential (a server using it is refused from then on). */
  credential: '/api/v1/outbound/credentials/:id',
} as const;

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
