import { z } from 'zod/mini';
import { POLICY_ACTIONS } from './policy.ts';
import { VERDICTS } from './quarantine.ts';
import { wordingSchema } from './wording.ts';

/**
 * User Interaction → Smart Banners: the warning the gateway puts into a message it delivers with
 * a verdict (the policy's action `deliver_banner`, and `strip` when there is nothing to strip):
 * its words, colour and subject tag per verdict, which senders get none, and a preview on one of
 * the tenant's own messages. Admins only: the preview shows other people's mail.
 */
export const SMART_BANNERS_API = {
  settings: '/api/v1/smart_banners',
  samples: '/api/v1/smart_banners/samples',
  preview: '/api/v1/smart_banners/preview',
} as const;

/** The verdicts a delivered message can have: known malware is never delivered, so never bannered. */
export const BANNER_VERDICTS = [
  'phishing',
  'spam',
  'suspicious',
] as const satisfies readonly (typeof VERDICTS)[number][];
export type BannerVerdict = (typeof BANNER_VERDICTS)[number];

/** The banner's colours: a border and a light background, the text always dark on it. */
export const BANNER_COLOURS = ['red', 'orange', 'yellow', 'blue', 'grey'] as const;
export type BannerColour = (typeof BANNER_COLOURS)[number];
export const BANNER_PALETTE: Record<BannerColour, { border: string; background: string }> = {
  red: { border: '#c92a2a', background: '#fff5f5' },
  orange: { border: '#d9480f', background: '#fff4e6' },
  yellow: { border: '#e67700', background: '#fff9db' },
  blue: { border: '#1864ab', background: '#e7f5ff' },
  grey: { border: '#495057', background: '#f1f3f5' },
};

/** The longest banner text and subject tag an organisation may set. */
export const BANNER_TEXT_MAX = 500;
export const SUBJECT_TAG_MAX = 24;

export interface BannerStyle {
  /** '' : the default words for the verdict. */
  text: string;
  colour: BannerColour;
  /** Put before the subject ("[Suspicious] Your parcel"); '' : the subject is left as it is. */
  subject_tag: string;
}

/** What a tenant that set nothing gets: the default words, a colour per verdict, no subject tag. */
export const DEFAULT_BANNER_STYLES: Record<BannerVerdict, BannerStyle> = {
  phishing: { text: '', colour: 'red', subject_tag: '' },
  spam: { text: '', colour: 'yellow', subject_tag: '' },
  suspicious: { text: '', colour: 'orange', subject_tag: '' },
};

/** The sender conditions: which senders' messages are delivered without a banner. */
export interface BannerSenders {
  /** A sender on an allow list (the organisation's or the recipient's own) that proved its domain. */
  skip_allow_listed: boolean;
  /** A sender of one of the organisation's own domains that passed DMARC. */
  skip_internal: boolean;
}
export const DEFAULT_BANNER_SENDERS: BannerSenders = { skip_allow_listed: false, skip_internal: false };

/** The banner settings as the tenant stores them (`tenants.banner_settings`). */
export interface StoredBannerSettings {
  verdicts: Record<BannerVerdict, BannerStyle>;
  senders: BannerSenders;
}

/** Stored settings read defensively: anything missing or not understood is its default. */
export function bannerSettingsFrom(stored: unknown): StoredBannerSettings {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Partial<{
    verdicts: Partial<Record<string, Partial<BannerStyle>>>;
    senders: Partial<BannerSenders>;
  }>;
  const verdicts = {} as Record<BannerVerdict, BannerStyle>;
  for (const verdict of BANNER_VERDICTS) {
    const own = s.verdicts?.[verdict] ?? {};
    const fallback = DEFAULT_BANNER_STYLES[verdict];
    verdicts[verdict] = {
      text: typeof own.text === 'string' ? own.text : fallback.text,
      colour: (BANNER_COLOURS as readonly string[]).includes(own.colour ?? '')
        ? (own.colour as BannerColour)
        : fallback.colour,
      subject_tag: typeof own.subject_tag === 'string' ? own.subject_tag : fallback.subject_tag,
    };
  }
  const senders: BannerSenders = {
    skip_allow_listed: s.senders?.skip_allow_listed === true,
    skip_internal: s.senders?.skip_internal === true,
  };
  return { verdicts, senders };
}

