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
  testMessage: '/api/v1/onboarding/test_message',
  complete: '/api/v1/onboarding/complete',
} as const;

export const onboardingStateSchema = z
  .object({
    /** The organisation finished onboarding (its admins are no longer led here). */
    onboarded: z.boolean(),
    domains: z.array(z.string()),
    /** The host name the domains' MX records should name: this gateway. */
    mx_host: z.string(),
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

export const DNS_CHECK_KINDS = ['mx', 'spf', 'dmarc'] as const;
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
