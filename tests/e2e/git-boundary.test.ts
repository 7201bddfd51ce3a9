import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { cleanEnv, fingerprintTree, GIT_TEST_ENV, gitIn, runCli, writeFiles } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// clawcode's own git runs nothing the tree can influence, through the built CLI: a plan that plants the four
// files of a git directory (HEAD, a config whose core.fsmonitor runs a program, objects/, refs/) on a root
// without .git and in a monorepo folder (`--dir mono/pkg`), an allow-listed `npm test` that plants them from
// the sandbox, hooks under core.hooksPath, a filter from an include in the tree. A sentinel folder outside the
// root proves nothing ran; the tree and .git are fingerprinted before and after.

const sandbox = await detectSandbox();
let server: ProviderServer;
let base: string;
let sentinel: string;
let env: NodeJS.ProcessEnv;

const ran = (): string[] => readdirSync(sentinel);
const touch = (tag: string): string => `touch ${join(sentinel, tag)}`;

type Edit = { file: string; find: string; replace: string };

function planOf(patches: Edit[], commands: string[] = []): unknown {
  return {
    analysis: 'Set up the project.',
    files_to_edit: patches.map((p) => ({ path: p.file, reason: 'setup' })),
    patches: patches.map((p) => ({ ...p, operation: 'replace', replace_all: null, occurrence: null })),
    commands,
    agent_notes: [],
  };
}

/** The plan saved for `clawcode apply`; returns the file. */
function plan(patches: Edit[], commands: string[] = []): string {
  const file = join(base, `plan-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(planOf(patches, commands)));
  return file;
}

const gitDirPatches = (tag: string) => [
  { file: 'HEAD', find: '', replace: 'ref: refs/heads/main\n' },
  {
    file: 'config',
    find: '',
    replace: `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = ${touch(tag)}\n`,
  },
  { file: 'objects/info/keep', find: '', replace: '\n' },
  { file: 'refs/heads/keep', find: '', replace: '\n' },
];

const PLANT = (tag: string): string =>
  [
    'mkdir -p objects/info refs/heads',
    "printf 'ref: refs/heads/main\\n' > HEAD",
    `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = ${touch(tag)}\\n' > config`,
  ].join('\n');

/** A root without .git and a monorepo folder, each with a package.json whose `npm test` plants a git directory. */
function layouts(): { name: string; root: string; gitDir?: string }[] {
  const plain = join(base, 'plain');
  const mono = join(base, 'mono');
  writeFiles(plain, { 'src/a.js': 'a\n' });
  writeFiles(mono, { 'README.md': '# mono\n', 'pkg/src/a.js': 'a\n' });
  for (const root of [plain, join(mono, 'pkg')]) {
    writeFiles(root, {
      'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'sh ./plant.sh' } }),
      'plant.sh': PLANT('npm-test'),
    });
  }
  gitIn(mono, 'init', '-q');
  gitIn(mono, 'add', '.');
  gitIn(mono, 'commit', '-qm', 'init');
  return [
    { name: 'a root without .git', root: plain },
    { name: 'a monorepo folder (--dir mono/pkg)', root: join(mono, 'pkg'), gitDir: join(mono, '.git') },
  ];
}

beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  server.reset();
  base = mkdtempSync('/var/tmp/clawcode-git-boundary-');
  sentinel = join(base, 'sentinel');
  mkdirSync(sentinel);
  env = cleanEnv({
    CLAWCODE_HOME: join(base, 'home'),
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: `${server.url}/v1`,
    ...GIT_TEST_ENV,
  });
});

describe('a plan that plants a git directory', () => {
  it('is refused on a root without .git and in a monorepo folder; the next run runs nothing', async () => {
    for (const { name, root, gitDir } of layouts()) {
      const before = fingerprintTree(root);
      const gitBefore = gitDir ? fingerprintTree(gitDir) : undefined;
      const applied = await runCli(['apply', plan(gitDirPatches('plan')), '--yes', '--dir', root], { env });
      expect(applied.code, `${name}: ${applied.stdout}${applied.stderr}`).toBe(3);
      expect(applied.stderr).toMatch(/HEAD is refused/);
      expect(fingerprintTree(root), name).toEqual(before);
      if (gitDir) expect(fingerprintTree(gitDir), name).toEqual(gitBefore);
      const context = await runCli(['context', 'anything', '--dir', root], { env });
      expect(context.code, name).toBe(0);
      expect(ran(), name).toEqual([]);
    }
  });

  it.skipIf(!sandbox.available)(
    'from an allow-listed `npm test` in the sandbox, cannot make the root one: clawcode and git there run nothing',
    async () => {
      for (const { name, root, gitDir } of layouts()) {
        const gitBefore = gitDir ? fingerprintTree(gitDir) : undefined;
        const applied = await runCli(
          ['apply', plan([], ['npm test']), '--yes', '--run-commands', '--json', '--dir', root],
          {
            env,
            timeoutMs: 60_000,
          },
        );
        const report = JSON.parse(applied.stdout) as { commands: { ran: boolean; stderr?: string }[] };
        expect(report.commands[0]?.ran, name).toBe(true);
        expect(report.commands[0]?.stderr, name).toMatch(/HEAD: Read-only file system|cannot create HEAD/);
        expect(existsSync(join(root, 'HEAD')), name).toBe(false); // the read-only stand-in is gone again
        if (gitDir) expect(fingerprintTree(gitDir), name).toEqual(gitBefore);
        expect((await runCli(['context', 'anything', '--dir', root], { env })).code, name).toBe(0);
        // The person's own git in that folder (it fails outside a repository, and runs nothing either way).
        spawnSync('git', ['status'], { cwd: root, env: { ...process.env, ...GIT_TEST_ENV }, stdio: 'ignore' });
        expect(ran(), name).toEqual([]);
      }
    },
  );

  it('planted some other way is never obeyed: not by `context`, not by a `--commit` run in the monorepo folder', async () => {
    const [plain, mono] = layouts();
    for (const { root } of [plain!, mono!]) {
      writeFiles(root, {
        HEAD: 'ref: refs/heads/main\n',
        config: `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = ${touch('planted')}\n\thooksPath = hooks\n`,
        'objects/info/keep': '',
        'refs/heads/keep': '',
        'hooks/pre-commit': `#!/bin/sh\n${touch('hook')}\n`,
      });
      chmodSync(join(root, 'hooks/pre-commit'), 0o755);
      expect((await runCli(['context', 'anything', '--dir', root], { env })).code).toBe(0);
    }
    server.reply(replies.plan(planOf([{ file: 'src/a.js', find: 'a\n', replace: 'b\n' }])));
    const run = await runCli(['edit a', '--dir', mono!.root, '--yes', '--commit'], { env });
    expect(run.code, run.stdout + run.stderr).not.toBe(0); // the folder is refused as a repository: nothing to commit to
    expect(ran()).toEqual([]);
  });
});

