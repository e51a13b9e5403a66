/**
 * The directory of the compiled server (scripts/build-server.mjs replaces this module there), or
 * null when the server runs from its TypeScript sources (tests, the CLI).
 */
export const compiledDir: string | null = null;
