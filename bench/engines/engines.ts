/**
 * Engines the edits benchmark compares. Each takes (content, find, replace) and returns the new content,
 * or no content when it refuses.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { applyPatch } from '../../utils/patch.js';

/** A patch engine under test. */
export interface Engine {
  name: string;
  apply(content: string, find: string, replace: string): { newContent?: string; strategy?: string; error?: string };
}

/** clawcode's engine (utils/patch.ts). */
export const oursEngine: Engine = {
  name: 'clawcode',
  apply: (content, find, replace) => applyPatch(content, find, replace),
};

/** The plain exact-match baseline: first `indexOf` hit, spliced. */
export const exactEngine: Engine = {
  name: 'exact indexOf',
  apply: (content, find, replace) => {
    if (find === '') return content === '' ? { newContent: replace, strategy: 'exact' } : { error: 'empty find' };
    const at = content.indexOf(find);
    if (at === -1) return { error: 'not found' };
    return { newContent: content.slice(0, at) + replace + content.slice(at + find.length), strategy: 'exact' };
  },
};

/**
 * Another build of the patch engine to compare with (say, main's), loaded from the module at `path` (a
 * `utils/patch.ts` or `dist/utils/patch.js` of another checkout); named `baseline`.
 *
 * @throws when the module cannot be loaded or has no `applyPatch`
 */
export async function baselineEngine(path: string): Promise<Engine> {
  const mod = (await import(pathToFileURL(resolve(path)).href)) as { applyPatch?: Engine['apply'] };
  const apply = mod.applyPatch;
  if (typeof apply !== 'function') throw new Error(`${path} has no applyPatch`);
  return { name: 'baseline', apply: (content, find, replace) => apply(content, find, replace) };
}
