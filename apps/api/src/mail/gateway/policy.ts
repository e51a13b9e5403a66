import type { Verdict } from '@moat/contracts/quarantine';
import type { SenderListName } from './gateway-policy.repo.ts';

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

/** The action for a verdict given the tenant's stored actions (`actionsOf`). */
export function gatewayActionFrom(stored: Partial<Record<Verdict, string>>, verdict: Verdict): GatewayAction {
  const action = (stored[verdict] as GatewayAction | undefined) ?? DEFAULT_GATEWAY_POLICY[verdict];
  // Known malware never reaches a mailbox, whatever is stored.
  if (verdict === 'malware' && (action === 'deliver' || action === 'deliver_banner')) return 'quarantine';
  return action;
}

/** The list values that can match a sender: its address, its domain and each parent domain. */
export function senderKeys(sender: string): string[] {
  const address = sender.toLowerCase();
  const domain = address.split('@')[1] ?? '';
  if (domain === '') return address ? [address] : [];
  const labels = domain.split('.');
  return [address, ...labels.map((_, i) => labels.slice(i).join('.')).filter((d) => d !== '')];
}

/** Which list the sender is on, among `entries` (its address first, then its domain and parents). */
export function senderListFrom(
  entries: Array<{ list: SenderListName; value: string }>,
  sender: string,
): SenderListName | null {
  const keys = new Set(senderKeys(sender));
  const on = (list: SenderListName) => entries.some((e) => e.list === list && keys.has(e.value));
  // A block entry wins over an allow entry that matches as well.
  if (on('block')) return 'block';
  if (on('allow')) return 'allow';
  return null;
}

/** An exception to the action per verdict (the Policy screen's overrides, `policy_overrides`). */
export interface StoredOverride {
  match: string;
  value: string;
  verdict: string;
  action: string;
}

/**
 * The action for `recipient` given the tenant's actions and overrides: an override for the
 * recipient's own address wins over one for a group it is in, which wins over one for its domain;
 * without one, the tenant's action for the verdict. Malware is never delivered, whatever is stored.
 */
export function recipientActionFrom(
  stored: Partial<Record<Verdict, string>>,
  overrides: StoredOverride[],
  verdict: Verdict,
  recipient: string,
): GatewayAction {
  const address = recipient.toLowerCase();
  const domain = address.split('@')[1] ?? '';
  const forVerdict = overrides.filter((o) => o.verdict === verdict);
  const found =
    forVerdict.find((o) => o.match === 'recipient' && o.value === address) ??
    forVerdict.find((o) => o.match === 'group' && o.value.split(',').includes(address)) ??
    forVerdict.find((o) => o.match === 'domain' && o.value === domain);
  return gatewayActionFrom(found ? { ...stored, [verdict]: found.action } : stored, verdict);
}
