import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as samlify from 'samlify';
import { selfSignedCertificate } from './certificates.ts';

/*
 * A real SAML 2.0 identity provider for the tests, on loopback: samlify's IdP role with its own
 * RSA key and self-signed certificate (made by openssl), publishing its metadata, reading Moat's
 * AuthnRequests (HTTP-Redirect) and answering with signed responses (HTTP-POST). A test can bend
 * any value of the response (audience, times, issuer, recipient…) or strip its signature, to see
 * Moat refuse it; the browser flow goes through `/sso`, which auto-posts the answer to the ACS.
 */

samlify.setSchemaValidator({ validate: async () => 'skipped' });

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
/** What an IdP still set to the old default signs with (and its SHA-1 digest). */
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/** The template values of a login response (samlify's default template). */
export interface ResponseValues {
  ID: string;
  AssertionID: string;
  Destination: string;
  Audience: string;
  SubjectRecipient: string;
  Issuer: string;
  IssueInstant: string;
  InResponseTo: string;
  StatusCode: string;
  ConditionsNotBefore: string;
  ConditionsNotOnOrAfter: string;
  SubjectConfirmationDataNotOnOrAfter: string;
  NameIDFormat: string;
  NameID: string;
  AuthnStatement: string;
  AttributeStatement: string;
}

/** samlify's `{Tag}` template filled with XML-escaped values. */
const fill = (template: string, values: ResponseValues) =>
  template.replace(/\{(\w+)\}/g, (tag, name: string) => {
    const value = (values as unknown as Record<string, string | undefined>)[name];
    return value === undefined
      ? tag
      : value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  });

function keyPair(): { key: string; cert: string } {
  const { dir, keyFile, certFile } = selfSignedCertificate('Moat test IdP');
  const pair = { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
  fs.rmSync(dir, { recursive: true, force: true });
  return pair;
}

export async function startSamlIdp(options: { entityId?: string } = {}) {
  const { key, cert } = keyPair();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const settings = {
    entityID: options.entityId ?? `${base}/metadata`,
    signingCert: cert,
    privateKey: key,
    nameIDFormat: [EMAIL_FORMAT],
    singleSignOnService: [{ Binding: REDIRECT, Location: `${base}/sso` }],
    wantAuthnRequestsSigned: false,
  };
  const idp = samlify.IdentityProvider(settings);
  /** The same IdP (same key, same metadata) set to sign with RSA-SHA1. */
  const sha1Idp = samlify.IdentityProvider({ ...settings, requestSignatureAlgorithm: RSA_SHA1 });
  const metadataXml = idp.getMetadata();
  /** Who the browser flow signs in (the IdP's "login"). */
  let nextUser = '';

  /** Moat's SP, from its metadata (fetched from the SP's own endpoint by the caller). */
  const spOf = (spMetadataXml: string) => samlify.ServiceProvider({ metadata: spMetadataXml });

  /** The AuthnRequest in an IdP URL Moat produced (its id is the InResponseTo). */
  async function requestOf(sp: ReturnType<typeof spOf>, authUrl: string) {
    const query = Object.fromEntries(new URL(authUrl).searchParams);
    const parsed = await idp.parseLoginRequest(sp, 'redirect', { query });
    return parsed as unknown as { extract: { request: { id: string } } };
  }

  /**
   * A base64 SAMLResponse for `email` answering `authUrl`'s request, with `bend` applied to the
   * template values; the assertion is signed with this IdP's key (samlify, as the SP asks), with
   * RSA-SHA256 or, `signedWith: RSA_SHA1`, with SHA-1.
   */
  async function responseFor(
    spMetadataXml: string,
    authUrl: string,
    email: string,
    bend: (values: ResponseValues) => Partial<ResponseValues> = () => ({}),
    { signedWith }: { signedWith?: typeof RSA_SHA1 } = {},
  ): Promise<string> {
    const sp = spOf(spMetadataXml);
    const request = await requestOf(sp, authUrl);
    const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
    const now = new Date();
    const later = new Date(now.getTime() + 5 * 60_000).toISOString();
    const values: ResponseValues = {
      ID: `_${randomUUID()}`,
      AssertionID: `_${randomUUID()}`,
      Destination: acs,
      Audience: sp.entityMeta.getEntityID(),
      SubjectRecipient: acs,
      Issuer: idp.entityMeta.getEntityID(),
      IssueInstant: now.toISOString(),
      InResponseTo: request.extract.request.id,
      StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
      ConditionsNotBefore: now.toISOString(),
      ConditionsNotOnOrAfter: later,
      SubjectConfirmationDataNotOnOrAfter: later,
      NameIDFormat: EMAIL_FORMAT,
      NameID: email,
      AuthnStatement: '',
      AttributeStatement: '',
    };
    const final = { ...values, ...bend(values) };
    const { context } = await (signedWith === RSA_SHA1 ? sha1Idp : idp).createLoginResponse(
      sp,
      request as never,
      'post',
      { email },
      (template: string) => ({
        id: final.ID,
        context: fill(template, final),
      }),
    );
    return context;
  }

  /** The same response without any signature (as an attacker would forge it). */
  const unsigned = (samlResponse: string) =>
    Buffer.from(
      Buffer.from(samlResponse, 'base64')
        .toString('utf8')
        .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, ''),
    ).toString('base64');

  // The browser flow: GET /sso?SAMLRequest=… answers with a form that posts the response to the ACS.
  let spMetadata = '';
  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/metadata') {
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadataXml);
      return;
    }
    if (url.pathname !== '/sso' || !spMetadata || !nextUser) {
      res.writeHead(404).end('unknown');
      return;
    }
    responseFor(spMetadata, url.toString(), nextUser).then(
      (samlResponse) => {
        const acs = spOf(spMetadata).entityMeta.getAssertionConsumerService('post') as string;
        const html = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          `<!doctype html><title>Test IdP</title><body><h1>Test IdP: signing in ${html(nextUser)}</h1>
<form method="post" action="${html(acs)}"><input type="hidden" name="SAMLResponse" value="${html(samlResponse)}">
<button type="submit">Continue to Moat</button></form></body>`,
        );
      },
      (error: unknown) => {
        res.writeHead(400).end(String(error));
      },
    );
  });

  return {
    url: base,
    metadataXml,
    responseFor,
    unsigned,
    /** For the browser flow: Moat's SP metadata, and who signs in at /sso next. */
    serve(spMetadataXml: string, email: string) {
      spMetadata = spMetadataXml;
      nextUser = email;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type TestSamlIdp = Awaited<ReturnType<typeof startSamlIdp>>;
