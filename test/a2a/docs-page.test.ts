/** /docs: Swagger UI over /openapi.json, every asset served by the gateway itself (it works offline). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBed, type TestBed } from '../support/gateway.ts';

describe('/docs', () => {
  let bed: TestBed;
  beforeAll(async () => {
    bed = await startTestBed();
  });
  afterAll(() => bed.close());

  it('is a page whose scripts and styles all come from the gateway, reading the gateway’s OpenAPI document', async () => {
    const page = await fetch(`${bed.gateway.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(references.sort()).toEqual([
      '/docs/assets/init.js',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
    ]);
    expect(html).not.toMatch(/<script>/);

    const bundle = await fetch(`${bed.gateway.url}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await bundle.text()).toContain('SwaggerUIBundle');
    const css = await fetch(`${bed.gateway.url}/docs/assets/swagger-ui.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await css.text()).length).toBeGreaterThan(10_000);
    const init = await (await fetch(`${bed.gateway.url}/docs/assets/init.js`)).text();
    expect(init).toContain("url: '/openapi.json'");
    expect((await fetch(`${bed.gateway.url}/openapi.json`)).status).toBe(200);
  });

  it('serves no file of the package it does not name', async () => {
    for (const name of ['package.json', '..%2F..%2Fpackage.json', 'index.html']) {
      const response = await fetch(`${bed.gateway.url}/docs/assets/${name}`);
      expect(response.status, name).toBe(404);
    }
  });
});
