/**
 * The docs hold together: every relative link in docs/, bench/results/ and the README reaches a file, and a heading
 * when it names one; every `docs/<file>.md §N` a comment in src/, test/ or examples/ cites names a section that
 * exists. The specifications were split into several files (binding, payments, discovery, the seed dialect, the HTTP
 * face), and a section that moves or is renumbered must take its links and citations along.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, keep);
    return keep(path) ? [path] : [];
  });
}

const markdown = [
  join(root, 'README.md'),
  ...['docs', 'bench/results'].flatMap((dir) => filesUnder(join(root, dir), (path) => path.endsWith('.md'))),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a markdown file offers: its headings', and explicit `<a id="…">` ones. Code blocks hold neither. */
function anchorsOf(path: string): Set<string> {
  const text = readFileSync(path, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) anchors.add(slug(heading!.trim()));
  for (const [, id] of text.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id!);
  return anchors;
}

/** The section numbers a markdown file has (`## 2 …`, `### 2.7 …`, `#### 2.7.1 …`). */
function sectionsOf(path: string): Set<string> {
  const text = readFileSync(path, 'utf8');
  return new Set([...text.matchAll(/^#{2,4} (\d+(?:\.\d+)*) /gm)].map(([, number]) => number!));
}

describe('the docs', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto: …
        const [path, anchor] = target!.split('#');
        const linked = path ? resolve(dirname(file), path) : file;
        const where = `${relative(root, file)} → ${target}`;
        if (!existsSync(linked)) broken.push(`${where}: no such file`);
        else if (anchor && linked.endsWith('.md') && !anchorsOf(linked).has(anchor))
          broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('are cited by section only where the section exists', () => {
    const sources = ['src', 'test', 'examples'].flatMap((dir) =>
      filesUnder(join(root, dir), (path) => /\.(ts|mjs)$/.test(path)),
    );
    const wrong: string[] = [];
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      // `docs/binding.md §2.7–§2.8`, `docs/payments.md §7`: the first number after the file, then any `§N` that
      // follows it directly in a list (`§2.7.2, §11.2` belong to the same file).
      for (const [, doc, numbers] of text.matchAll(/docs\/([\w/-]+\.md) ((?:§\d+(?:\.\d+)*(?:[–, ]+|$))+)/g)) {
        const sections = sectionsOf(join(root, 'docs', doc!));
        for (const [, number] of numbers!.matchAll(/§(\d+(?:\.\d+)*)/g))
          if (!sections.has(number!)) wrong.push(`${relative(root, file)}: docs/${doc} §${number}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
