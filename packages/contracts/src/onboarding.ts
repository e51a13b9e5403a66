import { z } from 'zod/mini';
import { emailSchema } from './validation.ts';

/**
 * Onboarding (SPEC §2.5, issue 12; admins): a new organisation's first admin adds its mail
 * domains, checks their MX, SPF and DMARC records, names the mail server Moat delivers to (the
 * next hop), sends a test message through it and finishes. Until then its admins are led here.
 */
export const ONBOARDING_API = {
  onboarding: '/api/v1/onboarding',
  domains: '/api/v1/onboarding/domains',
  verifyDomain: '/api/v1/onboarding/domains/verify',
  dnsCheck: '/api/v1/onboarding/dns_check',
  nextHop: '/api/v1/onboarding/next_hop',
  name: '/api/v1/onboarding/name',
  checklist: '/api/v1/onboarding/checklist',
  testMessage: '/api/v1/onboarding/test_message',
  complete: '/api/v1/onboarding/complete',
} as const;

export const onboardingStateSchema = z
  .object({
    /** The organisation finished onboarding (its admins are no longer led here). */
    onboarded: z.boolean(),
    /** The organisation's name (the first one is named after its admin's domain until renamed). */
    name: z.string(),
    domains: z.array(z.string()),
    /** The host name the domains' MX records should name: this gateway (SMTP_HOSTNAME). */
    mx_host: z.string(),
    /**
     * `mx_host` is a DNS name an MX record can name. False: a bare machine name (no dot) — the
     * operator must set SMTP_HOSTNAME to the gateway's public DNS name first.
     */
    mx_host_usable: z.boolean(),
    /** The organisation's own next hop, `host:port`; null: the deployment's relay. */
    next_hop: z.nullable(z.string()),
    /** The deployment has a relay (SMTP_RELAY_URL) that mail goes to without a next hop. */
    deployment_relay: z.boolean(),
    /** Domains added here that wait for their TXT record (`record`, to publish) to be verified. */
    pending_domains: z.array(z.object({ domain: z.string(), record: z.string() })),
  })
  .register(z.globalRegistry, { id: 'OnboardingState' });
export type OnboardingState = z.infer<typeof onboardingStateSchema>;

export const onboardingDomainSchema = z.object({ domain: z.string().check(z.maxLength(253)) });

/** The organisation's name, as its people and the audit log read it. */
export const ORGANISATION_NAME_MAX_LENGTH = 200;
export const organisationNameSchema = z
  .object({
    name: z.string().check(
      z.trim(),
      z.minLength(1, 'name_required'),
      z.maxLength(ORGANISATION_NAME_MAX_LENGTH, 'name_too_long'),
      z.refine(
        (v) => ![...v].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127),
        'no_control_characters',
      ),
    ),
  })
  .register(z.globalRegistry, { id: 'OrganisationName' });

export const DNS_CHECK_KINDS = ['mx', 'spf', 'dmarc'] as const;
/** `error`: the record could not be checked (the lookup timed out or failed, or nothing to compare with). */
export const DNS_CHECK_STATUSES = ['ok', 'warning', 'missing', 'error'] as const;
export type DnsCheckStatus = (typeof DNS_CHECK_STATUSES)[number];

export const dnsCheckSchema = z
  .object({
    domain: z.string(),
    checks: z.array(
      z.object({
        kind: z.enum(DNS_CHECK_KINDS),
        status: z.enum(DNS_CHECK_STATUSES),
        /** The records found, as published. */
        found: z.array(z.string()),
        /** What is right, or what to change, in plain words. */
        advice: z.string(),
        /** The record to publish, when one is missing or should change. */
        suggested: z.nullable(z.string()),
      }),
    ),
  })
  .register(z.globalRegistry, { id: 'DnsCheck' });
export type DnsCheck = z.infer<typeof dnsCheckSchema>;

/** `host` or `host:port` (port 25 when left out); null: the deployment's relay. */
export const nextHopUpdateSchema = z.object({
  next_hop: z.nullable(z.string().check(z.trim(), z.maxLength(300))),
});

export const testMessageRequestSchema = z.object({ to: emailSchema });
export const testMessageResultSchema = z
  .object({
    /** The mail server accepted it. */
    delivered: z.boolean(),
    /** Where it went: `host:port` of the next hop, or "the deployment's relay". */
    via: z.string(),
    /** The mail server's answer to the message, or why it could not be reached. */
    response: z.string(),
  })
  .register(z.globalRegistry, { id: 'TestMessageResult' });
export type TestMessageResult = z.infer<typeof testMessageResultSchema>;

/**
 * What still stands between the organisation and mail through Moat: no verified domain, a domain
 * waiting for its TXT record, a gateway without a public DNS name (SMTP_HOSTNAME), a DNS record
 * that is missing, should change or could not be checked, no mail server to deliver to.
 */
export const ONBOARDING_MISSING_KINDS = [
  'domain',
  'pending_domain',
  'gateway_name',
  'record',
  'mail_server',
] as const;

export const onboardingChecklistSchema = z
  .object({
    /** Each domain's records, looked up now. */
    checks: z.array(dnsCheckSchema),
    /** Everything not right yet; empty: nothing is missing. */
    missing: z.array(
      z.object({
        kind: z.enum(ONBOARDING_MISSING_KINDS),
        /** The domain it is about (`pending_domain`, `record`). */
        domain: z.nullable(z.string()),
        /** The record (`record`). */
        record: z.nullable(z.enum(DNS_CHECK_KINDS)),
        /** What is wrong with it (`record`): missing, to change (warning) or not checked (error). */
        status: z.nullable(z.enum(DNS_CHECK_STATUSES)),
      }),
    ),
  })
  .register(z.globalRegistry, { id: 'OnboardingChecklist' });
export type OnboardingChecklist = z.infer<typeof onboardingChecklistSchema>;
