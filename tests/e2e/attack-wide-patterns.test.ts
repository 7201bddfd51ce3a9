import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fingerprintTree, runCli } from '../support/fixture.js';
import { git } from '../support/git.js';
import { useCliProvider } from '../support/loopback-project.js';
import { replies } from '../support/provider-server.js';

// The scope request of `--wide` lets the model name regular expressions, run over every line of the project.
// One that backtracks catastrophically on a line of the tree (`(a|a)*b` on a run of 60 `a`s: 2^60 steps) held
// the run for good, past SIGTERM too: a regular expression cannot be interrupted from JavaScript. Its shape
// passed the nested-quantifier check. The matching now runs under a time limit and the pattern is refused.

const cli = useCliProvider();
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  cli.server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-wide-patterns-'));
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'src/a.ts'), `export const s = '${'a'.repeat(60)}!';\n`);
  await writeFile(join(project, 'src/b.ts'), 'export const b = 1;\n');
  git(project, 'init', '-q');
  env = await cli.freshEnv();
});

describe('a scope pattern that backtracks', () => {
  it(
    'is refused in one line within seconds; nothing is written (fails on main: the run hangs)',
    { timeout: 60_000 },
    async () => {
      const before = fingerprintTree(project);
      cli.server.reply(replies.plan({ patterns: ['(a|a)*b'], pathspecs: [], rules: [], reason: 'every b' }));
      const started = Date.now();
      const result = await runCli(['rename b everywhere', '--wide', '--yes', '--dir', project], {
        env,
        timeoutMs: 40_000,
      });
      expect(result.code, result.stderr).toBe(2);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(result.stderr).toContain('clawcode: Patterns "(a|a)*b" took over 5 s on 2 files');
      expect(cli.server.completions()).toHaveLength(1);
      expect(fingerprintTree(project)).toEqual(before);
    },
  );
});
