/**
 * The API docs page at /docs: Swagger UI over the gateway's own /openapi.json, its assets served from the
 * swagger-ui-dist package (no CDN: the page works on a machine without internet). The assets are read once, on the
 * first request for them, and cached by browsers for a day.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Hono } from 'hono';
import { gatewayErrorResponse } from './errors.ts';
import { respond } from './responses.ts';

export const DOCS_PATH = '/docs';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'init.js': 'text/javascript; charset=utf-8',
};

// No inline script, so a Content-Security-Policy of 'self' can stand in front of the page.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>logos-a2a API</title>
<link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/assets/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

const distDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

export function mountDocs(app: Hono): void {
  const cache = new Map<string, Buffer | string>();
  const asset = (name: string) => {
    let body = cache.get(name);
    if (body === undefined) {
      body = name === 'init.js' ? INIT : readFileSync(join(distDir(), name));
      cache.set(name, body);
    }
    return body;
  };
  app.get(DOCS_PATH, () => respond(PAGE, 200, { 'Content-Type': 'text/html; charset=utf-8' }));
  app.get(`${DOCS_PATH}/assets/:name`, (c) => {
    const name = c.req.param('name');
    const type = ASSETS[name];
    if (!type)
      return gatewayErrorResponse({
        kind: 'not-found',
        message: `No asset ${name}; the API docs are at ${DOCS_PATH}.`,
      });
    return respond(new Uint8Array(Buffer.from(asset(name))), 200, {
      'Content-Type': type,
      'Cache-Control': 'public, max-age=86400',
    });
  });
}
