import { randomBytes } from 'node:crypto';
import { packageOnFirstUse } from './on-first-use.ts';

/** The native argon2 binding, loaded with the first password hashed or checked (issue 14). */
const argon2 = packageOnFirstUse<typeof import('@node-rs/argon2')>('@node-rs/argon2');

/** `Algorithm.Argon2id` of @node-rs/argon2 (an ambient const enum, so spelled out here). */
const ARGON2ID = 2;

/** argon2id with the OWASP-recommended minimum: m = 19 MiB, t = 2, p = 1. */
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  const { verify } = await argon2();
  return verify(passwordHash, password).catch(() => false);
}

/** A random password of 24 URL-safe characters (144 bits). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
