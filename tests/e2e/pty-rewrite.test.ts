import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliInPty, type PtySession } from '../support/pty.js';

// The review of a 37-file rewrite in a terminal, as a person runs it: the rule's line, the changes by
// folder, then "review hunk by hunk" through every file: all of one folder, none of another, and in the
// third only each file's first hunk. What is written is exactly what was accepted.

const site = (n: number) => `export function f${n}(id) {\n  return getUser(id);\n}\n`;
const filler = Array.from({ length: 8 }, (_, j) => `// keep line ${j}\n`).join('');
/** Two call sites far enough apart to be two hunks. */
const text = (i: number) => `${site(i)}${filler}${site(i + 100)}`;

const folders = { 'lib/': 5, 'src/a/': 20, 'src/b/': 12 };
const files: Record<string, string> = {};
for (const [folder, n] of Object.entries(folders))
  for (let i = 0; i < n; i++) files[`${folder}m${String(i).padStart(2, '0')}.ts`] = text(i);
const paths = Object.keys(files).sort();

const pty = useCliInPty({ prefix: 'clawcode-pty-rewrite-', files, rows: 60 });

async function answer(s: PtySession, waitText: string | RegExp, key: string): Promise<void> {
  await s.waitFor(waitText);
  s.mark();
  s.write(key);
  s.write('\r');
}

describe('reviewing a 37-file rewrite in a terminal (built CLI)', () => {
  it(
    'shows the rule and the folders, then writes exactly the hunks accepted file by file',
    { timeout: 120_000 },
    async () => {
      const s = pty.start(['rewrite', 'getUser($ID)', 'fetchUser($ID, { cache: true })', '--dir', pty.project]);
      await s.waitFor('✓ #1 rewrite `getUser($ID)` → `fetchUser($ID, { cache: true })`: 74 matches in 37 files');
      await s.waitFor(/lib\/\s+5 files\s+\+10 −10/);
      await s.waitFor(/src\/a\/\s+20 files\s+\+40 −40/);
      await answer(s, 'Apply these changes to 37 files?', 'r');
      for (const path of paths) {
        if (path.startsWith('lib/')) await answer(s, `Apply this hunk to ${path}?`, 'a');
        else if (path.startsWith('src/a/')) await answer(s, `Apply this hunk to ${path}?`, 's');
        else {
          await answer(s, `Apply this hunk to ${path}?`, 'y');
          await answer(s, `Apply this hunk to ${path}?`, 'n');
        }
      }
      await s.waitFor('Wrote 17 files');
      expect(await s.exitCode()).toBe(0);
      const call = 'getUser(id)';
      const renamed = 'fetchUser(id, { cache: true })';
      for (const path of paths) {
        const got = await readFile(join(pty.project, path), 'utf8');
        const original = files[path]!;
        let want = original;
        if (path.startsWith('lib/')) want = original.replaceAll(call, renamed);
        if (path.startsWith('src/b/')) want = original.replace(call, renamed);
        expect(got, path).toBe(want);
      }
    },
  );
});
