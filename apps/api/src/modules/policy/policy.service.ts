import { GLOBAL_ERROR_TEXT } from '@moat/contracts/errors';
import {
  groupAddresses,
  type Policy,
  type PolicyAction,
  type PolicyOverride,
  type policyInputSchema,
  WHAT_IF_DAYS,
  WHAT_IF_SAMPLE,
  type WhatIf,
} from '@moat/contracts/policy';
import { VERDICTS, type Verdict } from '@moat/contracts/quarantine';
import type { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { gatewayActionFrom, recipientActionFrom, type StoredOverride } from '../../mail/gateway/policy.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import { restorePolicyFrom } from '../quarantine/policy.ts';
import type { JudgedMessage, PolicyRepo, PolicyWrite, StoredPolicy } from './policy.repo.ts';

type PolicyInput = z.output<typeof policyInputSchema>;

/** Who asks: what the Policy screen needs of the signed-in user (SPEC §6). */
export interface PolicyUser {
  tenantId: string;
  role: string;
  viewEditPolicy: boolean;
}

/** SPEC §6: admins change the policy, and users given view_edit_policy; everyone else only sees it. */
export const mayEditPolicy = (user: PolicyUser): boolean => user.role === 'admin' || user.viewEditPolicy;

/** Most messages a what-if replays (the newest of the period). */
const WHAT_IF_MAX_ROWS = 50_000;
const DAY_MS = 24 * 60 * 60 * 1000;
const BLOCK_LIST_REASON = 'Sender is on the block list';

/** An override as stored: its value lower-cased, a group's addresses joined by commas. */
function storedOverride(o: PolicyInput['overrides'][number]): Omit<PolicyOverride, 'id'> {
  const value = o.match === 'group' ? groupAddresses(o.value).join(',') : o.value.trim().toLowerCase();
  return {
    match: o.match,
    value,
    name: o.match === 'group' ? o.name : '',
    verdict: o.verdict,
    action: o.action,
  };
}

function writeOf(input: PolicyInput): PolicyWrite {
  const actions = {} as PolicyWrite['actions'];
  for (const verdict of VERDICTS) actions[verdict] = input.verdicts[verdict].action;
  return {
    actions,
    overrides: input.overrides.map(storedOverride),
    spamThresholds: input.spam_thresholds,
  };
}

/** The action the gateway would take for one logged message under a policy. */
function actionFor(
  actions: Partial<Record<Verdict, string>>,
  overrides: StoredOverride[],
  m: JudgedMessage,
): PolicyAction {
  const action = recipientActionFrom(actions, overrides, m.verdict as Verdict, m.recipient);
  return action === 'strip' && m.attachments === 0 ? 'deliver_banner' : action;
}

export function createPolicyService(deps: {
  db: Pick<Db, 'transaction'>;
  repo: PolicyRepo;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
}) {
  const { repo } = deps;

  function policyOf(stored: StoredPolicy, editable: boolean): Policy {
    const verdicts = {} as Policy['verdicts'];
    for (const verdict of VERDICTS) {
      const restore = restorePolicyFrom(stored.restore as Parameters<typeof restorePolicyFrom>[0], verdict);
      verdicts[verdict] = {
        action: gatewayActionFrom(stored.actions, verdict),
        restore_mode: restore.mode,
        identification_required: restore.identificationRequired,
      };
    }
    return {
      verdicts,
      overrides: stored.overrides.map((o) => ({
        id: o.id,
        match: o.match as PolicyOverride['match'],
        value: o.value,
        name: o.name,
        verdict: o.verdict as Verdict,
        action: o.action as PolicyAction,
      })),
      spam_thresholds: stored.spamThresholds,
      editable,
    };
  }

  async function storedOf(tenantId: string): Promise<StoredPolicy> {
    const stored = await repo.policyOf(tenantId);
    if (!stored) throw notFound('No such tenant');
    return stored;
  }

  function requireEditor(user: PolicyUser): void {
    if (!mayEditPolicy(user)) {
      throw new AppError('insufficient_privileges', GLOBAL_ERROR_TEXT.insufficientPrivileges);
    }
  }

  return {
    async get(user: PolicyUser): Promise<Policy> {
      return policyOf(await storedOf(user.tenantId), mayEditPolicy(user));
    },

    /** Save the whole policy at once; the gateway on every node uses it for the next message. */
    async save(user: PolicyUser, actor: Actor, input: PolicyInput): Promise<Policy> {
      requireEditor(user);
      const { tenantId } = user;
      const before = policyOf(await storedOf(tenantId), true);
      await deps.db.transaction(async (tx) => {
        await repo.replace(tenantId, writeOf(input), tx);
        const after = policyOf((await repo.policyOf(tenantId, tx))!, true);
        const strip = ({ editable: _e, ...p }: Policy) => ({
          ...p,
          overrides: p.overrides.map(({ id: _id, ...o }) => o),
        });
        await deps.audit.record(
          actor,
          {
            tenantId,
            action: 'policy.update',
            targetType: 'policy',
            targetId: tenantId,
            details: { before: strip(before), after: strip(after) },
          },
          tx,
        );
      });
      return policyOf(await storedOf(tenantId), true);
    },

    /** How the last days' judged messages would have been handled under `proposed`. */
    async whatIf(user: PolicyUser, proposed: PolicyInput): Promise<WhatIf> {
      requireEditor(user);
      const current = await storedOf(user.tenantId);
      const next = writeOf(proposed);
      const since = new Date(deps.clock.now().getTime() - WHAT_IF_DAYS * DAY_MS);
      const messages = await repo.judgedSince(user.tenantId, since, WHAT_IF_MAX_ROWS);
      const counts = new Map<
        string,
        { verdict: Verdict; from: PolicyAction; to: PolicyAction; count: number }
      >();
      const sample: WhatIf['sample'] = [];
      let considered = 0;
      let changed = 0;
      for (const m of messages) {
        // Held for the block list or unprocessable: the policy per verdict never decided these.
        if (m.action === 'failed' || m.reasons.includes(BLOCK_LIST_REASON)) continue;
        considered++;
        const from = actionFor(current.actions, current.overrides, m);
        const to = actionFor(next.actions, next.overrides, m);
        if (from === to) continue;
        changed++;
        const verdict = m.verdict as Verdict;
        const key = `${verdict}|${from}|${to}`;
        const entry = counts.get(key) ?? { verdict, from, to, count: 0 };
        entry.count++;
        counts.set(key, entry);
        // Other people's subjects and senders are for admins: a user who may edit the policy sees the counts.
        if (user.role === 'admin' && sample.length < WHAT_IF_SAMPLE) {
          sample.push({
            id: m.id,
            received_at: m.receivedAt.toISOString(),
            recipient: m.recipient,
            sender: m.sender,
            subject: m.subject,
            verdict,
            from,
            to,
          });
        }
      }
      return {
        days: WHAT_IF_DAYS,
        considered,
        changed,
        changes: [...counts.values()].sort((a, b) => b.count - a.count),
        sample,
      };
    },
  };
}
export type PolicyService = ReturnType<typeof createPolicyService>;
