import net from 'node:net';
import { domainOfEmail } from '@moat/contracts/validation';
import type { Config } from '../config.ts';
import type { DbOrTx } from '../db/client.ts';

/**
 * Whether mail can come from (or go to) an address on `host`: a DNS name with a dot, not an IP
 * literal (`127.0.0.1`, `[::1]`), not `localhost` or a name under it. A bare machine name is none.
 */
export function isMailDomain(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  const unbracketed = name.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(unbracketed) !== 0) return false;
  if (!name.includes('.') || /^[\d.]+$/.test(name)) return false;
  return name !== 'localhost' && !name.endsWith('.localhost');
}

/** `local@host` when `host` is a mail domain; null otherwise. */
export function addressOn(local: string, host: string): string | null {
  return isMailDomain(host) ? `${local}@${host.toLowerCase().replace(/\.$/, '')}` : null;
}

/** Where the sender of a tenant's mail came from: its setting, MAIL_FROM, its domain, PUBLIC_URL, or nowhere. */
export type SenderSource = 'settings' | 'mail_from' | 'tenant_domain' | 'public_url' | 'none';

/**
 * The sender of Moat's own mail for a tenant (codes, notices, digests): the tenant's own
 * (Settings), else the operator's MAIL_FROM, else `no-reply@` its first mail domain, else
 * `no-reply@` PUBLIC_URL's host when that is a mail domain. Never an IP literal or localhost:
 * null when none of these is a real address (the Settings screen and the start-up say so).
 */
export function chooseSender(
  config: Pick<Config, 'mailFrom' | 'mailFromSet'>,
  tenant: { own: string | null; domains: string[] },
): { address: string | null; source: SenderSource } {
  if (tenant.own && isMailDomain(domainOfEmail(tenant.own)))
    return { address: tenant.own, source: 'settings' };
  if (config.mailFromSet && config.mailFrom) return { address: config.mailFrom, source: 'mail_from' };
  for (const domain of tenant.domains) {
    const address = addressOn('no-reply', domain);
    if (address) return { address, source: 'tenant_domain' };
  }
  if (config.mailFrom) return { address: config.mailFrom, source: 'public_url' };
  return { address: null, source: 'none' };
}

/** The sender of each tenant's mail, read when a mail is stored (on the caller's transaction). */
export function createSenderOf(
  config: Pick<Config, 'mailFrom' | 'mailFromSet'>,
  tenants: {
    find(
      tenantId: string,
      tx?: DbOrTx,
    ): Promise<{ mailFromAddress: string | null; mailFromName: string | null } | null>;
    domainsOf(tenantId: string, tx?: DbOrTx): Promise<string[]>;
  },
) {
  return async (tenantId: string, tx?: DbOrTx) => {
    const tenant = await tenants.find(tenantId, tx);
    if (!tenant) return null;
    const domains = await tenants.domainsOf(tenantId, tx);
    return {
      address: chooseSender(config, { own: tenant.mailFromAddress, domains }).address,
      name: tenant.mailFromName,
    };
  };
}
