import { apiRoutes, buildOpenApiDocument, routeStatuses } from '@guildhall/shared';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

describe('OpenAPI document statuses', () => {
  const doc = buildOpenApiDocument(apiRoutes, { version: 'test' }) as unknown as Doc;
  const declared = (id: string) => {
    const route = apiRoutes.find((r) => r.id === id);
    if (!route) throw new Error(`no route ${id}`);
    return Object.keys(doc.paths[route.path]?.[route.method]?.responses ?? {}).map(Number);
  };

  it("declares, for every route, its success status and every status of the route table's errors", () => {
    for (const route of apiRoutes) {
      const responses = declared(route.id);
      expect([route.id, responses]).toEqual([route.id, [route.success.status, ...routeStatuses(route)].sort()]);
      for (const status of route.errors)
        expect([route.id, responses]).toEqual([route.id, expect.arrayContaining([status])]);
    }
  });

  it('declares what the layers in front of every route answer (seen missing before)', () => {
    expect(declared('getMemberRecord')).toEqual(expect.arrayContaining([400, 401, 403, 404, 429, 503]));
    expect(declared('createAppeal')).toEqual(expect.arrayContaining([400, 401, 403, 404, 409, 413]));
    const noQuery = apiRoutes.filter((r) => r.method === 'get' && !r.query);
    expect(noQuery.length).toBeGreaterThan(0);
    for (const route of noQuery) expect(declared(route.id)).toContain(400);
  });
});
