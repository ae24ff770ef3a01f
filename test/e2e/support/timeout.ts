/**
 * The e2e project's per-test timeout (120 s: each test drives the whole stack in separate processes). Jest reads
 * `testTimeout` only from the global configuration, not from a project, so the project sets it here
 * (`setupFilesAfterEnv` in jest.config.js).
 */
jest.setTimeout(120_000);
