import { DEFAULT_RESTORE_POLICY, type RestoreMode, type Verdict } from '@moat/contracts/quarantine';
import type { StoredRestorePolicy } from './quarantine.repo.ts';

export interface RestorePolicy {
  mode: RestoreMode;
  identificationRequired: boolean;
}

/** The restore policy for a verdict given the tenant's stored policies (`restorePoliciesOf`). */
export function restorePolicyFrom(
  stored: Partial<Record<Verdict, StoredRestorePolicy>>,
  verdict: Verdict,
): RestorePolicy {
  // Malware is never restorable, whatever is stored.
  if (verdict === 'malware') return { mode: 'none', identificationRequired: true };
  const row = stored[verdict];
  return row
    ? { mode: row.mode as RestoreMode, identificationRequired: row.identificationRequired }
    : DEFAULT_RESTORE_POLICY[verdict];
}
