import fs from 'node:fs';
import path from 'node:path';
import type { Brand } from '@moat/contracts/deployment';
import { type PublicFeatures, pickPublicFeatures, resolveFeatures } from '@moat/contracts/features';
import type { RecaptchaConfig } from '@moat/contracts/public-config';
import type { Config } from '../../config.ts';
import type { TenantSettings } from '../tenants/tenant-settings.ts';
import type { TenantRow } from '../tenants/tenants.repo.ts';

const BRAND_LOGO_DIR = path.resolve(import.meta.dirname, '../../../assets/brands');

/** Brand logos ship with the server; read once. */
const brandLogos = new Map<string, Buffer>();
function brandLogo(brand: Brand | string): Buffer {
  const name = ['moat', 'checkpoint', 'sonicwall'].includes(brand) ? brand : 'moat';
  let logo = brandLogos.get(name);
  if (!logo) {
    logo = fs.readFileSync(path.join(BRAND_LOGO_DIR, `${name}.svg`));
    brandLogos.set(name, logo);
  }
  return logo;
}

export interface Logo {
  body: Buffer;
  mime: string;
  /** True for the brand's default, false for a tenant's own upload. */
  isDefault: boolean;
}

export function createPublicConfigService({
  settings,
  config,
  ssoEnabled,
}: {
  /** Read on every page load (the sign-in area and the public pages): cached. */
  settings: Pick<TenantSettings, 'primaryTenant' | 'flagsOf'>;
  config: Pick<Config, 'captcha'>;
  /** Whether some tenant signs in with this provider: the sign-in page then offers it (issue 15). */
  ssoEnabled: () => Promise<Set<'saml' | 'microsoft' | 'google'>>;
}) {
  return {
    /**
     * The tenant an anonymous call speaks for. Calls without a message (the sign-in area) belong
     * to the deployment's primary tenant; the public restore pages will resolve it from the message.
     */
    primaryTenant: (): Promise<TenantRow | null> => settings.primaryTenant(),

    async publicFeatures(tenant: TenantRow | null): Promise<PublicFeatures> {
      const flags = tenant ? await settings.flagsOf(tenant.id) : resolveFeatures([]);
      if (tenant?.brand === 'checkpoint') flags.checkpointTheme = true;
      if (tenant?.brand === 'sonicwall') flags.sonicwallTheme = true;
      const sso = await ssoEnabled();
      if (sso.has('saml')) flags.samlAuth = true;
      if (sso.has('microsoft')) flags.office365Auth = true;
      if (sso.has('google')) flags.googleAuth = true;
      return pickPublicFeatures(flags);
    },

    recaptchaConfig(): RecaptchaConfig {
      const { provider, siteKey } = config.captcha;
      return { provider, key: provider === 'altcha' ? '/api/v1/auth/captcha/challenge' : siteKey };
    },

    logo(tenant: TenantRow | null): Logo {
      if (tenant?.logo && tenant.logoMime) {
        return { body: Buffer.from(tenant.logo), mime: tenant.logoMime, isDefault: false };
      }
      return { body: brandLogo(tenant?.brand ?? 'moat'), mime: 'image/svg+xml', isDefault: true };
    },
  };
}
export type PublicConfigService = ReturnType<typeof createPublicConfigService>;
