import { randomBytes } from 'node:crypto';
import os from 'node:os';

/** A name for this process among the nodes of one database: the host (or `base`), the pid and a random suffix. */
export const nodeNameOf = (base: string = os.hostname()) =>
  `${base}:${process.pid}:${randomBytes(3).toString('hex')}`;

/** This process's name where none is configured (tests, the CLI). */
export const LOCAL_NODE = nodeNameOf();
