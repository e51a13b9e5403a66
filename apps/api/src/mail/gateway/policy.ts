import type { Verdict } from '@moat/contracts/quarantine';
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { gatewayPolicies, senderLists } from '../../db/schema.ts';

export const GATEWAY_ACTIONS = [
  'deliver',
  'deliver_banner',
  'strip',
  'quarantine',
  'quarantine_silent',
] as const;
export type GatewayAction = (typeof GATEWAY_ACTIONS)[number];

/**
 * What the gateway does with a verdict when the tenant has not said otherwise: known malware and
 * phishing are held and the recipient told; spam is delivered with a warning; a dangerous
 * attachment or a suspicious link is stripped (or, with nothing to strip, warned about).
 */
export const DEFAULT_GATEWAY_POLICY: Record<Verdict, GatewayAction> = {
  malware: 'quarantine',
  phishing: 'quarantine',
  spam: 'deliver_banner',
  suspicious: 'strip',
};

export async function gatewayActionOf(
  db: DbOrTx,
  tenantId: string,
  verdict: Verdict,
): Promise<GatewayAction> {
  const [row] = await db
    .select({ action: gatewayPolicies.action })
    .from(gatewayPolicies)
    .where(and(eq(gatewayPolicies.tenantId, tenantId), eq(gatewayPolicies.verdict, verdict)));
  const action = (row?.action as GatewayAction | undefined) ?? DEFAULT_GATEWAY_POLICY[verdict];
  // Known malware never reaches a mailbox, whatever is stored.
  if (verdict === 'malware' && (action === 'deliver' || action === 'deliver_banner')) return 'quarantine';
  return action;
}

export async function setGatewayAction(
  db: DbOrTx,
  tenantId: string,
  verdict: Verdict,
  action: GatewayAction,
) {
  await db
    .insert(gatewayPolicies)
    .values({ tenantId, verdict, action })
    .onConflictDoUpdate({
      target: [gatewayPolicies.tenantId, gatewayPolicies.verdict],
      set: { action, updatedAt: new Date() },
    });
}

/** Which list the sender is on: its address first, then its domain and parent domains. */
export async function senderListOf(
  db: DbOrTx,
  tenantId: string,
  sender: string,
): Promise<'allow' | 'block' | null> {
  const address = sender.toLowerCase();
  const domain = address.split('@')[1] ?? '';
  const rows = await db
    .select({ list: senderLists.list, value: senderLists.value })
    .from(senderLists)
    .where(eq(senderLists.tenantId, tenantId));
  const match = (value: string) =>
    value === address || (domain !== '' && (value === domain || domain.endsWith(`.${value}`)));
  // A block entry wins over an allow entry that matches as well.
  if (rows.some((r) => r.list === 'block' && match(r.value))) return 'block';
  if (rows.some((r) => r.list === 'allow' && match(r.value))) return 'allow';
  return null;
}
