import { z } from 'zod/mini';
import { RESTORE_MODES, VERDICTS } from './quarantine.ts';

/** The Policy screen's calls (issue 11 "Policy"). */
export const POLICY_API = {
  policy: '/api/v1/policy',
  whatIf: '/api/v1/policy/what_if',
} as const;

/** What the gateway does with a message of a verdict (the `gateway_policies.action` values). */
export const POLICY_ACTIONS = [
  'deliver',
  'deliver_banner',
  'strip',
  'quarantine',
  'quarantine_silent',
] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

/** Who an override is for: one address, every address of a domain, or a named group of addresses. */
export const OVERRIDE_MATCHES = ['recipient', 'domain', 'group'] as const;
export type OverrideMatch = (typeof OVERRIDE_MATCHES)[number];

export const GROUP_MAX_ADDRESSES = 200;
export const OVERRIDES_MAX = 200;

const ADDRESS = /^[^\s@,<>"]+@[^\s@,<>"]+\.[^\s@,<>"]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * A verdict's policy as the Policy screen shows it: the gateway's action, and (set in Settings →
 * User Interaction → Quarantine, shown here) what its recipient may do with a held message.
 */
export const verdictPolicySchema = z.object({
  action: z.enum(POLICY_ACTIONS),
  restore_mode: z.enum(RESTORE_MODES),
  identification_required: z.boolean(),
});
export type VerdictPolicy = z.infer<typeof verdictPolicySchema>;

/** What the Policy screen saves of a verdict: its action (other fields sent are ignored). */
const verdictActionSchema = z.object({ action: z.enum(POLICY_ACTIONS) });

const overrideBase = z.object({
  match: z.enum(OVERRIDE_MATCHES),
  /** The address, the domain, or the group's addresses separated by commas (lower-cased). */
  value: z
    .string()
    .check(z.trim(), z.minLength(1, 'Give an address, a domain or a list of addresses'), z.maxLength(10_000)),
  /** The group's name (only for `group`). */
  name: z._default(z.string().check(z.trim(), z.maxLength(100)), ''),
  verdict: z.enum(VERDICTS),
  action: z.enum(POLICY_ACTIONS),
});

/** The addresses of a group's value: split at commas, blanks and semicolons, lower-cased. */
export function groupAddresses(value: string): string[] {
  return [
    ...new Set(
      value
        .split(/[\s,;]+/)
        .map((a) => a.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

/** The message that explains why an override's value is not valid, or null. */
export function overrideValueProblem(match: OverrideMatch, value: string): string | null {
  const v = value.trim().toLowerCase();
  if (match === 'recipient') return ADDRESS.test(v) ? null : `"${value}" is not an email address`;
  if (match === 'domain') return DOMAIN.test(v) ? null : `"${value}" is not a domain name`;
  const addresses = groupAddresses(value);
  if (addresses.length === 0) return 'A group needs at least one address';
  if (addresses.length > GROUP_MAX_ADDRESSES) return `A group holds at most ${GROUP_MAX_ADDRESSES} addresses`;
  const bad = addresses.find((a) => !ADDRESS.test(a));
  return bad ? `"${bad}" is not an email address` : null;
}

const maliciousDelivery = (verdict: string, action: string) =>
  verdict === 'malware' && (action === 'deliver' || action === 'deliver_banner');
const MALWARE_MESSAGE = 'Known malware is never delivered: choose strip or quarantine';

export const policyOverrideInputSchema = overrideBase.check(
  z.superRefine((o, ctx) => {
    const problem = overrideValueProblem(o.match, o.value);
    if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: problem });
    if (o.match === 'group' && o.name === '')
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'Name the group' });
    if (maliciousDelivery(o.verdict, o.action))
      ctx.addIssue({ code: 'custom', path: ['action'], message: MALWARE_MESSAGE });
  }),
);
export type PolicyOverrideInput = z.input<typeof policyOverrideInputSchema>;

export const policyOverrideSchema = z.extend(overrideBase, { id: z.string() });
export type PolicyOverride = z.infer<typeof policyOverrideSchema>;

/** The spam score thresholds' defaults and bounds (issue 13): rspamd's greylist and add-header bands. */
export const DEFAULT_SPAM_THRESHOLDS = { suspicious: 4, spam: 6 } as const;
const SCORE = z.number({ error: 'Give a number' }).check(
  z.gte(-20, 'At least -20'),
  z.lte(100, 'At most 100'),
  z.refine((n) => Number.isInteger(n * 10), 'At most one decimal'),
);

/** A score at or above `spam` is spam; at or above `suspicious`, suspicious. */
export const spamThresholdsSchema = z.object({ suspicious: SCORE, spam: SCORE }).check(
  z.refine((t) => t.suspicious <= t.spam, {
    path: ['spam'],
    message: 'The spam threshold is at least the suspicious one',
  }),
);
export type SpamThresholdsInput = z.infer<typeof spamThresholdsSchema>;

const verdictsSchema = z.object({
  phishing: verdictPolicySchema,
  malware: verdictPolicySchema,
  spam: verdictPolicySchema,
  suspicious: verdictPolicySchema,
});

/**
 * What an admin saves: the gateway's action per verdict, the overrides and the spam thresholds.
 * The banners' words (User Interaction → Smart Banners), the restore modes and the digest
 * (Settings → User Interaction → Quarantine) are each saved on their own screen.
 */
export const policyInputSchema = z
  .object({
    verdicts: z.object({
      phishing: verdictActionSchema,
      malware: verdictActionSchema,
      spam: verdictActionSchema,
      suspicious: verdictActionSchema,
    }),
    overrides: z.array(policyOverrideInputSchema).check(z.maxLength(OVERRIDES_MAX)),
    /** Absent: unchanged. */
    spam_thresholds: z.optional(spamThresholdsSchema),
  })
  .check(
    z.superRefine((p, ctx) => {
      if (maliciousDelivery('malware', p.verdicts.malware.action)) {
        ctx.addIssue({ code: 'custom', path: ['verdicts', 'malware', 'action'], message: MALWARE_MESSAGE });
      }
    }),
  );
export type PolicyInput = z.input<typeof policyInputSchema>;

export const policySchema = z.object({
  verdicts: verdictsSchema,
  overrides: z.array(policyOverrideSchema),
  spam_thresholds: z.object({ suspicious: z.number(), spam: z.number() }),
  /** Whether the signed-in user may change the policy (role admin or view_edit_policy). */
  editable: z.boolean(),
});
export type Policy = z.infer<typeof policySchema>;

export const WHAT_IF_DAYS = 7;
export const WHAT_IF_SAMPLE = 20;

export const whatIfSchema = z.object({
  days: z.int(),
  /** Messages (one per recipient) of the period the gateway judged not clean. */
  considered: z.int(),
  /** Of those, how many the proposed policy would have handled differently. */
  changed: z.int(),
  /** Per verdict and action pair: how many would have moved. */
  changes: z.array(
    z.object({
      verdict: z.enum(VERDICTS),
      from: z.enum(POLICY_ACTIONS),
      to: z.enum(POLICY_ACTIONS),
      count: z.int(),
    }),
  ),
  sample: z.array(
    z.object({
      id: z.string(),
      received_at: z.string(),
      recipient: z.string(),
      sender: z.string(),
      subject: z.string(),
      verdict: z.enum(VERDICTS),
      from: z.enum(POLICY_ACTIONS),
      to: z.enum(POLICY_ACTIONS),
    }),
  ),
});
export type WhatIf = z.infer<typeof whatIfSchema>;
