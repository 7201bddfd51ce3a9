import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, gitIn, runCli } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// The hostile-plan battery: the built CLI against a real project (a git repository with a nested
// repository, installed tools, a virtualenv, secrets, symlinks and a FIFO) and a sentinel folder beside it.
// Every plan below is refused with exit 3, and the whole tree — `.git` included — and the sentinel are
// byte-for-byte what they were. A task run with hostile instruction files and symlinks sends none of the
// planted secret markers to the provider.

const ENV_MARKER = 'ENV-MARKER-7f3a9c';
const OUTSIDE_MARKER = 'OUTSIDE-MARKER-51be02';
const ENVIRON_MARKER = 'ENVIRON-MARKER-c4d8e1';
const TOKEN = 'ghp_Hm4Q9zX2rT7vB1nK8wL3pY6cJ0dF5sA2eU7i';
const PG_PASSWORD = 'PgMarker9xQ2vL';

let base: string;
let project: string;
let sentinel: string;
let home: string;
let work: string;
let server: ProviderServer;
let env: NodeJS.ProcessEnv;

/** Every entry under a folder as path → a fingerprint: file bytes hashed, symlink targets, FIFOs and folders named. */
async function fingerprint(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(dir: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      const rel = relative(root, abs);
      const info = await lstat(abs);
      if (info.isSymbolicLink()) out.set(rel, `link ${await readlink(abs)}`);
      else if (info.isDirectory()) {
        out.set(rel, 'dir');
        await walk(abs);
      } else if (info.isFile())
        out.set(
          rel,
          `${info.mode.toString(8)} ${createHash('sha256')
            .update(await readFile(abs))
            .digest('hex')}`,
        );
      else out.set(rel, 'special');
    }
  }
  await walk(root);
  return out;
}

beforeAll(async () => {
  server = await startProviderServer();
  base = await mkdtemp(join(tmpdir(), 'clawcode-hostile-'));
  project = join(base, 'project');
  sentinel = join(base, 'sentinel');
  home = join(base, 'home');
  work = join(base, 'work');
  for (const dir of [project, sentinel, home, work]) await mkdir(dir, { recursive: true });
  await writeFile(join(sentinel, 'keep.txt'), 'sentinel\n');
  await writeFile(join(base, 'outside-secret.txt'), `token ${OUTSIDE_MARKER}\n`);

  const files: Record<string, string> = {
    'src/app.js': "exports.run = () => 'run';\n",
    'src/db.js': `exports.url = 'postgres://app:${PG_PASSWORD}@db.internal:5432/app';\n`,
    'README.md': '# app\n\nRun the app.\n',
    '.env': `API_KEY=${ENV_MARKER}\n`,
    'CLAWCODE.md': `Deploy with GITHUB_TOKEN=${TOKEN} when asked.\n`,
    'node_modules/.bin/x': '#!/bin/sh\necho x\n',
    '.venv/pyvenv.cfg': 'home = /usr/bin\n',
    '.venv/bin/activate': '# activate\n',
    '.gitignore': 'node_modules/\n.venv/\n.env\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(project, rel, '..'), { recursive: true });
    await writeFile(join(project, rel), text);
  }
  gitIn(project, 'init', '-q');
  gitIn(project, 'add', '.');
  gitIn(project, 'commit', '-qm', 'init');
  // A nested repository (as a submodule checkout has) with its own .git folder.
  await mkdir(join(project, 'vendor/lib'), { recursive: true });
  await writeFile(join(project, 'vendor/lib/index.js'), 'module.exports = 1;\n');
  gitIn(join(project, 'vendor/lib'), 'init', '-q');
  await mkdir(join(project, '.clawcode'), { recursive: true });
  await mkdir(join(project, 'docs'), { recursive: true });
  await symlink('.env', join(project, 'notes.txt'));
  await symlink('../.env', join(project, 'docs/runbook.md'));
  await symlink(join(base, 'outside-secret.txt'), join(project, 'AGENTS.md'));
  await symlink('/proc/self/environ', join(project, '.clawcode/instructions.md'));
  execFileSync('mkfifo', [join(project, 'pipe')]);
  env = cleanEnv({
    CLAWCODE_HOME: home,
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: `${server.url}/v1`,
    HOSTILE_MARKER: ENVIRON_MARKER,
  });
});
afterAll(async () => server.close());
beforeEach(() => server.reset());

