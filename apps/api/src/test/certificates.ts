import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A fresh RSA key and self-signed certificate for `commonName`, made by openssl (valid two days)
 * in a temporary folder: the gateway's STARTTLS, the test identity provider's signing key.
 */
export function selfSignedCertificate(commonName: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-cert-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { dir, keyFile, certFile };
}
