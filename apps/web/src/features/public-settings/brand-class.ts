import type { PublicFeatures } from '@moat/contracts/features';

export const BRAND_BODY_CLASSES = ['checkpoint-theme', 'sonicwall-theme'] as const;
export type BrandBodyClass = (typeof BRAND_BODY_CLASSES)[number];

/** The body class of the brand theme the public settings ask for, if any. */
export function brandBodyClass(features: Pick<PublicFeatures, 'checkpointTheme' | 'sonicwallTheme'>) {
  if (features.checkpointTheme) return 'checkpoint-theme' satisfies BrandBodyClass;
  if (features.sonicwallTheme) return 'sonicwall-theme' satisfies BrandBodyClass;
  return null;
}

/** Puts exactly `active` (or no brand class) on `body`. */
export function applyBrandBodyClass(body: HTMLElement, active: BrandBodyClass | null): void {
  for (const name of BRAND_BODY_CLASSES) body.classList.toggle(name, name === active);
}
