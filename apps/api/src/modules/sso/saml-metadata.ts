import { X509Certificate } from 'node:crypto';
import type { SamlIdp } from '@moat/contracts/sso';
import { DOMParser } from '@xmldom/xmldom';
import { AppError } from '../../errors.ts';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
/** SAML V2.0 Metadata Profile for Algorithm Support: the algorithms an entity says it signs with. */
const ALG = 'urn:oasis:names:tc:SAML:metadata:algsupport';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** An identity provider as Moat uses it: the parts of its metadata that matter, and its PEM certificates. */
export interface SamlIdpConfig extends SamlIdp {
  /** The signing certificates as PEM, for node-saml's `idpCert`. */
  pems: string[];
}

const refuse = (why: string): never => {
  throw new AppError('validation_error', `The identity provider's metadata is not usable: ${why}`);
};

/** RSA-SHA1, DSA-SHA1, HMAC-SHA1, ECDSA-SHA1 or the SHA-1 digest (their URIs all end so). */
export const isSha1Algorithm = (uri: string) => /sha1$/i.test(uri.trim());

/** Why an answer or metadata with SHA-1 is refused, and what the IdP's admin changes. */
export const sha1Refusal = (algorithms: string[]) =>
  `it uses SHA-1 (${algorithms.join(', ')}), which Moat refuses as collision-broken: set the identity provider to sign with RSA-SHA256 and the SHA-256 digest`;

/**
 * Whether the metadata says the IdP signs with SHA-1: the metadata's own signature uses it, or
 * every signing (or digest) method it announces is SHA-1. An IdP that announces SHA-256 too is
 * fine: Moat accepts only that from it.
 */
function sha1Only(descriptor: Element): string[] {
  const uris = (elements: HTMLCollectionOf<Element> | Element[]) =>
    Array.from(elements).map((e) => (e.getAttribute('Algorithm') ?? '').trim());
  const signature = Array.from(descriptor.getElementsByTagNameNS(DS, 'Signature')).flatMap((sig) => [
    ...uris(sig.getElementsByTagNameNS(DS, 'SignatureMethod')),
    ...uris(sig.getElementsByTagNameNS(DS, 'DigestMethod')),
  ]);
  const weak = signature.filter(isSha1Algorithm);
  for (const name of ['SigningMethod', 'DigestMethod']) {
    const announced = uris(descriptor.getElementsByTagNameNS(ALG, name));
    if (announced.length > 0 && announced.every(isSha1Algorithm)) weak.push(...announced);
  }
  return [...new Set(weak)];
}

function pemOf(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  const lines = body.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/**
 * Read an IdP's SAML metadata (an EntityDescriptor, as Entra ID, Okta and Keycloak publish it):
 * its entity id, the single sign-on URL of the HTTP-Redirect binding, and its signing
 * certificates. Anything missing, a DTD (no entities are ever expanded) or an expired
 * certificate is a clear 400, so a bad upload never becomes a broken sign-in.
 */
export function parseIdpMetadata(xml: string, now: Date): SamlIdpConfig {
  if (/<!DOCTYPE/i.test(xml)) refuse('a document type declaration (DTD) is not allowed');
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: { warning: () => {}, error: (m) => errors.push(m), fatalError: (m) => errors.push(m) },
  }).parseFromString(xml, 'text/xml');
  const root = doc?.documentElement;
  if (errors.length > 0 || !root) refuse('it is not well-formed XML');
  const descriptor =
    root?.localName === 'EntityDescriptor' && root.namespaceURI === MD
      ? root
      : (Array.from(root?.getElementsByTagNameNS(MD, 'EntityDescriptor') ?? []).find(
          (d) => d.getElementsByTagNameNS(MD, 'IDPSSODescriptor').length > 0,
        ) ?? refuse('no EntityDescriptor of an identity provider (IDPSSODescriptor) in it'));
  const weak = descriptor ? sha1Only(descriptor) : [];
  if (weak.length > 0) refuse(sha1Refusal(weak));
  const entityId = descriptor?.getAttribute('entityID') ?? '';
  if (!entityId) refuse('the EntityDescriptor has no entityID');
  const idp = descriptor?.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0];
  if (!idp) refuse('no IDPSSODescriptor in it');
  const ssoUrl = Array.from(idp?.getElementsByTagNameNS(MD, 'SingleSignOnService') ?? [])
    .find((s) => s.getAttribute('Binding') === REDIRECT)
    ?.getAttribute('Location');
  if (!ssoUrl || !/^https?:\/\//i.test(ssoUrl)) {
    refuse('no SingleSignOnService with the HTTP-Redirect binding and an http(s) Location');
  }
  const keys = Array.from(idp?.getElementsByTagNameNS(MD, 'KeyDescriptor') ?? []).filter(
    (k) => (k.getAttribute('use') ?? 'signing') === 'signing',
  );
  const certificates: SamlIdp['certificates'] = [];
  const pems: string[] = [];
  for (const key of keys) {
    for (const node of Array.from(key.getElementsByTagNameNS(DS, 'X509Certificate'))) {
      const pem = pemOf(node.textContent ?? '');
      let cert: X509Certificate;
      try {
        cert = new X509Certificate(pem);
      } catch {
        return refuse('a signing certificate in it cannot be read');
      }
      if (new Date(cert.validTo).getTime() <= now.getTime()) continue;
      if (pems.includes(pem)) continue;
      pems.push(pem);
      certificates.push({
        subject: cert.subject.replace(/\n/g, ', '),
        not_after: new Date(cert.validTo).toISOString(),
        sha256: cert.fingerprint256,
      });
    }
  }
  if (pems.length === 0) refuse('no signing certificate that is still valid');
  return { entity_id: entityId, sso_url: ssoUrl as string, certificates, pems };
}