const styleInputSchema = z.strictObject({
  text: wordingSchema(BANNER_TEXT_MAX),
  colour: z.enum(BANNER_COLOURS),
  subject_tag: wordingSchema(SUBJECT_TAG_MAX),
  /**
   * Whether a message of this verdict that the policy delivers gets the banner: the policy's
   * action becomes `deliver_banner` (true) or `deliver` (false). For a verdict the policy holds
   * or strips, it changes nothing.
   */
  banner_on_delivery: z.boolean(),
});

/** PUT /api/v1/smart_banners: every verdict's banner and the sender conditions at once. */
export const smartBannersInputSchema = z.strictObject({
  verdicts: z.strictObject({
    phishing: styleInputSchema,
    spam: styleInputSchema,
    suspicious: styleInputSchema,
  }),
  senders: z.strictObject({ skip_allow_listed: z.boolean(), skip_internal: z.boolean() }),
});
export type SmartBannersInput = z.input<typeof smartBannersInputSchema>;

const styleSchema = z.object({
  text: z.string(),
  colour: z.enum(BANNER_COLOURS),
  subject_tag: z.string(),
  banner_on_delivery: z.boolean(),
  /** The policy's action for the verdict (Policy screen). */
  action: z.enum(POLICY_ACTIONS),
  /** What the banner says when `text` is empty. */
  default_text: z.string(),
});

export const smartBannersSchema = z
  .object({
    verdicts: z.object({ phishing: styleSchema, spam: styleSchema, suspicious: styleSchema }),
    senders: z.object({ skip_allow_listed: z.boolean(), skip_internal: z.boolean() }),
  })
  .register(z.globalRegistry, { id: 'SmartBanners' });
export type SmartBanners = z.infer<typeof smartBannersSchema>;

/** How many of the tenant's recent messages the preview offers. */
export const PREVIEW_SAMPLES_MAX = 20;

/** A message the preview can show: one Moat still holds a copy of (delivered mail is not kept). */
export const bannerSampleSchema = z.object({
  id: z.string(),
  received_at: z.string(),
  recipient: z.string(),
  sender: z.string(),
  subject: z.string(),
  verdict: z.enum(VERDICTS),
});
export const bannerSamplesSchema = z
  .object({ items: z.array(bannerSampleSchema) })
  .register(z.globalRegistry, { id: 'BannerSamples' });
export type BannerSample = z.infer<typeof bannerSampleSchema>;
export type BannerSamples = z.infer<typeof bannerSamplesSchema>;

/**
 * POST /api/v1/smart_banners/preview: the message as its recipient would get it under the
 * settings given (not saved), for one verdict. `message_id` null: a built-in example message.
 */
export const bannerPreviewInputSchema = z.strictObject({
  message_id: z.nullable(z.uuid()),
  verdict: z.enum(BANNER_VERDICTS),
  settings: smartBannersInputSchema,
});
export type BannerPreviewInput = z.input<typeof bannerPreviewInputSchema>;

export const bannerPreviewSchema = z
  .object({
    /** The subject as delivered (with the subject tag). */
    subject: z.string(),
    from: z.string(),
    to: z.string(),
    /** Whether this verdict's message would get the banner at all (the policy's action). */
    bannered: z.boolean(),
    /**
     * A whole HTML document of the delivered body, made safe to show: no scripts, no remote
     * content, no links, a policy that forbids loading anything. Shown in a sandboxed frame.
     */
    html: z.string(),
  })
  .register(z.globalRegistry, { id: 'BannerPreview' });
export type BannerPreview = z.infer<typeof bannerPreviewSchema>;
