/**
 * The directory page (GET / for browsers), rendered for three agents (one priced and verified, one with a hostile
 * card, one offline) by a small Hono app on a real HTTP server, checked in headless Chromium: content, escaping,
 * no horizontal overflow at 360 px and 1280 px, basic accessibility, the search form; screenshots go to a temp dir.
 * Also: the page's curl example, run as printed by a shell, completes a task on a real gateway.
 *
 * Needs Chromium at /usr/bin/chromium (Debian: apt-get install -y chromium; CHROMIUM_PATH overrides); without it the
 * browser checks are skipped.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentsIndex } from '../../src/a2a/agents-index.ts';
import {
  curlExample,
  directoryPage,
  directoryPageHeaders,
  formatPrice,
  prefersHtml,
  renderDirectoryPage,
} from '../../src/a2a/directory-page.ts';
import { minimalCard } from '../support/cards.ts';
import { AgentDirectory } from '../../src/logos/directory.ts';
import { startTestBed } from '../support/gateway.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const HAVE_CURL = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!HAVE_CHROMIUM)
  console.warn(
    `directory-page: ${CHROMIUM} not found, so the browser checks are SKIPPED. Install it with: apt-get install -y chromium`,
  );

const HOSTILE_NAME = '<script>alert(1)</script>';
const HOSTILE_DESCRIPTION = `"><img src=x onerror="window.__pwned=1"></code></pre> & a very long word: ${'Supercalifragilistic'.repeat(5)}`;

function threeAgents(): AgentDirectory {
  const directory = new AgentDirectory();
  const seen = new Date('2026-05-01T12:34:56.000Z');
  directory.register(
    minimalCard({
      id: 'alpha',
      name: 'Polyglot',
      description: 'Translates text between forty languages and detects which one it was given.',
      'x-lez-price': '1000000',
      'x-lez-identity': { account_id: '6iArKUXxhUJqS7kCaPNhwMWt3ro71PDyBj7jwAyE2VQV' },
      skills: [
        { id: 'translate', name: 'Translate text', description: '', tags: ['language', 'text'], 'x-lez-price': '250' },
        { id: 'detect', name: 'Detect language', description: '', tags: ['language'] },
      ],
    }),
    seen,
  );
  directory.register(
    minimalCard({
      id: 'hostile',
      name: HOSTILE_NAME,
      description: HOSTILE_DESCRIPTION,
      'x-lez-identity': { account_id: 'Z'.repeat(64) },
      skills: [
        { id: "it's", name: '<b>bold</b> skill', description: '', tags: ['<i>tag</i>', `${'long-tag-'.repeat(8)}end`] },
      ],
    }),
    seen,
  );
  directory.register(
    minimalCard({
      id: 'zeta',
      name: 'Zeta',
      description: 'Sleeps a lot.',
      skills: [{ id: 'nap', name: 'Nap', description: '', tags: ['rest'] }],
    }),
    seen,
  );
  return directory;
}

const run = promisify(execFile);

/** Each browser check is skipped, saying why, where Chromium is not installed. */
const browserIt = it.skipIf(!HAVE_CHROMIUM);
const BROWSER_SUITE = HAVE_CHROMIUM
  ? 'directory page in headless Chromium'
  : `directory page in headless Chromium: SKIPPED, no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;

describe(BROWSER_SUITE, () => {
  const directory = threeAgents();
  let server: ServerType;
  let base = '';
  let context: BrowserContext;
  let profile = '';
  let page: Page;
  let shots = '';
  const dialogs: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return;
    shots = mkdtempSync(join(tmpdir(), 'directory-page-shots-'));
    const app = new Hono();
    app.get('/', (c) => {
      const { status, html } = renderDirectoryPage(directory, {
        publicBaseUrl: base,
        query: new URL(c.req.url).searchParams,
        isOnline: (id) => id !== 'zeta',
        verifiedAt: (id) => (id === 'alpha' ? '2026-05-01T12:35:00.000Z' : undefined),
      });
      return new Response(html, { status, headers: directoryPageHeaders(base) });
    });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    profile = mkdtempSync(join(tmpdir(), 'directory-page-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    console.log(`directory-page: screenshots in ${shots}`);
  }, 60_000);

  afterAll(async () => {
    if (!HAVE_CHROMIUM) return;
    await context?.close();
    await new Promise((resolve) => server?.close(resolve));
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const open = async (path = '/') => {
    const response = await page.goto(`${base}${path}`);
    return response!;
  };

  browserIt('lists each agent with its badge, status, prices, tags, card link and curl example', async () => {
    const response = await open();
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toMatch(/^text\/html/);
    const agents = page.locator('article.agent');
    await expect(agents.count()).resolves.toBe(3);
    expect(await page.locator('article.agent h3').allTextContents()).toEqual(['Polyglot', HOSTILE_NAME, 'Zeta']);

    const alpha = page.locator('article.agent', { has: page.locator('h3', { hasText: 'Polyglot' }) });
    expect(await page.locator('.badge.verified').count()).toBe(1);
    expect(await alpha.locator('.badge.verified').textContent()).toBe('✓ Verified');
    expect(await alpha.locator('.badge.online').isVisible()).toBe(true);
    expect(await alpha.locator('.skills li').allTextContents()).toEqual([
      'Translate text 250 LEZ base units',
      'Detect language 1,000,000 LEZ base units',
    ]);
    expect(await alpha.locator('.tags li').allTextContents()).toEqual(['language', 'text']);
    expect(await alpha.getByRole('link', { name: 'Agent card of Polyglot' }).getAttribute('href')).toBe(
      `${base}/agents/alpha/.well-known/agent-card.json`,
    );
    const curl = await alpha.locator('pre.curl code').textContent();
    expect(curl).toBe(curlExample(`${base}/agents/alpha`));
    expect(curl).toContain(`curl -s '${base}/agents/alpha' \\`);
    expect(curl).toContain(`-H 'Content-Type: application/json'`);
    expect(curl).toContain(`-H 'A2A-Version: 1.0'`);
    expect(curl).toContain(`"method": "SendMessage"`);

    const zeta = page.locator('article.agent', { has: page.locator('h3', { hasText: 'Zeta' }) });
    expect(await zeta.locator('.badge').allTextContents()).toEqual(['○ Offline']);
    expect(await zeta.locator('.price').allTextContents()).toEqual(['free']);
  });

  browserIt('renders everything from a hostile card as text: no script, no image, no dialog', async () => {
    await open();
    const hostile = page.locator('article.agent').nth(1);
    expect(await hostile.locator('h3').textContent()).toBe(HOSTILE_NAME);
    expect(await hostile.locator('.description').textContent()).toBe(HOSTILE_DESCRIPTION);
    expect(await hostile.locator('.skill-name').textContent()).toBe('<b>bold</b> skill');
    expect(await hostile.locator('.tags li').first().textContent()).toBe('<i>tag</i>');
    expect(await hostile.locator('pre.curl').getAttribute('aria-label')).toBe(`curl example for ${HOSTILE_NAME}`);
    const counts = await page.evaluate(() => ({
      scripts: document.querySelectorAll('script').length,
      images: document.querySelectorAll('img').length,
      bold: document.querySelectorAll('main b, main i').length,
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? 0,
    }));
    expect(counts).toEqual({ scripts: 0, images: 0, bold: 0, pwned: 0 });
    expect(dialogs).toEqual([]);
  });

  browserIt('its Content-Security-Policy lets the inline style apply and blocks nothing the page uses', async () => {
    const response = await open();
    expect(response.headers()['content-security-policy']).toMatch(/default-src 'none'; style-src 'sha256-/);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('header')!).backgroundColor)).toBe(
      'rgb(20, 33, 61)',
    );
    expect(consoleErrors).toEqual([]);
  });

  for (const width of [360, 1280]) {
    browserIt(`nothing is wider than the viewport at ${width} px (screenshot taken)`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await open();
      const layout = await page.evaluate(() => {
        const root = document.documentElement;
        const viewport = root.clientWidth;
        const offenders: string[] = [];
        for (const element of document.body.querySelectorAll('*')) {
          // Content of a scroll container (the curl block) is clipped by its box, which is checked itself.
          let clipped = false;
          for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
            if (getComputedStyle(parent).overflowX !== 'visible') clipped = true;
          }
          if (clipped) continue;
          const box = element.getBoundingClientRect();
          if (box.width === 0 && box.height === 0) continue;
          if (box.right > viewport + 0.5 || box.left < -0.5)
            offenders.push(
              `${element.tagName.toLowerCase()}.${element.className} ${Math.round(box.left)}..${Math.round(box.right)}`,
            );
        }
        return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, offenders };
      });
      expect(layout.clientWidth).toBe(width);
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
      expect(layout.offenders).toEqual([]);
      const file = join(shots, `directory-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      expect(statSync(file).size).toBeGreaterThan(10_000);
      await page.setViewportSize({ width: 1280, height: 900 });
    });
  }

  browserIt(
    'is structured for assistive technology: lang, landmarks, headings in order, labelled fields, visible focus',
    async () => {
      await open();
      const structure = await page.evaluate(() => ({
        lang: document.documentElement.lang,
        title: document.title,
        landmarks: ['header', 'main', 'footer', 'form[role=search]', 'nav'].map(
          (selector) => document.querySelectorAll(selector).length,
        ),
        headings: [...document.querySelectorAll('h1,h2,h3,h4,h5,h6')].map((h) => Number(h.tagName[1])),
        unlabelled: [...document.querySelectorAll('input,select,textarea')].filter(
          (field) => (field as HTMLInputElement).labels?.length === 0,
        ).length,
      }));
      expect(structure.lang).toBe('en');
      expect(structure.title).toMatch(/agents/i);
      expect(structure.landmarks.slice(0, 4)).toEqual([1, 1, 1, 1]);
      expect(structure.headings[0]).toBe(1);
      expect(structure.headings.filter((level) => level === 1)).toHaveLength(1);
      structure.headings.forEach(
        (level, i) => i > 0 && expect(level - structure.headings[i - 1]!).toBeLessThanOrEqual(1),
      );
      expect(structure.unlabelled).toBe(0);

      // Every piece of text against its actual background: at least 4.5:1 (WCAG AA for body text).
      const lowContrast = await page.evaluate(() => {
        const rgb = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
        const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
          const [R, G, B] = [r, g, b].map((v) =>
            v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4,
          );
          return 0.2126 * R! + 0.7152 * G! + 0.0722 * B!;
        };
        const background = (element: Element | null): number[] => {
          for (let e = element; e; e = e.parentElement) {
            const color = rgb(getComputedStyle(e).backgroundColor);
            if (color.length === 3 || (color.length === 4 && color[3]! > 0)) return color.slice(0, 3);
          }
          return [255, 255, 255];
        };
        const failures: string[] = [];
        for (const element of document.body.querySelectorAll('*')) {
          const hasText = [...element.childNodes].some(
            (node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim() !== '',
          );
          const box = element.getBoundingClientRect();
          if (!hasText || box.width <= 1 || box.height <= 1) continue;
          const fg = luminance(rgb(getComputedStyle(element).color));
          const bg = luminance(background(element));
          const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
          if (ratio < 4.5) failures.push(`${element.tagName.toLowerCase()}.${element.className}: ${ratio.toFixed(2)}`);
        }
        return failures;
      });
      expect(lowContrast).toEqual([]);

      // The first Tab lands on the skip link, which then shows with an outline.
      await page.keyboard.press('Tab');
      const focus = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        const style = getComputedStyle(element);
        return {
          text: element.textContent,
          top: element.getBoundingClientRect().top,
          outline: style.outlineStyle,
          width: style.outlineWidth,
        };
      });
      expect(focus).toMatchObject({ text: 'Skip to the agents', outline: 'solid', width: '3px' });
      expect(focus.top).toBeGreaterThanOrEqual(0);
      // Tab on into the search field: focused, outlined.
      await page.getByLabel('Text', { exact: true }).focus();
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    },
  );

  browserIt('the search form filters with the index filters, and a bad filter says so', async () => {
    await open();
    await page.getByLabel('Text', { exact: true }).fill('POLY');
    await Promise.all([page.waitForURL(/text=POLY/), page.getByRole('button', { name: 'Search' }).click()]);
    expect(await page.locator('article.agent h3').allTextContents()).toEqual(['Polyglot']);
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).toBe('POLY');
    expect(await page.locator('.count').textContent()).toBe('1 agent match these filters.');

    await open('/?online=false');
    expect(await page.locator('article.agent h3').allTextContents()).toEqual(['Zeta']);
    expect(await page.getByLabel('Status').inputValue()).toBe('false');

    await open('/?maxPrice=300');
    expect(await page.locator('article.agent h3').allTextContents()).toEqual(['Polyglot', HOSTILE_NAME, 'Zeta']);
    await open('/?maxPrice=0&tag=language');
    expect(await page.locator('article.agent').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Show every agent' }).count()).toBe(1);

    const bad = await open('/?maxPrice=cheap');
    expect(bad.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toMatch(/maxPrice/);
    expect(await page.locator('article.agent').count()).toBe(3);
  });

  browserIt('pages with a next link that keeps the filters', async () => {
    await open('/?pageSize=1&online=true');
    expect(await page.locator('article.agent h3').allTextContents()).toEqual(['Polyglot']);
    await Promise.all([page.waitForURL(/pageToken=/), page.getByRole('link', { name: 'Next page' }).click()]);
    expect(await page.locator('article.agent h3').allTextContents()).toEqual([HOSTILE_NAME]);
    expect(new URL(page.url()).searchParams.get('online')).toBe('true');
    // The last page has no next link.
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await open('/?pageSize=2');
    await Promise.all([page.waitForURL(/pageToken=/), page.getByRole('link', { name: 'Next page' }).click()]);
    expect(await page.locator('article.agent h3').allTextContents()).toEqual(['Zeta']);
  });
});

