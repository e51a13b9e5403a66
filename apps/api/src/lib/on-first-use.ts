/**
 * A module loaded the first time it is needed, not when the server starts: the mail stack
 * (mailauth, mailparser, mailsplit) costs about half a CPU second to load, which a start that
 * answers `/healthz` and the sign-in page need not pay (issue 14).
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    // A failed load (out of file handles, say) is tried again next time, not remembered.
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}

/** Where scripts/run-server.mjs lends the compiled server its `import()` (import-package.mjs). */
export const LENT_IMPORT = Symbol.for('moat.importPackage');

/**
 * A package imported the first time it is needed. From the sources (tests, the CLI) this is the
 * module's own `import()`; the compiled server runs from V8's code cache, whose `import()` Node 20
 * cannot serve, so it uses the one scripts/run-server.mjs lends it.
 */
export function packageOnFirstUse<T>(specifier: string): () => Promise<T> {
  return onFirstUse(() => {
    const lent = (globalThis as { [LENT_IMPORT]?: (specifier: string) => Promise<unknown> })[LENT_IMPORT];
    return (lent ? lent(specifier) : import(specifier)) as Promise<T>;
  });
}
