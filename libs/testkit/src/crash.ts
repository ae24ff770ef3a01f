/** Where a simulated crash happens: at the `at`-th counted step, before it or `after` it is carried out. */
export interface Crash {
  at: number;
  after: boolean;
}

/** A process that dies at a chosen step (see `dyingProcess`). */
export interface DyingProcess {
  /** Runs one counted step (a platform call, an emit); throws "process died" at the crash and after it. */
  step<T>(run: () => Promise<T>): Promise<T>;
  /** `target` (e.g. a platform client) with every method of its members named in `groups` run as a step. */
  wrap<T extends object>(target: T, groups: readonly string[]): T;
  /** Whether the process died: a later write of the test's choosing should throw too. */
  dead(): boolean;
  /** How many steps were counted. */
  calls(): number;
}

/**
 * A process for redelivery tests that dies at `crash` (null: never): the `crash.at`-th step throws "process died"
 * before it runs (or, with `after`, once it was carried out), and so does every step after it, as nothing runs in a
 * killed process. Steps are counted, so a clean run tells how many crash points there are.
 */
export function dyingProcess(crash: Crash | null): DyingProcess {
  let count = 0;
  let dead = false;
  const step = async <T>(run: () => Promise<T>): Promise<T> => {
    if (dead) throw new Error('process died');
    count++;
    const dies = crash?.at === count;
    if (dies && !crash.after) dead = true;
    if (dead) throw new Error('process died');
    const result = await run();
    if (dies) {
      dead = true;
      throw new Error('process died');
    }
    return result;
  };
  const group = (target: object) =>
    new Proxy(target, {
      get: (obj, prop) => {
        const value = Reflect.get(obj, prop);
        return typeof value === 'function' ? (...args: unknown[]) => step(() => value.apply(obj, args)) : value;
      },
    });
  const wrap = <T extends object>(target: T, groups: readonly string[]): T =>
    new Proxy(target, {
      get: (obj, prop) => {
        const value: unknown = Reflect.get(obj, prop);
        return groups.includes(String(prop)) ? group(value as object) : value;
      },
    });
  return { step, wrap, dead: () => dead, calls: () => count };
}

/**
 * Every crash point of a run that made `calls` counted steps (see `DyingProcess.calls`): before and after each step,
 * in order (`{at: 1, after: false}`, `{at: 1, after: true}`, `{at: 2, after: false}`, ...).
 */
export function crashPoints(calls: number): Crash[] {
  return Array.from({ length: calls }, (_, i) => [false, true].map((after) => ({ at: i + 1, after }))).flat();
}
