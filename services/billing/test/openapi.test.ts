import { apiRoutes, buildOpenApiDocument } from '@guildhall/shared';

describe('billing routes in the OpenAPI document', () => {
  it('documents every billing route', () => {
    const doc = buildOpenApiDocument(apiRoutes, { version: 'test' }) as unknown as {
      paths: Record<string, Record<string, unknown>>;
    };
    const billing = apiRoutes.filter((r) => r.service === 'billing');
    expect(billing.length).toBeGreaterThanOrEqual(9);
    for (const route of billing) expect(doc.paths[route.path]?.[route.method]).toBeDefined();
  });
});
