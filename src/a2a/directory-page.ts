/**
 * `GET /` for browsers: the agent directory as one server-rendered HTML5 page. It shows the same data as the
 * `GET /agents` index (agents-index.ts) and its search form sends the index's filters (`/?text=…&skill=…`), so a
 * filtered page and a filtered index always agree.
 *
 * No JavaScript, no external assets, inline CSS only. Everything taken from an agent card (names, descriptions,
 * skills, tags, ids, accounts) comes from the network and is HTML-escaped; the page puts no card-supplied URL in an
 * href (only the gateway's own URLs), so a card cannot smuggle a `javascript:` link either.
 */
import { createHash } from 'node:crypto';
import { AI_CATALOG_MEDIA_TYPE, AI_CATALOG_PATH } from './ai-catalog.ts';
import {
  agentsIndex,
  parseIndexQuery,
  type AgentsIndex,
  type AgentsIndexOptions,
  type IndexAgent,
  type IndexedDirectory,
  type IndexFilters,
} from './agents-index.ts';

export interface DirectoryPageOptions {
  /** The gateway's public base URL (a trailing slash is ignored): the form posts to it, links start with it. */
  publicBaseUrl: string;
  /** The filters in force, shown back in the search form and kept in the next-page link. */
  filters?: Partial<IndexFilters>;
  /** A message about the request (a bad filter), shown above the list. */
  error?: string;
}

/** The page for one page of the index. */
export function directoryPage(index: AgentsIndex, options: DirectoryPageOptions): string {
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  const filters = options.filters ?? {};
  const filtered = [filters.skill, filters.tag, filters.text, filters.maxPrice, filters.online].some(
    (value) => value !== undefined,
  );
  const count = `${index.totalSize} ${index.totalSize === 1 ? 'agent' : 'agents'}${filtered ? ' match these filters' : ''}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Logos agents · A2A gateway</title>
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#agents">Skip to the agents</a>
<header class="top">
<div class="wrap">
<h1>Logos agents</h1>
<p>AI agents on the Logos network, each served here as an ordinary <abbr title="Agent2Agent">A2A</abbr> v1.0 agent
(JSON-RPC and HTTP+JSON) at <code>${escapeHtml(base)}/agents/<var>id</var></code>. Any A2A client can call them; prices are
per task, in LEZ base units, paid by this gateway.</p>
</div>
</header>
<main class="wrap">
${searchForm(base, filters)}
<section id="agents" aria-labelledby="agents-heading">
<h2 id="agents-heading">Agents</h2>
${options.error ? `<p class="error" role="alert"><strong>Not applied:</strong> ${escapeHtml(options.error)}</p>` : ''}
<p class="count">${escapeHtml(count)}${index.agents.length < index.totalSize ? `, showing ${index.agents.length}` : ''}.</p>
${index.agents.length === 0 ? `<p>${filtered ? 'No agent matches these filters. <a href="' + escapeHtml(`${base}/`) + '">Show every agent</a>.' : 'No agents have joined yet.'}</p>` : `<ul class="agents">\n${index.agents.map((agent) => agentCard(agent)).join('\n')}\n</ul>`}
${index.nextPageToken ? pager(base, filters, index.nextPageToken) : ''}
</section>
</main>
<footer class="wrap foot">
<p>Machine-readable: <a href="${escapeHtml(`${base}/agents`)}">the agent index (JSON)</a> · <a href="${escapeHtml(`${base}/openapi.json`)}">OpenAPI</a> · each agent's card at <code>/agents/<var>id</var>/.well-known/agent-card.json</code>.</p>
</footer>
</body>
</html>
`;
}

/**
 * Everything `GET /` needs for a browser: the filters from the query, the index, the page. A bad filter gives a 400
 * whose page says what was wrong and lists every agent.
 */
export function renderDirectoryPage(
  directory: IndexedDirectory,
  options: AgentsIndexOptions,
): { status: 200 | 400; html: string } {
  const index = agentsIndex(directory, options);
  if (index.ok) {
    const parsed = parseIndexQuery(options.query);
    const filters = parsed.ok ? parsed.filters : undefined;
    return {
      status: 200,
      html: directoryPage(index.body, { publicBaseUrl: options.publicBaseUrl, ...(filters ? { filters } : {}) }),
    };
  }
  const all = agentsIndex(directory, { ...options, query: {} });
  const body = all.ok ? all.body : { agents: [], nextPageToken: '', totalSize: 0, pageSize: 0 };
  return { status: 400, html: directoryPage(body, { publicBaseUrl: options.publicBaseUrl, error: index.message }) };
}

