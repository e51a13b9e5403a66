import { type RestoreStatus, sanitiseCommentary, type Verdict } from '@moat/contracts/quarantine';
import { bannerSettingsFrom } from '@moat/contracts/smart-banners';
import { reportSettingsFrom } from '@moat/contracts/user-interaction-settings';
import { PUBLIC_EMAIL_PATTERN } from '@moat/contracts/validation';
import type { DbOrTx } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Cache } from '../../lib/cache.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Counters } from '../../lib/counters.ts';
import { bannerCopy, bannerLookOf } from '../../mail/gateway/banner.ts';
import { recipientVerificationCodeEmail, reportReceiptEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { parseMessage } from '../../mail/parse.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { Alerts } from '../alerts/alerts.service.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { Throttle } from '../auth/throttle.ts';
import { type EmailCodes, RESEND_WAIT_S } from '../email-codes/email-codes.service.ts';
import type { PhishingReportsRepo } from '../phishing-reports/phishing-reports.repo.ts';
import type { TenantSettings } from '../tenants/tenant-settings.ts';
import type { PublicActionsRepo, PublicMessage } from './public-actions.repo.ts';
import { newClientId, type RecipientTrust } from './recipient-trust.ts';

export type { PublicMessage } from './public-actions.repo.ts';

type Kind = 'email' | 'original';
const CODE_PURPOSE = 'recipient';
/**
 * Wrong recipient codes per link and browser before each further one doubles a wait. Counted per
 * browser, so a stranger's guesses never make the recipient wait; a browser has only the codes it
 * asked for (3 attempts each), and codes are mailed only within `CODE_MAILS`.
 */
const CLIENT_CODE_FAILURES_FREE = 10;
/**
 * How often anyone can make Moat mail a code to one address (any address alike, so the limit says
 * nothing about which one is the recipient's): per link, and over all the tenant's links.
 */
export const CODE_MAILS = {
  windowMs: 3_600_000,
  perLink: 5,
  perAddress: 10,
} as const;

/** A code is kept per link and per browser that asked for it. */
const codeSubject = (messageId: string, clientId: string) => `${messageId}:${clientId}`;

/** 429: no more codes mailed to this address for now; `retryAfterS` until one may be asked for. */
export class CodeMailsLimited extends AppError {
  constructor(readonly retryAfterS: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterS / 60));
    super(
      'rate_limited',
      `Too many codes were asked for this address. You can ask for a new code in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
    );
  }
}

/** What a public call needs from the request: the page query and the trust and browser cookies. */
export interface PublicCall {
  type: string;
  /** msg: a message's opaque id; id: an action's opaque id (the action page). */
  query: { msg?: string; id?: string; email?: string; code?: string };
  trustCookie: string | undefined;
  /** The browser's id (its HttpOnly cookie), once it asked for a code. */
  clientId: string | undefined;
  ip: string | null;
}

export interface RestoreBody {
  status: RestoreStatus;
  message: string;
  attempts_left?: number;
}

export interface PublicAnswer<T> {
  body: T;
  /** A new value for the trust cookie, after a successful code check. */
  trustCookie?: string;
  /** The browser's new id, set with its first code request. */
  clientId?: string;
}

const RESTORED_TEXT: Record<Kind, string> = {
  email: 'The email was restored to your mailbox.',
  original: 'Attachment restored successfully!',
};
const REQUESTED_TEXT: Record<Kind, string> = {
  email: 'The admin has received your request, your email will return once approved.',
  original: 'The admin has received your request, your attachment will return once approved.',
};

/**
 * The recipient's side of a held message (SPEC §4 "Restore flow", "Public pages"). A page load
 * never changes anything: a restore needs the emailed code (or a browser that proved the
 * recipient with one before), and it happens once however often it is asked for.
 */
/** The verdicts whose released copy carries the warning banner. */
const WARNED_ON_RELEASE: ReadonlySet<string> = new Set<Verdict>(['spam', 'suspicious']);

export function createPublicActionsService(deps: {
  repo: Pick<
    PublicActionsRepo,
    | 'transaction'
    | 'messageByLink'
    | 'liveAction'
    | 'restoreStateOf'
    | 'claimRelease'
    | 'rawOf'
    | 'verdictOf'
    | 'markReleased'
    | 'lockState'
    | 'performAction'
    | 'insertSecurityEvent'
    | 'insertRestoreRequest'
  >;
  /**
   * Messages by their link's public id, read on every public call: forgotten on every node when
   * what is read of one changes (migration 0013's notices).
   */
  messages: Cache<PublicMessage | null>;
  /** The tenant (its brand) and its restore policies, cached. */
  settings: Pick<TenantSettings, 'tenantById' | 'restorePolicy'>;
  codes: Pick<EmailCodes, 'waitTime' | 'issue' | 'check'>;
  throttle: Pick<Throttle, 'isBlocked' | 'recordFailure'>;
  /** The shared counts of codes mailed (`CODE_MAILS`). */
  counters: Pick<Counters, 'hit'>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  trust: RecipientTrust;
  /** Where a recipient's report goes (Phishing Reports, issue 11). */
  reports: Pick<PhishingReportsRepo, 'insertReport' | 'openPhishingReport'>;
  /** The admins' alerts of new reports and restore requests. */
  alerts: Pick<Alerts, 'raise' | 'deliver'>;
  /** A recipient's own release of held spam teaches the anti-spam engine it is wanted (issue 35). */
  learnReleased?: (m: PublicMessage, actor: Actor) => Promise<void>;
}) {
  const { repo, clock, codes, throttle, audit } = deps;

  /** A message that can still be acted on: known id, right type, not expired or deleted. */
  async function live(type: string, publicId: string | undefined): Promise<PublicMessage | null> {
    if (!publicId || publicId.length > 200) return null;
    const m = await deps.messages.get(publicId, () => repo.messageByLink(publicId));
    // Checked on every call, cached or not: the time moves on without any write.
    return m && m.saasType === type && m.state !== 'deleted' && m.expiresAt > clock.now() ? m : null;
  }

  /** The action behind an action page's `id`, with its message if that can still be acted on. */
  async function liveAction(type: string, publicId: string | undefined) {
    if (!publicId || publicId.length > 200) return null;
    return repo.liveAction(type, publicId, clock.now());
  }

  /** The message of a page: by `msg`, or through the action of `id`. */
  async function mustFind(call: PublicCall): Promise<PublicMessage> {
    const message =
      call.query.msg !== undefined
        ? await live(call.type, call.query.msg)
        : (await liveAction(call.type, call.query.id))?.message;
    if (!message) throw new AppError('not_found', "Can't find message");
    return message;
  }

  const policyOf = (m: PublicMessage) => deps.settings.restorePolicy(m.tenantId, m.verdict as Verdict);

  /** The tenant's Phishing Reports settings (Settings → User Interaction), from its cached row. */
  const reportSettingsOf = async (tenantId: string) =>
    reportSettingsFrom((await deps.settings.tenantById(tenantId))?.reportSettings);

  /**
   * A message reported as phishing stays held until an admin decides, when the organisation says
   * so (Phishing Reports: "hold it for review"): its recipient cannot restore it meanwhile.
   */
  async function refuseWhileReported(m: PublicMessage): Promise<void> {
    if ((await reportSettingsOf(m.tenantId)).on_report !== 'hold') return;
    if (await deps.reports.openPhishingReport(m.id)) {
      throw new AppError(
        'method_not_allowed',
        'This message was reported as phishing: it stays held until an administrator reviews it.',
      );
    }
  }

  /**
   * Whether the caller proved to be the recipient: the trust cookie, or a right code in this call
   * (which also renews the cookie). A wrong code answers the attempts left.
   */
  async function prove(
    call: PublicCall,
    m: PublicMessage,
  ): Promise<{ proven: boolean; attemptsLeft?: number; trustCookie?: string }> {
    if (deps.trust.trusts(call.trustCookie, m.recipient, m.tenantId, clock.now())) return { proven: true };
    const { code } = call.query;
    const { clientId } = call;
    const email = call.query.email?.trim().toLowerCase();
    if (!code || !email || !/^\d{6}$/.test(code)) return { proven: false };
    // Wrong codes are also counted per link and browser (by address without a browser id),
    // whatever address they came with: never per link alone, which a stranger could use up.
    const failuresKey = `recipient-code:${m.id}:${clientId ?? `ip:${call.ip}`}`;
    if (await throttle.isBlocked([failuresKey])) return { proven: false, attemptsLeft: 0 };
    // Only a code this browser asked for: no other browser's guess touches it.
    const check = clientId
      ? await codes.check(CODE_PURPOSE, codeSubject(m.id, clientId), email, code)
      : { result: 'none' as const, attemptsLeft: 0 };
    // Only the recipient's own code proves anything: other addresses never receive theirs.
    if (check.result !== 'ok' || email !== m.recipient) {
      await throttle.recordFailure([{ key: failuresKey, free: CLIENT_CODE_FAILURES_FREE }]);
      return { proven: false, attemptsLeft: check.result === 'ok' ? 0 : check.attemptsLeft };
    }
    return {
      proven: true,
      trustCookie: deps.trust.add(call.trustCookie, m.recipient, m.tenantId, clock.now()),
    };
  }

  async function statusOf(m: Pick<PublicMessage, 'id'>, kind: Kind): Promise<RestoreStatus> {
    const { released, requestStatus } = await repo.restoreStateOf(m.id, kind);
    if (released) return 'restored';
    return (requestStatus as RestoreStatus | null) ?? 'quarantined';
  }

  /**
   * Send the original message to its recipient, once: the releases row is the idempotency key.
   * Its raw bytes are read only here, once the release is claimed.
   */
  /**
   * Released spam (or a suspicious message) reaches its recipient with the warning its verdict
   * carries, as the gateway delivers a message whose policy is `deliver_banner`: restoring spam
   * does not make it less likely to be spam. The banner names no link, host or address from the
   * message. Phishing and malware go out as they were held: releasing them is an administrator's
   * decision after review, and the recipient's copy stays byte for byte the original.
   */
  async function withWarning(
    m: Pick<PublicMessage, 'id'>,
    recipient: string,
    raw: Uint8Array,
    bannerSettings: unknown,
    tx: DbOrTx,
  ): Promise<Buffer> {
    const bytes = Buffer.from(raw);
    const judged = await repo.verdictOf(m.id, tx);
    if (!judged || !WARNED_ON_RELEASE.has(judged.verdict)) return bytes;
    const parsed = await parseMessage(bytes);
    // The verdict's Smart Banner: its words, colour and subject tag, as the gateway gives them.
    const look = bannerLookOf(bannerSettingsFrom(bannerSettings), judged.verdict as Verdict, judged.reasons);
    return bannerCopy(parsed, recipient, look.warning, '', look);
  }

  async function releaseOnce(
    m: Pick<PublicMessage, 'id' | 'publicId' | 'tenantId' | 'recipient' | 'subject'>,
    kind: Kind,
    by: string,
    requestId?: string,
    /** An admin's release to another address of the tenant (issue 11); else the recipient. */
    to?: string,
  ): Promise<void> {
    const recipient = to ?? m.recipient;
    const tenant = await deps.settings.tenantById(m.tenantId);
    const brand = mailBrand(tenant);
    let outboxId: string | null = null;
    await repo.transaction(async (tx) => {
      const state = await repo.lockState(m.id, tx);
      if (state === null || state === 'deleted') {
        throw new AppError('conflict', 'This message was deleted, so it can no longer be released.');
      }
      const releaseId = await repo.claimRelease(m.id, kind, by, tx);
      if (!releaseId) return;
      const raw = await repo.rawOf(m.id, tx);
      const sent = await deps.mailer.send(
        {
          tenantId: m.tenantId,
          kind: kind === 'email' ? 'release' : 'release_original',
          to: recipient,
          fromName: brand.name,
          subject: m.subject,
          text: `Released ${kind === 'email' ? 'message' : 'original attachments'}: ${m.subject}`,
          html: '',
          raw: kind === 'email' ? await withWarning(m, recipient, raw, tenant?.bannerSettings, tx) : raw,
        },
        tx,
      );
      outboxId = sent;
      await repo.markReleased(
        { id: releaseId, outboxId: sent, messageId: m.id, kind, requestId, at: clock.now() },
        tx,
      );
      await audit.record(
        {
          type: by.includes('@') ? 'anonymous' : 'user',
          email: by.includes('@') ? by : null,
          userId: by.includes('@') ? null : by,
        },
        {
          tenantId: m.tenantId,
          action: kind === 'email' ? 'quarantine.release' : 'quarantine.release_original',
          targetType: 'quarantine_message',
          targetId: m.id,
          details: { recipient },
        },
        tx,
      );
    });
    // The notice of the message's new state comes after the commit: this node knows it now.
    deps.messages.forget(m.publicId);
    if (outboxId) deps.mailer.deliverStored(outboxId);
  }

  /** The message of a restore call with its policy: 404 when there is nothing to restore, 405 when it may not be. */
  async function restorable(call: PublicCall, kind: Kind) {
    const m = await mustFind(call);
    if (kind === 'original' && m.state !== 'attachments_removed' && m.state !== 'restored') {
      throw new AppError('not_found', "Can't find attachment to restore");
    }
    const policy = await policyOf(m);
    if (policy.mode === 'none') {
      throw new AppError('method_not_allowed', 'This message can not be restored. Please contact support');
    }
    await refuseWhileReported(m);
    return { m, policy };
  }

  /**
   * The recipient released it themselves: their "not spam". Only spam judgements are taught
   * (phishing and malware stay what they are), and a failure to learn does not undo the release.
   */
  async function learnRecipientRelease(m: PublicMessage, actor: Actor): Promise<void> {
    if (m.verdict === 'spam' || m.verdict === 'suspicious') await deps.learnReleased?.(m, actor);
  }

  /**
   * What the policy lets the recipient do once they are known (by a code, or signed in): release
   * at once, or file a request with their words (once; a request open says so).
   */
  async function restoreFor(
    m: PublicMessage,
    policy: Awaited<ReturnType<typeof policyOf>>,
    kind: Kind,
    commentary: string,
    requester: { by: string; actor: Actor },
  ): Promise<RestoreBody> {
    const current = await statusOf(m, kind);
    if (current === 'restored') return { status: current, message: RESTORED_TEXT[kind] };
    await refuseWhileReported(m);
    if (policy.mode === 'automatic') {
      await releaseOnce(m, kind, requester.by);
      await learnRecipientRelease(m, requester.actor);
      return { status: 'restored' as const, message: RESTORED_TEXT[kind] };
    }
    if (current === 'requested' || current === 'approved') {
      return { status: current, message: REQUESTED_TEXT[kind] };
    }
    const text = sanitiseCommentary(commentary);
    if (!text)
      throw new AppError('validation_error', 'Please enter a message', [
        { field: 'body.commentary', message: 'enter_a_message' },
      ]);
    const outbox = await repo.transaction(async (tx) => {
      const requestId = await repo.insertRestoreRequest(
        {
          tenantId: m.tenantId,
          messageId: m.id,
          kind,
          requestedBy: m.recipient,
          commentary: text,
          mode: policy.mode,
          status: 'requested',
        },
        tx,
      );
      await audit.record(
        requester.actor,
        {
          tenantId: m.tenantId,
          action: 'quarantine.restore_requested',
          targetType: 'restore_request',
          targetId: requestId,
          details: { kind, mode: policy.mode },
        },
        tx,
      );
      return deps.alerts.raise(m.tenantId, 'restore_request', tx);
    });
    deps.alerts.deliver(outbox);
    return { status: 'requested' as const, message: REQUESTED_TEXT[kind] };
  }

  return {
    live,
    releaseOnce,
    statusOf,
    policyOf,
    restoreFor,

    async entityExists(type: string, publicId: string): Promise<boolean> {
      return (await live(type, publicId)) !== null;
    },

    /** status true: the recipient must prove their address before acting. */
    /** status true: the recipient must prove their address before acting (always, for an action). */
    async identificationNeeded(call: PublicCall): Promise<boolean> {
      const m = await mustFind(call);
      const required = call.query.msg === undefined || (await policyOf(m)).identificationRequired;
      return required && !deps.trust.trusts(call.trustCookie, m.recipient, m.tenantId, clock.now());
    },

    /**
     * GET user_response (the action page): a proven recipient performs the action, once; a wrong
     * code answers the attempts left; without any proof nothing happens (403).
     */
    async userResponse(
      call: PublicCall,
    ): Promise<
      PublicAnswer<{ success: boolean; primary_text: string; secondary_text: string; attempts_left?: number }>
    > {
      const found = await liveAction(call.type, call.query.id);
      if (!found) throw new AppError('not_found', "Can't find message to process");
      const { actionId, message: m } = found;
      // A report button the organisation has since turned off takes no more reports.
      const settings = await reportSettingsOf(m.tenantId);
      if (!(found.action === 'report_phishing' ? settings.button_phishing : settings.button_safe)) {
        throw new AppError('not_found', "Can't find message to process");
      }
      const proof = await prove(call, m);
      if (proof.attemptsLeft !== undefined) {
        return {
          body: {
            success: false,
            primary_text:
              proof.attemptsLeft > 0
                ? 'The code is not valid.'
                : 'You have reached the maximum number of attempts.',
            secondary_text: '',
            attempts_left: proof.attemptsLeft,
          },
        };
      }
      if (!proof.proven) throw new AppError('forbidden', 'Confirm your email address first');
      const kind = found.action === 'report_phishing' ? 'reported_phishing' : 'reported_safe';
      const words = kind === 'reported_phishing' ? 'phishing' : 'safe';
      const receipt: string[] = [];
      const outbox = await repo.transaction(async (tx) => {
        if (!(await repo.performAction(actionId, clock.now(), tx))) return [];
        // A report, not a detection: one event of the recipient's, at most once per reporter.
        const reportId = await deps.reports.insertReport(
          { tenantId: m.tenantId, messageId: m.id, reporter: m.recipient, kind, createdAt: clock.now() },
          tx,
        );
        if (!reportId) return [];
        await repo.insertSecurityEvent(
          {
            tenantId: m.tenantId,
            messageId: m.id,
            // A report is its own kind of event (the Events screen's type), never a second detection.
            type: 'report',
            recipient: m.recipient,
            subject: m.subject,
            engine: 'recipient',
            verdict: m.verdict,
            description: `Report: ${m.recipient} reported the message as ${words}`,
            severity: 'info',
            details: { decision: { verdict: m.verdict, action: found.action, source: 'recipient' } },
          },
          tx,
        );
        await audit.record(
          { type: 'anonymous', email: m.recipient, ip: call.ip },
          {
            tenantId: m.tenantId,
            action: `quarantine.${kind}`,
            targetType: 'phishing_report',
            targetId: reportId,
            details: { message_id: m.id },
          },
          tx,
        );
        // The reporter's receipt, when the organisation sends one (Phishing Reports settings).
        if (settings.receipt_email) {
          const brand = mailBrand(await deps.settings.tenantById(m.tenantId));
          receipt.push(
            await deps.mailer.send(
              {
                tenantId: m.tenantId,
                kind: 'report_receipt',
                to: m.recipient,
                ...reportReceiptEmail(brand, {
                  subject: m.subject,
                  sender: m.sender,
                  kind,
                  text: settings.receipt_text,
                }),
              },
              tx,
            ),
          );
        }
        return deps.alerts.raise(m.tenantId, 'report', tx);
      });
      deps.alerts.deliver(outbox);
      for (const id of receipt) deps.mailer.deliverStored(id);
      return {
        body: {
          success: true,
          primary_text: 'Requested action performed successfully',
          secondary_text:
            settings.receipt_text ||
            `Thank you. Your administrator will review the message you reported as ${words}.`,
        },
        trustCookie: proof.trustCookie,
      };
    },

    /**
     * Send a code to the address if it is the message's recipient. Any other address gets the same
     * answer, the same waits and the same limits, but no email (its code is stored hashed and never
     * sent). The code belongs to the browser that asked (its id is set now if it has none): a new
     * code replaces only that browser's previous one. At most `CODE_MAILS` codes an hour go to one
     * address; past that, 429 (`CodeMailsLimited`) says when a new one can be asked for.
     */
    async verifyRecipient(
      call: PublicCall,
    ): Promise<PublicAnswer<{ status: 'ok'; wait_time: number; message: string }>> {
      const m = await mustFind(call);
      const email = (call.query.email ?? '').trim().toLowerCase();
      if (!PUBLIC_EMAIL_PATTERN.test(email)) throw new AppError('bad_request', 'Email is not valid');
      const newClient = call.clientId ? undefined : newClientId();
      const subject = codeSubject(m.id, call.clientId ?? newClient!);
      const wait = newClient ? 0 : await codes.waitTime(CODE_PURPOSE, subject, email);
      const message = 'If this is the address the email was sent to, a verification code is on its way.';
      if (wait > 0) return { body: { status: 'ok', wait_time: wait, message } };
      // The link's count first: a request it refuses does not use up the address's other links.
      for (const [key, limit] of [
        [`recipient-mail-link:${m.id}:${email}`, CODE_MAILS.perLink],
        [`recipient-mail-address:${m.tenantId}:${email}`, CODE_MAILS.perAddress],
      ] as const) {
        const { count, ttlMs } = await deps.counters.hit(key, CODE_MAILS.windowMs, limit);
        if (count > limit) throw new CodeMailsLimited(Math.max(1, Math.ceil(ttlMs / 1000)));
      }
      const code = await codes.issue(CODE_PURPOSE, subject, email);
      if (email === m.recipient) {
        const brand = mailBrand(await deps.settings.tenantById(m.tenantId));
        await deps.mailer.send({
          tenantId: m.tenantId,
          kind: 'recipient_verification',
          to: m.recipient,
          ...recipientVerificationCodeEmail(brand, { subject: m.subject, code }),
        });
      }
      await audit.record(
        { type: 'anonymous', email, ip: call.ip },
        {
          tenantId: m.tenantId,
          action: 'quarantine.verify_recipient',
          targetType: 'quarantine_message',
          targetId: m.id,
          details: { matches: email === m.recipient },
        },
      );
      return { body: { status: 'ok', wait_time: RESEND_WAIT_S, message }, clientId: newClient };
    },

    /**
     * GET restore / restore_original: checks a code when one is given; in automatic mode a proven
     * recipient gets the message (once); otherwise it answers the current status.
     */
    async restoreGet(call: PublicCall, kind: Kind): Promise<PublicAnswer<RestoreBody>> {
      const { m, policy } = await restorable(call, kind);
      const proof = await prove(call, m);
      const current = await statusOf(m, kind);
      if (proof.attemptsLeft !== undefined) {
        return {
          body: {
            status: current,
            message:
              proof.attemptsLeft > 0
                ? 'The code is not valid.'
                : 'You have reached the maximum number of attempts.',
            attempts_left: proof.attemptsLeft,
          },
        };
      }
      if (policy.mode === 'automatic' && proof.proven && current !== 'restored') {
        await releaseOnce(m, kind, m.recipient);
        await learnRecipientRelease(m, { type: 'anonymous', email: m.recipient, ip: call.ip });
        return {
          body: { status: 'restored' as const, message: RESTORED_TEXT[kind] },
          trustCookie: proof.trustCookie,
        };
      }
      if (policy.mode === 'automatic' && !proof.proven && policy.identificationRequired) {
        throw new AppError('forbidden', 'Confirm your email address first');
      }
      return {
        body: { status: current, message: current === 'restored' ? RESTORED_TEXT[kind] : '' },
        trustCookie: proof.trustCookie,
      };
    },

    /** POST restore / phish_request_restore / restore_original: a request to the admin, or the restore itself in automatic mode. */
    async restorePost(call: PublicCall, kind: Kind, commentary: string): Promise<PublicAnswer<RestoreBody>> {
      const { m, policy } = await restorable(call, kind);
      const proof =
        kind === 'original'
          ? await prove({ ...call, query: { ...call.query, code: undefined } }, m)
          : await prove(call, m);
      if (policy.identificationRequired && !proof.proven)
        throw new AppError('forbidden', 'Confirm your email address first');
      const body = await restoreFor(m, policy, kind, commentary, {
        by: m.recipient,
        actor: { type: 'anonymous', email: m.recipient, ip: call.ip },
      });
      return { body, trustCookie: proof.trustCookie };
    },

    async status(type: string, publicId: string, kind: Kind): Promise<RestoreBody> {
      const m = await live(type, publicId);
      if (!m) throw new AppError('not_found', "Can't find message");
      const status = await statusOf(m, kind);
      return {
        status,
        message:
          status === 'restored'
            ? RESTORED_TEXT[kind]
            : status === 'requested'
              ? REQUESTED_TEXT[kind]
              : status === 'declined'
                ? 'The admin declined your request.'
                : '',
      };
    },
  };
}
export type PublicActionsService = ReturnType<typeof createPublicActionsService>;