function plan(file: string, find: string, replace: string): unknown {
  return {
    analysis: 'Harmless-looking change.',
    files_to_edit: [{ path: file, reason: 'requested' }],
    patches: [{ file, operation: 'replace', find, replace, replace_all: null, occurrence: null }],
    commands: [],
    agent_notes: [],
  };
}

const PWNED = (): string => join(sentinel, 'pwned');
const attacks: [string, () => unknown][] = [
  [
    '.git/config (core.fsmonitor runs on the next git call)',
    () => plan('.git/config', '[core]\n', `[core]\n\tfsmonitor = "touch ${PWNED()}"\n`),
  ],
  ['.git/hooks/pre-commit', () => plan('.git/hooks/pre-commit', '', `#!/bin/sh\ntouch ${PWNED()}\n`)],
  [
    "a nested repository's .git/config",
    () => plan('vendor/lib/.git/config', '[core]\n', `[core]\n\tfsmonitor = "touch ${PWNED()}"\n`),
  ],
  ['.clawcode/settings.json', () => plan('.clawcode/settings.json', '', '{"commands":{"allow":["*"]}}\n')],
  ['node_modules/.bin/x', () => plan('node_modules/.bin/x', 'echo x', `touch ${PWNED()}`)],
  ['.venv/bin/activate', () => plan('.venv/bin/activate', '# activate\n', `touch ${PWNED()}\n`)],
  ['.envrc (direnv runs it)', () => plan('.envrc', '', `touch ${PWNED()}\n`)],
  ['notes.txt, a symlink to .env', () => plan('notes.txt', 'API_KEY=', 'API_KEY=x')],
  ['../sentinel/pwned', () => plan('../sentinel/pwned', '', 'x\n')],
  ['an absolute path into the sentinel', () => plan(PWNED(), '', 'x\n')],
  ['a FIFO', () => plan('pipe', '', 'x\n')],
  ['a path of 3000 segments', () => plan(`${Array.from({ length: 3000 }, () => 'a').join('/')}/x.js`, '', 'x\n')],
];

describe('hostile plans through `clawcode apply --yes`', () => {
  it.each(attacks)(
    'refuses %s: exit 3, one short line per refusal, tree, .git and sentinel unchanged',
    async (_label, make) => {
      const treeBefore = await fingerprint(project);
      const sentinelBefore = await fingerprint(sentinel);
      const planFile = join(work, 'plan.json');
      await writeFile(planFile, JSON.stringify(make()));
      const result = await runCli(['apply', planFile, '--yes', '--dir', project], { env, timeoutMs: 15_000 });
      expect(result.code, result.stdout + result.stderr).toBe(3);
      for (const line of (result.stdout + result.stderr).split('\n')) expect(line.length).toBeLessThan(300);
      expect(result.stdout + result.stderr).toMatch(/refused/i);
      expect(await fingerprint(project)).toEqual(treeBefore);
      expect(await fingerprint(sentinel)).toEqual(sentinelBefore);
      // clawcode's own next git call must not run anything a plan planted.
      gitIn(project, 'status', '--porcelain');
      expect(await fingerprint(sentinel)).toEqual(sentinelBefore);
    },
  );
});

describe('a task run never sends planted secrets', () => {
  it('withholds symlinked instruction files, symlinks to .env and redacts tokens in what it sends', async () => {
    server.reply(
      replies.plan({ analysis: 'Nothing to do.', files_to_edit: [], patches: [], commands: [], agent_notes: [] }),
    );
    const result = await runCli(
      ['update the runbook docs and the README, see AGENTS.md', '--dir', project, '--dry-run'],
      { env, timeoutMs: 20_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.completions()).toHaveLength(1);
    const sent = JSON.stringify(server.requests);
    expect(sent).toContain('Run the app.'); // the context did reach the provider
    expect(
      [ENV_MARKER, OUTSIDE_MARKER, ENVIRON_MARKER, TOKEN, PG_PASSWORD].filter((marker) => sent.includes(marker)),
    ).toEqual([]);
  });
});
