import { createLogger, startPoller } from '@guildhall/shared';

/** A job whose runs end only when the test says so; counts the runs started. */
function controlledJob() {
  const state = { started: 0, finish: (): void => undefined };
  const job = () => {
    state.started += 1;
    return new Promise<void>((resolve) => {
      state.finish = resolve;
    });
  };
  return { state, job };
}

/** Lets the promise callbacks queued by a finished run settle (fake timers do not drive microtasks). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('startPoller', () => {
  const logger = createLogger('test', 'silent');
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('when a run outlasts many ticks, then those ticks are skipped and the next tick after it ends runs once', async () => {
    const { state, job } = controlledJob();
    const poller = startPoller('slow', 1_000, job, logger);
    jest.advanceTimersByTime(1_000);
    await settle();
    expect(state.started).toBe(1);
    jest.advanceTimersByTime(30_000);
    await settle();
    expect(state.started).toBe(1);
    state.finish();
    await settle();
    expect(state.started).toBe(1);
    jest.advanceTimersByTime(1_000);
    await settle();
    expect(state.started).toBe(2);
    state.finish();
    await settle();
    jest.advanceTimersByTime(1_000);
    await settle();
    expect(state.started).toBe(3);
    state.finish();
    await poller.stop();
    jest.advanceTimersByTime(5_000);
    await settle();
    expect(state.started).toBe(3);
  });

  it('when runNow is called many times during a run, then one follow-up run starts right after it ends', async () => {
    const { state, job } = controlledJob();
    const poller = startPoller('notified', 60_000, job, logger);
    const first = poller.runNow();
    const followUps = Array.from({ length: 10 }, () => poller.runNow());
    await settle();
    expect(state.started).toBe(1);
    state.finish();
    await first;
    await settle();
    expect(state.started).toBe(2);
    state.finish();
    await Promise.all(followUps);
    await settle();
    expect(state.started).toBe(2);
    await poller.stop();
  });

  it('when a run fails, then the next tick runs again', async () => {
    let runs = 0;
    const poller = startPoller(
      'failing',
      1_000,
      async () => {
        runs += 1;
        throw new Error('boom');
      },
      logger,
    );
    jest.advanceTimersByTime(1_000);
    await settle();
    jest.advanceTimersByTime(1_000);
    await settle();
    expect(runs).toBe(2);
    await poller.stop();
  });
});
