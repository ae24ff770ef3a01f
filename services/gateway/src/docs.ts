import { dirname } from 'node:path';
import { type ApiRoute, buildOpenApiDocument } from '@guildhall/shared';
import express, { type Request, type Response, Router } from 'express';
import { registerAuthPaths } from './auth/authOpenApi';

const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Guildhall API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

const init = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  withCredentials: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

/**
 * The API's documentation, offline: `GET /api/openapi.json` (OpenAPI 3.1 of every contract route plus `/auth`,
 * built once from the zod schemas), `GET /api/docs` (Swagger UI page) with its assets served from the installed
 * `swagger-ui-dist` under `/api/docs/assets/` and its start script at `/api/docs/init.js` (no inline script, so
 * the default helmet CSP `script-src 'self'` allows it).
 */
export function docsRouter(routes: ApiRoute[], version: string): Router {
  const document = buildOpenApiDocument(routes, { version }, registerAuthPaths);
  const json = JSON.stringify(document);
  const router = Router();
  router.get('/api/openapi.json', (_req: Request, res: Response) => {
    res.type('application/json').send(json);
  });
  router.get(['/api/docs', '/api/docs/'], (_req: Request, res: Response) => {
    res.type('html').send(page);
  });
  router.get('/api/docs/init.js', (_req: Request, res: Response) => {
    res.type('application/javascript').send(init);
  });
  router.use('/api/docs/assets', express.static(swaggerDir, { index: false, maxAge: '1d', fallthrough: false }));
  return router;
}
