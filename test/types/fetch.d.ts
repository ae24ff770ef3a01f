/**
 * Tests read JSON answers with `await res.json()` and assert on them; Node's fetch types say `Promise<unknown>`.
 * For test code only, answers are `any` (the assertions and the shared zod schemas check their shape).
 */
export {};

declare global {
  interface Response {
    // biome-ignore lint/suspicious/noExplicitAny: test-only convenience, see above
    json(): Promise<any>;
  }
}
