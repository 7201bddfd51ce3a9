import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/fixture.js';
import { git } from '../support/git.js';
import { planOf, replacePatch } from '../support/plans.js';
import { useCliProvider } from '../support/loopback-project.js';
import { replies } from '../support/provider-server.js';

// A file that holds nothing but one value is that value assigned to the file's name: a Vault token file, a
// compose secret (`secrets/db_password.txt`). No `NAME=` precedes the value, so the assignment rules never saw
// it, and its name is on no list of secret files. It never reaches the provider: not in the plan request, not
// in the excerpts of the repair round. A one-value file whose name is no credential (`.nvmrc`) is still sent.

const VAULT = 'hvs.Zq8vN2xLp4Rt7Yw3Kd9FbQ';
const DB_PASSWORD = 'Xk29fLq8Zp3rTv7W';
const FILES: Record<string, string> = {
  '.vault-token': `${VAULT}\n`,
  'secrets/db_password.txt': `${DB_PASSWORD}\n`,
  '.nvmrc': 'v20.11.1\n',
  'docker-compose.yml':
    'services:\n  db:\n    secrets: [db_password]\nsecrets:\n  db_password:\n    file: ./secrets/db_password.txt\n',
};

const cli = useCliProvider();
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  cli.server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-secret-files-'));
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(project, path)), { recursive: true });
    await writeFile(join(project, path), text);
  }
  git(project, 'init', '-q');
  env = await cli.freshEnv();
});

const PINS = ['--files', '.vault-token', 'secrets/db_password.txt', '.nvmrc', 'docker-compose.yml'];

describe('a file holding one value under a credential name', () => {
  it('is sent with the value redacted (fails on main)', async () => {
    const result = await runCli(['--print-prompt', 'rotate the db password', ...PINS, '--dir', project], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('## secrets/db_password.txt (whole file)\n```\n[REDACTED:secret_assignment]\n```');
    expect(result.stdout).toContain('## .vault-token (whole file)\n```\n[REDACTED:secret_assignment]\n```');
    expect(result.stdout).toContain('v20.11.1');
    expect(result.stdout).not.toContain(VAULT);
    expect(result.stdout).not.toContain(DB_PASSWORD);
  });

  it('the plan request and the repair round carry neither value (fails on main)', async () => {
    cli.server.reply(
      replies.plan(planOf([replacePatch('secrets/db_password.txt', 'old-password', 'new-password')])),
      replies.plan(planOf([])),
    );
    const result = await runCli(['rotate the db password', ...PINS, '--dry-run', '--dir', project], { env });
    expect(result.code).not.toBe(0);
    expect(cli.server.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of cli.server.requests) {
      const body = JSON.stringify(request.body);
      expect(body).not.toContain(VAULT);
      expect(body).not.toContain(DB_PASSWORD);
    }
  });
});
