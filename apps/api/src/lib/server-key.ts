import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The server's own secret (32 bytes): SECRET_KEY (hex or base64) or, by default,
 * DATA_DIR/secret.key created on first start with mode 0600. Every purpose gets its own
 * key derived with HKDF, so one purpose's key tells nothing about another's.
 */
export class ServerKey {
  private constructor(private readonly master: Buffer) {}

  static fromEnvOrFile(secretKey: string | undefined, dataDir: string): ServerKey {
    if (secretKey) {
      const raw = /^[0-9a-f]{64}$/i.test(secretKey)
        ? Buffer.from(secretKey, 'hex')
        : Buffer.from(secretKey, 'base64');
      if (raw.length < 32) throw new Error('SECRET_KEY must hold at least 32 bytes (64 hex characters)');
      return new ServerKey(raw);
    }
    const file = path.join(dataDir, 'secret.key');
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return new ServerKey(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex'));
  }

  /** For tests: a fixed or random key held in memory. */
  static inMemory(master: Buffer = randomBytes(32)): ServerKey {
    return new ServerKey(master);
  }

  derive(purpose: string, length = 32): Buffer {
    return Buffer.from(hkdfSync('sha256', this.master, Buffer.alloc(0), `moat:${purpose}`, length));
  }

  /** AES-256-GCM; the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  encrypt(purpose: string, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.derive(purpose), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  decrypt(purpose: string, sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.derive(purpose), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
