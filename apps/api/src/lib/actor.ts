/** Who did something, for the audit log. */
export interface Actor {
  type: 'user' | 'system' | 'cli' | 'anonymous';
  userId?: string | null;
  email?: string | null;
  ip?: string | null;
}

export const systemActor: Actor = { type: 'system' };
export const cliActor: Actor = { type: 'cli' };
