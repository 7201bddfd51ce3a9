import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, GIT_TEST_ENV, gitIn, replacePlan, runCli, writeFiles } from '../support/fixture.js';
import { useCliProvider } from '../support/loopback-project.js';
import { replies } from '../support/provider-server.js';

// clawcode's own git calls switch off every program a repository's configuration names, from what
// `git config --list` says. A downloaded tree decides that configuration, also how much of it there is: a
// sentinel folder outside the root proves no program it names ran.

const cli = useCliProvider();
let base: string;
let sentinel: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  base = mkdtempSync('/var/tmp/clawcode-own-git-');
  sentinel = join(base, 'sentinel');
  mkdirSync(sentinel);
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home'), ...GIT_TEST_ENV });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function repo(files: Record<string, string>): string {
  const root = join(base, 'project');
  writeFiles(root, files);
  gitIn(root, 'init', '-q');
  gitIn(root, 'add', '-A');
  gitIn(root, 'commit', '-qm', 'init');
  return root;
}

describe('a downloaded .git/config too big to list', () => {
  it('runs none of its filters: the repository is not used (fails on main)', async () => {
    const root = repo({ 'src/a.ts': 'export const a = 1;\n', '.gitattributes': '* filter=x\n' });
    // Over 8 MiB of harmless keys first, so the listing is cut before git would print the filter.
    const pad = Array.from({ length: 120_000 }, (_, i) => `\tk${i} = ${'v'.repeat(64)}\n`).join('');
    appendFileSync(join(root, '.git/config'), `[pad]\n${pad}[filter "x"]\n\tclean = touch ${sentinel}/clean; cat\n`);
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 2;\n'); // stat data differs: git cleans it again
    const before = fingerprintTree(root);
    const context = await runCli(['context', 'edit a', '--dir', root], { env, timeoutMs: 60_000 });
    expect(context.code, context.stderr).toBe(0);
    expect(context.stdout).toContain('src/a.ts');
    expect(readdirSync(sentinel)).toEqual([]);
    expect(fingerprintTree(root)).toEqual(before);
  });

  it('nothing is written there: the hooks folder it names could not be known (fails on main)', async () => {
    const root = repo({ 'src/a.ts': 'export const a = 1;\n' });
    const pad = Array.from({ length: 120_000 }, (_, i) => `\tk${i} = ${'v'.repeat(64)}\n`).join('');
    appendFileSync(join(root, '.git/config'), `[pad]\n${pad}[core]\n\thooksPath = hooks\n`);
    const before = fingerprintTree(root);
    const plan = planFile([{ file: 'hooks/pre-commit', replace: `#!/bin/sh\ntouch ${sentinel}/hook\n` }]);
    const result = await runCli(['apply', plan, '--yes', '--dir', root], { env, timeoutMs: 60_000 });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("hooks/pre-commit is refused: the repository's git configuration cannot be listed");
    expect(fingerprintTree(root)).toEqual(before);
  });
});

/** A plan creating whole files, saved for `clawcode apply`. */
function planFile(patches: { file: string; replace: string }[]): string {
  const file = join(base, `plan-${readdirSync(base).length}.json`);
  const full = patches.map((p) => ({ ...p, find: '', operation: 'replace', replace_all: null, occurrence: null }));
  writeFileSync(
    file,
    JSON.stringify({ analysis: 'Edit.', files_to_edit: [], patches: full, commands: [], agent_notes: [] }),
  );
  return file;
}

describe('a project folder inside a repository (a monorepo package)', () => {
  it('a file the repository configuration includes from the folder is never written (fails on main)', async () => {
    const root = repo({ 'pkg/src/a.ts': 'export const a = 1;\n' });
    // Relative to the .git folder, as git reads include paths: <top>/pkg/local.cfg.
    gitIn(root, 'config', 'include.path', '../pkg/local.cfg');
    const before = fingerprintTree(root);
    const plan = planFile([{ file: 'local.cfg', replace: `[core]\n\tfsmonitor = touch ${sentinel}/fsmonitor\n` }]);
    const result = await runCli(['apply', plan, '--yes', '--dir', join(root, 'pkg')], { env });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("local.cfg is refused: git's configuration reads or runs local.cfg");
    expect(fingerprintTree(root)).toEqual(before);
  });
});