describe('hooks, includes and separate git directories', () => {
  function huskyRepo(root: string): void {
    writeFiles(root, { 'src/a.js': 'a\n', '.husky/pre-commit': '#!/bin/sh\necho lint\n' });
    chmodSync(join(root, '.husky/pre-commit'), 0o755);
    gitIn(root, 'init', '-q');
    gitIn(root, 'config', 'core.hooksPath', '.husky');
    gitIn(root, 'add', '.');
    gitIn(root, 'commit', '-qm', 'init', '--no-verify');
  }

  const editA = () => ({ file: 'src/a.js', find: 'a\n', replace: 'b\n' });

  it('a plan never edits a hook; --commit and the revert commit of undo run none unless --commit-hooks', async () => {
    const root = join(base, 'husky');
    huskyRepo(root);
    const gitBefore = fingerprintTree(join(root, '.git'));
    const refused = await runCli(
      [
        'apply',
        plan([editA(), { file: '.husky/pre-commit', find: 'echo lint\n', replace: `${touch('plan')}\n` }]),
        '--yes',
        '--dir',
        root,
      ],
      { env },
    );
    expect(refused.code).toBe(3);
    expect(fingerprintTree(join(root, '.git'))).toEqual(gitBefore);

    // The person's own hook (a stand-in for lint-staged) records that it ran.
    writeFileSync(join(root, '.husky/pre-commit'), `#!/bin/sh\n${touch('hook')}\n`);
    gitIn(root, 'commit', '-qam', 'hook', '--no-verify');
    server.reply(replies.plan(planOf([editA()])));
    const committed = await runCli(['edit a', '--dir', root, '--yes', '--commit', '--json'], { env });
    expect(committed.code, committed.stderr).toBe(0);
    const { runId } = JSON.parse(committed.stdout) as { runId: string };
    expect(gitIn(root, 'log', '-1', '--format=%s')).toBe('edit a\n');
    const undone = await runCli(['undo', runId, '--yes', '--dir', root], { env });
    expect(undone.code, undone.stderr).toBe(0);
    expect(gitIn(root, 'log', '-1', '--format=%s')).toBe('Revert "edit a"\n');
    expect(ran()).toEqual([]);

    server.reply(replies.plan(planOf([editA()])));
    const withHooks = await runCli(['edit a', '--dir', root, '--yes', '--commit', '--commit-hooks'], { env });
    expect(withHooks.code, withHooks.stderr).toBe(0);
    expect(ran()).toEqual(['hook']);
  });

  it('a plan never writes an include target or a separate git directory; the next run runs nothing', async () => {
    const inc = join(base, 'include');
    writeFiles(inc, { 'src/a.js': 'a\n' });
    gitIn(inc, 'init', '-q');
    gitIn(inc, 'config', 'include.path', '../.gitconfig');
    const sep = join(base, 'separate');
    writeFiles(sep, { 'src/a.js': 'a\n' });
    gitIn(sep, 'init', '-q', `--separate-git-dir=${join(sep, '.repo')}`);
    for (const [root, file, find] of [
      [inc, '.gitconfig', ''],
      [sep, '.repo/config', '[core]\n'],
    ] as const) {
      const before = fingerprintTree(root);
      const result = await runCli(
        [
          'apply',
          plan([{ file, find, replace: `[core]\n\tfsmonitor = ${touch('config')}\n` }]),
          '--yes',
          '--dir',
          root,
        ],
        { env },
      );
      expect(result.code, `${file}: ${result.stdout}${result.stderr}`).toBe(3);
      expect(fingerprintTree(root)).toEqual(before);
      expect((await runCli(['context', 'anything', '--dir', root], { env })).code).toBe(0);
    }
    expect(ran()).toEqual([]);
  });
});
