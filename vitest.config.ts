import { defineConfig } from 'vitest/config';

/**
 * Projects: contracts, api (on a fresh in-memory PGlite per test file), web. When
 * TEST_DATABASE_URL is set, the API suite runs a second time against that PostgreSQL server
 * (a fresh database per test file).
 */
export default defineConfig({
  test: {
    // Two test files at once on two cores (Vitest's default is one fewer than the cores): a file
    // spends much of its time waiting on its database, engines and sockets, not computing.
    maxWorkers: 2,
    projects: [
      'packages/contracts',
      'apps/api',
      'apps/web',
      ...(process.env.TEST_DATABASE_URL
        ? [
            {
              extends: './apps/api/vitest.config.ts',
              root: './apps/api',
              test: { name: 'api-postgres', env: { MOAT_TEST_DB: 'postgres' } },
            },
          ]
        : []),
    ],
  },
});
