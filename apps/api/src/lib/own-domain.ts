/**
 * Whether an address or domain belongs to the organisation: its domain is one of the tenant's
 * own or a subdomain of one. Such a sender is never blocked: a spoofed From would block the real
 * colleague.
 */
export function isOwnDomain(addressOrDomain: string, own: readonly string[]): boolean {
  const domain = addressOrDomain.slice(addressOrDomain.lastIndexOf('@') + 1).toLowerCase();
  return own.some((d) => domain === d || domain.endsWith(`.${d}`));
}
