import { assertHierarchy, type HierarchyRequest, HttpProblem, newSnowflake } from '@guildhall/shared';
import { type Harness, startHarness } from './harness';

describe('community: RPC.hierarchy over NATS (assertHierarchy)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const ask = (request: Omit<HierarchyRequest, 'guild'>, timeoutMs = 5_000) =>
    assertHierarchy(h.peer, { guild: h.seed.id, ...request }, timeoutMs);
  /** The problem `ask` throws (fails the test when it resolves). */
  const refusal = async (request: Omit<HierarchyRequest, 'guild'>, timeoutMs?: number) => {
    const err = await ask(request, timeoutMs).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HttpProblem);
    return err as HttpProblem;
  };

  it('when a moderator acts on a support member or a non-member, then community allows it', async () => {
    const { moderator, support } = h.seed.ids;
    await expect(ask({ actor: moderator, target: support })).resolves.toBeUndefined();
    await expect(ask({ actor: moderator, target: newSnowflake() })).resolves.toBeUndefined();
  });

  it('when a support member acts on a moderator, then 403 hierarchy naming both roles', async () => {
    const err = await refusal({ actor: h.seed.ids.support, target: h.seed.ids.moderator });
    expect(err).toMatchObject({ status: 403, code: 'hierarchy' });
    expect(err.detail).toContain('"Support" (position 1)');
    expect(err.detail).toContain('"Moderator" (position 2)');
  });

  it('when a moderator acts on themselves, then 403 self; an Administrator on the owner, then 403 hierarchy', async () => {
    expect(await refusal({ actor: h.seed.ids.moderator, target: h.seed.ids.moderator })).toMatchObject({
      status: 403,
      code: 'self',
    });
    expect(await refusal({ actor: h.seed.ids.admin, target: h.seed.ids.owner })).toMatchObject({
      status: 403,
      code: 'hierarchy',
    });
  });

  it("when the owner times out the Administrator above the bot's role, then 403 naming the bot's role", async () => {
    const err = await refusal({ actor: h.seed.ids.owner, target: h.seed.ids.admin, action: 'timeout' });
    expect(err).toMatchObject({ status: 403, code: 'hierarchy' });
    expect(err.detail).toContain("bot's highest role");
  });

  it('when a moderator grants the Admin role, then 403 hierarchy; the Support role, then allowed', async () => {
    const err = await refusal({ actor: h.seed.ids.moderator, roles: [h.seed.ids.adminRole] });
    expect(err).toMatchObject({ status: 403, code: 'hierarchy' });
    expect(err.detail).toContain('"Admin"');
    await expect(ask({ actor: h.seed.ids.moderator, roles: [h.seed.ids.supportRole] })).resolves.toBeUndefined();
  });

  it('when a request is malformed, then 400 naming the field, never allowed; a null target counts as none', async () => {
    const bad = await refusal({ actor: 'me', target: h.seed.ids.member });
    expect(bad).toMatchObject({ status: 400 });
    expect(bad.detail).toContain('actor');
    const asked = { actor: h.seed.ids.moderator, target: null, roles: [h.seed.ids.supportRole] };
    await expect(ask(asked as unknown as Omit<HierarchyRequest, 'guild'>)).resolves.toBeUndefined();
  });

  it('when the platform refuses to read the target, then 503 peer_unavailable, never allowed', async () => {
    const target = newSnowflake();
    h.fake.failNext('GET', '/guilds/{guild_id}/members/{user_id}', {
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });
    expect(await refusal({ actor: h.seed.ids.owner, target })).toMatchObject({
      status: 503,
      code: 'peer_unavailable',
    });
  });

  it('when community does not answer, then 503 peer_unavailable, never allowed', async () => {
    await h.service.stop();
    const err = await refusal({ actor: h.seed.ids.owner, target: h.seed.ids.member }, 300);
    expect(err).toMatchObject({ status: 503, code: 'peer_unavailable' });
    expect(err.extras.retryAfter).toBeGreaterThan(0);
    expect(err.detail).toContain('rpc.community.hierarchy');
  });
});
