import { z } from 'zod/mini';

/**
 * Data loss prevention for outbound mail (issue 38): what must not leave the organisation, found
 * in the subject, the body and the attachments' text, and what Moat does when it finds it.
 * Security Settings → DLP Data Types sets each type's action; DLP exceptions (the `dlp` scope of
 * Security Settings → Exceptions) exempt senders, recipients and domains.
 */
export const DLP_API = {
  /** GET every data type with its action and threshold; PUT one type's settings. */
  dataTypes: '/api/v1/dlp/data-types',
  dataType: '/api/v1/dlp/data-types/:type',
  /** POST a custom rule (keywords or a regular expression); PUT/DELETE one. */
  customRules: '/api/v1/dlp/custom-rules',
  customRule: '/api/v1/dlp/custom-rules/:id',
  /** POST `{ text }`: what the tenant's rules find in it, masked (the console's "try it"). */
  test: '/api/v1/dlp/test',
} as const;

/** The built-in data types, in the order the console lists them. */
export const DLP_DATA_TYPES = [
  /** 13 to 19 digits of a known card range whose Luhn check digit is right. */
  'payment_card',
  /** An IBAN of a known country, its length right and its mod-97 check 1. */
  'iban',
  /** A US Social Security number in a valid area, group and serial. */
  'us_ssn',
  /** A UK National Insurance number with valid prefix letters and suffix. */
  'uk_nino',
  /** A Canadian Social Insurance Number (Luhn). */
  'ca_sin',
  /** A Spanish DNI or NIE with its check letter. */
  'es_dni',
  /** A French social security number (NIR) with its key. */
  'fr_nir',
  /** Cloud and service credentials: AWS, GitHub, GitLab, Slack, Stripe, Google, OpenAI tokens. */
  'api_key',
  /** A PEM, OpenSSH or PuTTY private key. */
  'private_key',
  /** Attachments of the file types listed in the type's settings (by name and by content). */
  'file_type',
  /** Password-protected archives (zip, 7z, rar) and encrypted PDF or Office files: nothing inside can be checked. */
  'encrypted_file',
] as const;
export type DlpDataType = (typeof DLP_DATA_TYPES)[number];

/**
 * What happens to a message with a hit: delivered (the event is kept), delivered with an alert to
 * the admins, held for an admin to release or decline (the sender told either way), or refused
 * at submission (the submitting server bounces it to its user).
 */
export const DLP_ACTIONS = ['deliver', 'notify', 'hold', 'refuse'] as const;
export type DlpAction = (typeof DLP_ACTIONS)[number];
/** When several types match, the strictest action wins. */
export const DLP_ACTION_ORDER: Record<DlpAction, number> = { deliver: 0, notify: 1, hold: 2, refuse: 3 };

/** A type counts as a hit from this many matches in one message (1 to this). */
export const DLP_THRESHOLD_MAX = 1_000;
/** Custom rules a tenant may have. */
export const DLP_CUSTOM_RULES_MAX = 50;
/** Keywords one custom rule may hold, and the longest keyword or expression. */
export const DLP_KEYWORDS_MAX = 200;
export const DLP_PATTERN_MAX = 500;
/** File types (extensions) the file-type rule may list. */
export const DLP_FILE_TYPES_MAX = 100;

const threshold = z.number().check(z.int(), z.gte(1), z.lte(DLP_THRESHOLD_MAX));

export const dlpDataTypeSettingSchema = z.object({
  type: z.enum(DLP_DATA_TYPES),
  enabled: z.boolean(),
  action: z.enum(DLP_ACTIONS),
  threshold,
  /** For `file_type`: the extensions (without the dot, lower-case). Empty for the others. */
  fileTypes: z.array(z.string()),
});
export type DlpDataTypeSetting = z.infer<typeof dlpDataTypeSettingSchema>;

export const dlpDataTypeUpdateSchema = z.object({
  enabled: z.optional(z.boolean()),
  action: z.optional(z.enum(DLP_ACTIONS)),
  threshold: z.optional(threshold),
  fileTypes: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(20))).check(z.maxLength(DLP_FILE_TYPES_MAX)),
  ),
});
export type DlpDataTypeUpdate = z.infer<typeof dlpDataTypeUpdateSchema>;

/** A custom rule matches either any of its keywords (whole words, any case) or one regular expression. */
export const DLP_CUSTOM_KINDS = ['keywords', 'regex'] as const;
export type DlpCustomKind = (typeof DLP_CUSTOM_KINDS)[number];

export const dlpCustomRuleInputSchema = z.object({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  kind: z.enum(DLP_CUSTOM_KINDS),
  /** Keywords (kind `keywords`), or one expression (kind `regex`, RE2 syntax: no look-around or back-references). */
  keywords: z
    .array(z.string().check(z.trim(), z.minLength(1), z.maxLength(DLP_PATTERN_MAX)))
    .check(z.maxLength(DLP_KEYWORDS_MAX)),
  pattern: z.string().check(z.maxLength(DLP_PATTERN_MAX)),
  enabled: z.boolean(),
  action: z.enum(DLP_ACTIONS),
  threshold,
});
export type DlpCustomRuleInput = z.infer<typeof dlpCustomRuleInputSchema>;

export const dlpCustomRuleSchema = z.extend(dlpCustomRuleInputSchema, {
  id: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type DlpCustomRule = z.infer<typeof dlpCustomRuleSchema>;

export const dlpSettingsSchema = z.object({
  dataTypes: z.array(dlpDataTypeSettingSchema),
  customRules: z.array(dlpCustomRuleSchema),
});
export type DlpSettings = z.infer<typeof dlpSettingsSchema>;

/** Where in the message a match was found. */
export const dlpHitSchema = z.object({
  /** A built-in type, or `custom` with the rule's name. */
  type: z.union([z.enum(DLP_DATA_TYPES), z.literal('custom')]),
  ruleId: z.nullable(z.string()),
  ruleName: z.string(),
  count: z.number(),
  /** Up to three matches, masked (`4111 **** **** 1111`, `GB** **** … 1234`, `AKIA…MPLE`). */
  samples: z.array(z.string()),
  /** `subject`, `body`, or an attachment's name (`report.pdf`, `docs.zip/payroll.xlsx`). */
  places: z.array(z.string()),
  action: z.enum(DLP_ACTIONS),
});
export type DlpHit = z.infer<typeof dlpHitSchema>;

export const dlpTestInputSchema = z.object({ text: z.string().check(z.maxLength(100_000)) });
export const dlpTestResultSchema = z.object({ hits: z.array(dlpHitSchema) });
