import type { PolicyAction } from '@moat/contracts/policy';
import type { Verdict } from '@moat/contracts/quarantine';
import {
  BANNER_VERDICTS,
  type BannerPreview,
  type BannerSamples,
  type BannerVerdict,
  type bannerPreviewInputSchema,
  bannerSettingsFrom,
  PREVIEW_SAMPLES_MAX,
  type SmartBanners,
  type StoredBannerSettings,
  type smartBannersInputSchema,
} from '@moat/contracts/smart-banners';
import type { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import { bannerCopy, bannerLookOf, defaultBannerLead } from '../../mail/gateway/banner.ts';
import { gatewayActionFrom } from '../../mail/gateway/policy.ts';
import { type ParsedMessage, parseMessage } from '../../mail/parse.ts';
import { previewDocument } from '../../mail/safe-preview.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { PolicyRepo } from '../policy/policy.repo.ts';
import type { SmartBannersRepo } from './smart-banners.repo.ts';

type Input = z.output<typeof smartBannersInputSchema>;
type PreviewInput = z.output<typeof bannerPreviewInputSchema>;

/** Known malware is never delivered: it has no banner. */
const isBannerVerdict = (v: string): v is BannerVerdict => (BANNER_VERDICTS as readonly string[]).includes(v);

/** What a delivered verdict's action becomes when its banner is switched on or off here. */
function actionWith(current: PolicyAction, bannerOnDelivery: boolean): PolicyAction {
  if (current !== 'deliver' && current !== 'deliver_banner') return current;
  return bannerOnDelivery ? 'deliver_banner' : 'deliver';
}

/** The stored form of what an admin saved. */
const storedOf = (input: Input): StoredBannerSettings => ({
  verdicts: {
    phishing: { ...input.verdicts.phishing },
    spam: { ...input.verdicts.spam },
    suspicious: { ...input.verdicts.suspicious },
  },
  senders: { ...input.senders },
});

/** The built-in message the preview shows when the tenant holds none of its own yet. */
function exampleMessage(): ParsedMessage {
  return {
    fromAddress: 'billing@example.net',
    fromName: 'Accounts Team',
    subject: 'Your invoice is ready',
    messageId: null,
    date: null,
    text: 'Hello,\n\nYour invoice for this month is ready. Sign in to your account to see it.\n\nAccounts Team',
    html: '<html><body style="font-family:Georgia,serif"><h2 style="color:#1d3557">Your invoice is ready</h2><p>Hello,</p><p>Your invoice for this month is ready. Sign in to your account to see it.</p><p style="color:#666">Accounts Team</p></body></html>',
    attachments: [],
  };
}

/**
 * Smart Banners (issue 33): each verdict's banner in the policy's own terms. Whether a delivered
 * verdict carries a banner is the policy's action (`deliver_banner` or `deliver`); its words,
 * colour and subject tag, and the senders spared, are the tenant's `banner_settings`. A save is
 * one transaction, audited with before and after; the gateway uses it for the next message.
 */
export function createSmartBannersService(deps: {
  repo: SmartBannersRepo;
  policy: Pick<PolicyRepo, 'setActions'>;
  audit: Pick<AuditRepo, 'record'>;
  /** Forget this node's cached tenants and actions (every node hears the database's notice too). */
  forget: () => void;
}) {
  const { repo } = deps;

  async function read(tenantId: string) {
    const stored = await repo.settingsOf(tenantId);
    if (stored === null) throw new AppError('forbidden', 'not authenticated');
    return { settings: bannerSettingsFrom(stored), actions: await repo.actionsOf(tenantId) };
  }

  function answer(settings: StoredBannerSettings, actions: Partial<Record<Verdict, string>>): SmartBanners {
    const verdicts = {} as SmartBanners['verdicts'];
    for (const verdict of BANNER_VERDICTS) {
      const action = gatewayActionFrom(actions, verdict);
      verdicts[verdict] = {
        ...settings.verdicts[verdict],
        banner_on_delivery: action !== 'deliver',
        action,
        default_text: defaultBannerLead(verdict),
      };
    }
    return { verdicts, senders: settings.senders };
  }

  return {
    async get(tenantId: string): Promise<SmartBanners> {
      const { settings, actions } = await read(tenantId);
      return answer(settings, actions);
    },

    async save(tenantId: string, input: Input, actor: Actor): Promise<SmartBanners> {
      const next = storedOf(input);
      const saved = await repo.transaction(async (tx) => {
        const before = await repo.settingsOf(tenantId, tx);
        if (before === null) throw new AppError('forbidden', 'not authenticated');
        const actions = await repo.actionsOf(tenantId, tx);
        const changed: Partial<Record<Verdict, string>> = {};
        for (const verdict of BANNER_VERDICTS) {
          const current = gatewayActionFrom(actions, verdict);
          const action = actionWith(current, input.verdicts[verdict].banner_on_delivery);
          if (action !== current) changed[verdict] = action;
        }
        await repo.saveSettings(tenantId, next as unknown as Record<string, unknown>, tx);
        if (Object.keys(changed).length > 0) await deps.policy.setActions(tenantId, changed, tx);
        await deps.audit.record(
          actor,
          {
            tenantId,
            action: 'smart_banners.update',
            targetType: 'tenant',
            targetId: tenantId,
            details: {
              before: bannerSettingsFrom(before),
              after: next,
              ...(Object.keys(changed).length > 0
                ? {
                    actions: Object.fromEntries(
                      Object.entries(changed).map(([verdict, to]) => [
                        verdict,
                        { from: gatewayActionFrom(actions, verdict as Verdict), to },
                      ]),
                    ),
                  }
                : {}),
            },
          },
          tx,
        );
        return answer(next, { ...actions, ...changed });
      });
      deps.forget();
      return saved;
    },

    async samples(tenantId: string): Promise<BannerSamples> {
      const rows = await repo.samples(tenantId, PREVIEW_SAMPLES_MAX);
      return {
        items: rows.map((r) => ({
          id: r.id,
          received_at: r.receivedAt.toISOString(),
          recipient: r.recipient,
          sender: r.sender,
          subject: r.subject,
          verdict: r.verdict as Verdict,
        })),
      };
    },

    /**
     * One message as its recipient would get it under the settings given (nothing saved): the
     * very copy the gateway would deliver (bannerCopy), read back and made inert to show.
     */
    async preview(tenantId: string, input: PreviewInput, viewer: string): Promise<BannerPreview> {
      const { actions } = await read(tenantId);
      let parsed: ParsedMessage;
      let recipient = viewer;
      let reasons: string[] = [];
      if (input.message_id === null) {
        parsed = exampleMessage();
      } else {
        const held = await repo.messageOf(tenantId, input.message_id);
        if (!held) throw new AppError('not_found', 'No such message');
        const read = await parseMessage(Buffer.from(held.raw)).catch(() => null);
        if (!read) throw new AppError('conflict', 'This message cannot be read: choose another one');
        parsed = read;
        recipient = held.recipient;
        // Its own reasons when it is previewed with its own verdict; none for another verdict.
        if (isBannerVerdict(held.verdict) && held.verdict === input.verdict) reasons = held.reasons;
      }
      const settings = storedOf(input.settings);
      const look = bannerLookOf(settings, input.verdict, reasons);
      const copy = await parseMessage(await bannerCopy(parsed, recipient, look.warning, '', look));
      const action = actionWith(
        gatewayActionFrom(actions, input.verdict),
        input.settings.verdicts[input.verdict].banner_on_delivery,
      );
      const bannered = action === 'deliver_banner' || (action === 'strip' && parsed.attachments.length === 0);
      return {
        subject: copy.subject,
        from: parsed.fromName ? `${parsed.fromName} <${parsed.fromAddress}>` : parsed.fromAddress,
        to: recipient,
        bannered,
        html: previewDocument({ html: copy.html, text: copy.text }),
      };
    },
  };
}
export type SmartBannersService = ReturnType<typeof createSmartBannersService>;