describe('a downloaded tree whose .git names another repository on the machine', () => {
  const victim = (): string => {
    const root = join(base, 'dotfiles');
    writeFiles(root, { 'notes.txt': 'mine\n' });
    gitIn(root, 'init', '-q');
    gitIn(root, 'add', '-A');
    gitIn(root, 'commit', '-qm', 'mine');
    return root;
  };
  const shapes: [string, (project: string) => void, string][] = [
    [
      'a .git file',
      (project) => writeFileSync(join(project, '.git'), 'gitdir: ../dotfiles/.git\n'),
      'is not a git repository',
    ],
    [
      'a .git folder whose commondir names it',
      (project) => {
        writeFiles(join(project, '.git'), { HEAD: 'ref: refs/heads/main\n', commondir: '../../dotfiles/.git\n' });
      },
      'is not a git repository',
    ],
    [
      'a .git folder whose objects and refs are symlinks to it',
      (project) => {
        writeFiles(project, { 'README.md': 'x\n' });
        gitIn(project, 'init', '-q');
        for (const part of ['objects', 'refs']) {
          rmSync(join(project, '.git', part), { recursive: true });
          symlinkSync(join(base, 'dotfiles/.git', part), join(project, '.git', part));
        }
      },
      'the git directory leads outside itself',
    ],
  ];
  it.each(shapes)('%s: --commit commits nothing into it (fails on main)', async (_, plant, refusal) => {
    const other = victim();
    const project = join(base, 'project');
    writeFiles(project, { 'src/a.ts': 'export const a = 1;\n' });
    plant(project);
    const otherBefore = fingerprintTree(other);
    cli.server.reply(replies.plan(replacePlan('src/a.ts', [{ find: '1', replace: '2' }])));
    const result = await runCli(['change a to 2', '--yes', '--commit', '--dir', project], {
      env: { ...(await cli.freshEnv()), ...GIT_TEST_ENV },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(refusal);
    expect(fingerprintTree(other)).toEqual(otherBefore);
  });
});

describe('a downloaded partial clone whose promisor remote is an ext:: command', () => {
  it('undo (which reads the log) runs nothing, on a git that ignores GIT_NO_LAZY_FETCH too (fails on main)', async () => {
    const root = repo({ 'src/a.ts': 'export const a = 1;\n', 'src/b.txt': 'x\n' });
    // A missing tree: reading the log fetches it from the promisor remote, whose allowed protocol runs a command.
    const tree = gitIn(root, 'rev-parse', 'HEAD:src').trim();
    rmSync(join(root, '.git/objects', tree.slice(0, 2), tree.slice(2)));
    gitIn(root, 'config', 'core.repositoryformatversion', '1');
    gitIn(root, 'config', 'extensions.partialClone', 'origin');
    gitIn(root, 'config', 'remote.origin.url', `ext::sh -c touch% ${sentinel}/ext`);
    gitIn(root, 'config', 'remote.origin.promisor', 'true');
    gitIn(root, 'config', 'protocol.ext.allow', 'always');
    // git before the variable existed: a wrapper outside the project drops it.
    const bin = join(base, 'bin');
    mkdirSync(bin);
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nunset GIT_NO_LAZY_FETCH\nexec ${realGit} "$@"\n`, { mode: 0o755 });
    const oldGit = { ...env, PATH: `${bin}:${env.PATH}` };
    const plan = planFile([{ file: 'src/new.ts', replace: 'export {};\n' }]);
    const apply = await runCli(['apply', plan, '--yes', '--dir', root], { env: oldGit });
    expect(apply.code, apply.stderr).toBe(0);
    const undo = await runCli(['undo', '--yes', '--dir', root], { env: oldGit });
    expect(undo.code, undo.stderr).toBe(0);
    expect(readdirSync(sentinel)).toEqual([]);
  });
});
