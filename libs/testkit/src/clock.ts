/** Every API jest's modern fake timers can replace, except `Date`. */
const realApis = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;

/**
 * Options for jest's modern fake timers that fake `Date` alone: `jest.useFakeTimers(fakeDateOnly)`. Timers, nextTick,
 * hrtime and performance stay real, so NATS, MongoDB, HTTP and `waitFor` keep working, while everything in the test
 * process (services started in-process included) reads the fake clock. It runs on with real time (`advanceTimers`)
 * and the test jumps it with `jest.setSystemTime(Date.now() + ms)`. Undo with `jest.useRealTimers()`.
 */
export const fakeDateOnly: { advanceTimers: true; doNotFake: Array<(typeof realApis)[number]> } = {
  advanceTimers: true,
  doNotFake: [...realApis],
};