describe('directory page HTML (no browser needed)', () => {
  it('escapes every card value', () => {
    const index = agentsIndex(threeAgents(), { publicBaseUrl: 'https://gw.example', query: {} });
    if (!index.ok) throw new Error(index.message);
    const html = directoryPage(index.body, { publicBaseUrl: 'https://gw.example' });
    expect(html).not.toMatch(/<script|<img|<b>|<i>/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain(
      '&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;&lt;/code&gt;&lt;/pre&gt; &amp; a very long word',
    );
    expect(html).toContain('aria-label="curl example for &lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
  });

  it('a bad filter renders every agent with the reason, as a 400', () => {
    const { status, html } = renderDirectoryPage(threeAgents(), {
      publicBaseUrl: 'https://gw.example',
      query: { online: 'maybe' },
    });
    expect(status).toBe(400);
    expect(html).toMatch(
      /role="alert"><strong>Not applied:<\/strong> Bad query parameter &quot;online&quot;: true or false\.</,
    );
    expect(html.match(/<article /g)).toHaveLength(3);
  });

  it('prices read "free" for 0, else grouped base units', () => {
    expect([formatPrice('0'), formatPrice('1'), formatPrice('250'), formatPrice('1000000')]).toEqual([
      'free',
      '1 LEZ base unit',
      '250 LEZ base units',
      '1,000,000 LEZ base units',
    ]);
  });

  it('browsers get the page, API clients do not', () => {
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8')).toBe(
      true,
    );
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('text/html;q=0')).toBe(false);
  });

  it('page headers: HTML, Vary: Accept, a CSP that allows the form to post to the public origin only', () => {
    const headers = directoryPageHeaders('https://gw.example/a2a');
    expect(headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(headers.Vary).toBe('Accept');
    expect(headers['Content-Security-Policy']).toMatch(/form-action 'self' https:\/\/gw\.example;/);
  });
});

describe.skipIf(!HAVE_CURL)('the curl example', () => {
  it('runs as printed and completes a task on a real gateway', async () => {
    const bed = await startTestBed();
    try {
      const index = agentsIndex(bed.gateway.directory, { publicBaseUrl: bed.gateway.url, query: {} });
      if (!index.ok) throw new Error(index.message);
      const html = directoryPage(index.body, { publicBaseUrl: bed.gateway.url });
      const echo = index.body.agents.find((agent) => agent.id === 'echo')!;
      // The command as a reader copies it off the page: the <code> text, entities decoded.
      const blocks = [...html.matchAll(/<pre class="curl"[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) =>
        decodeEntities(m[1]!),
      );
      const command = blocks.find((block) => block.includes(`${echo.url}'`))!;
      expect(command).toBeDefined();
      const { stdout } = await run('sh', ['-c', command], { timeout: 15_000 });
      const answer = JSON.parse(stdout);
      expect(answer.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(JSON.stringify(answer.result.task.artifacts)).toContain('hello');
    } finally {
      await bed.close();
    }
  });
});

function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!,
  );
}