/**
 * Headers for the page (add the CORS ones through `respond`): HTML, not cached stale, and a Content-Security-Policy
 * that allows nothing but the page's own inline style (by hash) and its search form: even an escaping bug could not
 * run a script, load an image or send the page elsewhere.
 */
export function directoryPageHeaders(publicBaseUrl: string): Record<string, string> {
  let formTarget = "'self'";
  try {
    formTarget = `'self' ${new URL(publicBaseUrl).origin}`;
  } catch {
    // Not a URL: the form posts to this origin only.
  }
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-cache',
    Vary: 'Accept',
    'Content-Security-Policy': `default-src 'none'; style-src '${STYLE_HASH}'; form-action ${formTarget}; base-uri 'none'; frame-ancestors 'none'`,
    'X-Content-Type-Options': 'nosniff',
    // Where crawlers find the agents in a machine-readable form (the AI Catalog's link relation).
    Link: `<${AI_CATALOG_PATH}>; rel="ai-catalog"; type="${AI_CATALOG_MEDIA_TYPE}"`,
    'Referrer-Policy': 'no-referrer',
  };
}

/** True when the Accept header ranks text/html at least as high as JSON (browsers do; API clients do not). */
export function prefersHtml(accept: string | null | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    if (!Number.isFinite(weight)) continue;
    const name = type.trim();
    if (name === 'text/html' || name === 'application/xhtml+xml') html = Math.max(html, weight);
    if (name === 'application/json') json = Math.max(json, weight);
  }
  return html > 0 && html >= json;
}

function agentCard(agent: IndexAgent): string {
  const id = `agent-${agent.id}`;
  return `<li>
<article class="agent" aria-labelledby="${escapeHtml(id)}">
<div class="agent-head">
<h3 id="${escapeHtml(id)}">${escapeHtml(agent.name)}</h3>
<p class="badges">${agent.verified ? '<span class="badge verified"><span aria-hidden="true">✓ </span>Verified</span>' : ''}${
    agent.unverified
      ? '<span class="badge unverified" title="No documented rule checks this card\'s signature"><span aria-hidden="true">! </span>Unverified</span>'
      : ''
  }${
    agent.online
      ? '<span class="badge online"><span aria-hidden="true">● </span>Online</span>'
      : '<span class="badge offline"><span aria-hidden="true">○ </span>Offline</span>'
  }</p>
</div>
${agent.description ? `<p class="description">${escapeHtml(agent.description)}</p>` : ''}
<dl class="facts">
<div><dt>Id</dt><dd><code>${escapeHtml(agent.id)}</code></dd></div>
${agent.account ? `<div><dt>LEZ account</dt><dd><code>${escapeHtml(agent.account)}</code></dd></div>` : ''}
${agent.lastSeen ? `<div><dt>Last seen</dt><dd><time datetime="${escapeHtml(agent.lastSeen)}">${escapeHtml(formatTime(agent.lastSeen))}</time></dd></div>` : ''}
</dl>
<h4>Skills</h4>
<ul class="skills">
${agent.skills
  .map(
    (skill) =>
      `<li><span class="skill-name">${escapeHtml(skill.name)}</span> <span class="price${skill.price === '0' ? ' free' : ''}">${escapeHtml(formatPrice(skill.price))}</span></li>`,
  )
  .join('\n')}
</ul>
${
  agent.tags.length
    ? `<h4 class="visually-hidden">Tags</h4>\n<ul class="tags">${agent.tags.map((tag) => `<li>${escapeHtml(tag)}</li>`).join('')}</ul>`
    : ''
}
<p class="links"><a href="${escapeHtml(agent.cardUrl)}">Agent card<span class="visually-hidden"> of ${escapeHtml(agent.name)}</span></a> <span class="muted">(<a href="${escapeHtml(`${agent.cardUrl}?v=0.3`)}">v0.3<span class="visually-hidden"> card of ${escapeHtml(agent.name)}</span></a>)</span></p>
<h4>Try it</h4>
<pre class="curl" tabindex="0" role="region" aria-label="${escapeHtml(`curl example for ${agent.name}`)}"><code>${escapeHtml(curlExample(agent.url))}</code></pre>
</article>
</li>`;
}

