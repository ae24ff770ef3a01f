/**
 * Jest runs TypeScript through @swc/jest (type checks are `tsc -b`, run by `npm test` first).
 * jose is ESM-only, so it is transformed too. Workspace imports resolve to their sources.
 * Projects: `unit` (every workspace's test/ folder), `e2e` (test/e2e: separate processes),
 * `faults` (test/faults: kill -9 and restarts), `browser` (test/browser: the dashboard in Debian's Chromium).
 * `npm test` runs `unit` on two workers, then the three system projects in band (see the README's "Test it").
 */
const swc = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': swc, '^.+\\.m?js$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(jose)/)'],
  moduleNameMapper: {
    '^@guildhall/shared$': '<rootDir>/libs/shared/src/index.ts',
    '^@guildhall/platform-simulator$': '<rootDir>/libs/platform-simulator/src/index.ts',
    '^@guildhall/testkit$': '<rootDir>/libs/testkit/src/index.ts',
    '^@guildhall/bridge$': '<rootDir>/services/bridge/src/index.ts',
    '^@guildhall/embedded-mongo$': '<rootDir>/libs/embedded-mongo/src/index.ts',
  },
};
module.exports = {
  testTimeout: 30000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/*/test/**/*.test.ts',
        '<rootDir>/services/*/test/**/*.test.ts',
        '<rootDir>/test/deploy/**/*.test.ts',
        '<rootDir>/test/containers/**/*.test.ts',
      ],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/e2e/support/timeout.ts'],
    },
    { ...common, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.test.ts'] },
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'], testTimeout: 60000 },
  ],
};
