import { type Crash, crashPoints, dyingProcess } from '@guildhall/testkit';

describe('crash points', () => {
  it('lists a crash before and after every counted step, in order', () => {
    expect(crashPoints(2)).toEqual([
      { at: 1, after: false },
      { at: 1, after: true },
      { at: 2, after: false },
      { at: 2, after: true },
    ]);
    expect(crashPoints(0)).toEqual([]);
  });

  it('kills the process before or after the chosen step, and at every step after it', async () => {
    /** Runs steps a, b, c in a process that dies at `crash`: which steps were carried out, and whether it died. */
    const carriedOut = async (crash: Crash) => {
      const dying = dyingProcess(crash);
      const done: string[] = [];
      for (const name of ['a', 'b', 'c']) await dying.step(async () => done.push(name)).catch(() => undefined);
      return { done, dead: dying.dead(), calls: dying.calls() };
    };
    expect(await carriedOut({ at: 2, after: false })).toEqual({ done: ['a'], dead: true, calls: 2 });
    expect(await carriedOut({ at: 2, after: true })).toEqual({ done: ['a', 'b'], dead: true, calls: 2 });
  });
});