/**
 * A blocking SendMessage to the agent's JSON-RPC endpoint, as one shell command that runs as printed (the JSON is
 * split over lines inside the single quotes, which JSON allows). The text goes to the agent's first skill.
 */
export function curlExample(url: string): string {
  return [
    `curl -s ${shellQuote(url)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H 'A2A-Version: 1.0' \\`,
    `  -d '{"jsonrpc": "2.0", "id": 1,`,
    `      "method": "SendMessage",`,
    `      "params": {"message": {`,
    `        "messageId": "m1", "role": "ROLE_USER",`,
    `        "parts": [{"text": "hello"}]}}}'`,
  ].join('\n');
}

function searchForm(base: string, filters: Partial<IndexFilters>): string {
  const field = (name: string, label: string, value: string | undefined, extra = '') =>
    `<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="text" value="${escapeHtml(value ?? '')}"${extra}></div>`;
  const online = filters.online === undefined ? '' : String(filters.online);
  const option = (value: string, label: string) =>
    `<option value="${value}"${online === value ? ' selected' : ''}>${label}</option>`;
  return `<section aria-labelledby="search-heading" class="search">
<h2 id="search-heading">Find an agent</h2>
<form method="get" action="${escapeHtml(`${base}/`)}" role="search" aria-labelledby="search-heading">
<div class="fields">
${field('text', 'Text', filters.text, ' autocomplete="off" aria-describedby="f-text-hint"')}
${field('skill', 'Skill id', filters.skill, ' autocomplete="off" spellcheck="false"')}
${field('tag', 'Tag', filters.tag, ' autocomplete="off"')}
${field('maxPrice', 'Max price', filters.maxPrice, ' inputmode="numeric" pattern="[0-9]*" autocomplete="off" aria-describedby="f-maxPrice-hint"')}
<div class="field"><label for="f-online">Status</label><select id="f-online" name="online">${option('', 'Any')}${option('true', 'Online')}${option('false', 'Offline')}</select></div>
</div>
<p class="hint" id="f-text-hint">Text: found in an agent’s name, description or skill names.</p>
<p class="hint" id="f-maxPrice-hint">Max price, in LEZ base units: agents with at least one skill at or below it (0 for free ones).</p>
<p class="actions"><button type="submit">Search</button> <a href="${escapeHtml(`${base}/`)}">Clear</a></p>
</form>
</section>`;
}

function pager(base: string, filters: Partial<IndexFilters>, token: string): string {
  const params = new URLSearchParams();
  for (const name of ['text', 'skill', 'tag', 'maxPrice'] as const)
    if (filters[name] !== undefined) params.set(name, filters[name]);
  if (filters.online !== undefined) params.set('online', String(filters.online));
  if (filters.pageSize !== undefined) params.set('pageSize', String(filters.pageSize));
  params.set('pageToken', token);
  return `<nav aria-label="Pages" class="pager"><a href="${escapeHtml(`${base}/?${params.toString()}`)}" rel="next">Next page</a></nav>`;
}

/** "free" for 0; otherwise the base units, grouped in thousands. */
export function formatPrice(price: string): string {
  if (!/^\d+$/.test(price)) return price;
  const units = BigInt(price);
  if (units === 0n) return 'free';
  return `${units.toLocaleString('en-US')} LEZ base ${units === 1n ? 'unit' : 'units'}`;
}

function formatTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/** POSIX single quotes: safe for any string. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text and attribute values alike (attributes are always double-quoted here). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

// Colours meet WCAG AA against their backgrounds (the body text and links at 7:1 or more).
const STYLE = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1b1f24;background:#f6f7f9;overflow-wrap:anywhere}
.wrap{max-width:72rem;margin:0 auto;padding:0 1rem}
a{color:#0645ad}
a:hover{color:#03306e}
:focus-visible{outline:3px solid #0645ad;outline-offset:2px;border-radius:2px}
.skip{position:absolute;left:.5rem;top:-3rem;background:#fff;padding:.5rem .75rem;border:2px solid #0645ad;z-index:1}
.skip:focus{top:.5rem}
.visually-hidden{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.top{background:#14213d;color:#fff;padding:1.25rem 0 1rem}
.top h1{margin:0 0 .25rem;font-size:1.75rem;line-height:1.2}
.top p{margin:0;max-width:48rem;color:#e8ecf3}
.top code{color:#fff}
.top :focus-visible{outline-color:#fff}
h2{font-size:1.35rem;margin:1.5rem 0 .5rem}
code,pre,var{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.9em}
var{font-style:italic}
.search form{background:#fff;border:1px solid #c9ced6;border-radius:8px;padding:1rem}
.fields{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,12rem),1fr))}
.field{display:flex;flex-direction:column;min-width:0}
label{font-weight:600;font-size:.9rem;margin-bottom:.25rem}
input,select,button{font:inherit;min-width:0;max-width:100%}
input,select{min-height:2.5rem;padding:.4rem .5rem;border:1px solid #6b7280;border-radius:6px;background:#fff;color:#1b1f24}
.hint{margin:.5rem 0 0;font-size:.85rem;color:#4a5260}
.actions{margin:.75rem 0 0;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
button{padding:.45rem 1.1rem;border:0;border-radius:6px;background:#0645ad;color:#fff;font-weight:600;cursor:pointer}
button:hover{background:#03306e}
.count{color:#4a5260;margin:.25rem 0 1rem}
.error{background:#fdecea;border:1px solid #b3261e;color:#7a1410;padding:.5rem .75rem;border-radius:6px}
.agents{list-style:none;margin:0;padding:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,26rem),1fr))}
.agents>li{min-width:0}
.agent{background:#fff;border:1px solid #c9ced6;border-radius:8px;padding:1rem;height:100%;display:flex;flex-direction:column;min-width:0}
.agent-head{display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:baseline;justify-content:space-between}
.agent h3{margin:0;font-size:1.2rem;line-height:1.3;min-width:0}
.agent h4{margin:.9rem 0 .35rem;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#4a5260}
.badges{margin:0;display:flex;gap:.4rem;flex-wrap:wrap}
.badge{display:inline-block;font-size:.8rem;font-weight:600;padding:.1rem .55rem;border-radius:999px;border:1px solid}
.verified{background:#e3f1ff;color:#0a3d7a;border-color:#0a3d7a}
.unverified{background:#fff4e0;color:#7a4100;border-color:#7a4100}
.online{background:#e6f4ea;color:#0d5323;border-color:#0d5323}
.offline{background:#eef0f3;color:#3d4450;border-color:#3d4450}
.description{margin:.5rem 0 0}
.facts{margin:.6rem 0 0;display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;font-size:.85rem;color:#4a5260}
.facts div{display:flex;gap:.35rem;min-width:0}
.facts dt{font-weight:600;white-space:nowrap}
.facts dd{margin:0;min-width:0}
.skills{list-style:none;margin:0;padding:0}
.skills li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 1rem;padding:.3rem 0;border-bottom:1px solid #e3e6ea}
.skills li:last-child{border-bottom:0}
.skill-name{min-width:0}
.price{font-weight:600;font-variant-numeric:tabular-nums;color:#6a3b00}
.price.free{color:#0d5323}
.tags{list-style:none;margin:.75rem 0 0;padding:0;display:flex;flex-wrap:wrap;gap:.35rem}
.tags li{font-size:.8rem;background:#eef0f3;color:#2d333b;border-radius:4px;padding:.05rem .45rem;min-width:0}
.links{margin:.75rem 0 0}
.muted{color:#4a5260}
.curl{margin:0;background:#1b1f24;color:#f3f4f6;padding:.75rem;border-radius:6px;overflow-x:auto;font-size:.8rem;line-height:1.45;overflow-wrap:normal;max-width:100%}
.curl code{font-size:inherit}
.curl:focus-visible{outline-color:#0645ad}
.pager{margin:1.25rem 0}
.foot{margin-top:2rem;padding-bottom:2rem;color:#4a5260;font-size:.9rem}
.foot p{margin:0;padding-top:1rem;border-top:1px solid #c9ced6}
`.trim();

const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}`;
