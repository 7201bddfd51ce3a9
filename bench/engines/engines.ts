/**
 * Engines the edits benchmark compares. Each takes (content, find, replace) and returns the new content,
 * or no content when it refuses.
 */
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
