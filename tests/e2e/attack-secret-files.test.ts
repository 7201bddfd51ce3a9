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

// Credentials with no `NAME=` line of their own: the whole user part of a URL, a URL with an empty user, a query
// parameter, an HTTP header inside a command's quoted argument, a long option, an environment prefix.
const URL_TOKEN = 'a3f9c2e1b7d4058e6f1a2b3c4d5e6f7a8b9c0d1e';
const INLINE = [
  'Zq8vN2xLp4Rt7Yw3Kd9F',
  'Mv3xK8pQ2zL7wR4tY9nB',
  'Hd6sJ1fG8kL3zX5cV7bN',
  'Pw4eR7tY2uI9oA3sD6fG',
  'Qa2wS5eD8rF1tG4yH7uJ',
];
const DEPLOY = [
  '#!/bin/sh',
  `git clone https://${URL_TOKEN}@github.com/org/app.git`,
  `git clone https://:${INLINE[0]}@gitlab.example.com/org/app.git`,
  `curl -s "https://api.example.com/v1/items?api_key=${INLINE[1]}&limit=10"`,
  `curl -H "X-Api-Key: ${INLINE[2]}" https://api.example.com/v1/items`,
  `vault login --token ${INLINE[3]}`,
  `PGPASSWORD=${INLINE[4]} psql -h db -U app -c 'select 1'`,
  '',
].join('\n');

// Names and values kept apart by syntax: a Kubernetes env list, a PHP constant, .NET appSettings, a fallback literal.
const APART = ['Rk5tN8vB2xC7mZ4qW1eY', 'Ty3uI6oP9aS2dF5gH8jK', 'Lz4xC7vB1nM5qW8eR2tY', 'Gh7jK1lZ4xC8vB2nM5qW'];
const MANIFEST = `env:\n  - name: DB_PASSWORD\n    value: "${APART[0]}"\n  - name: LOG_LEVEL\n    value: debug\n`;
const WP_CONFIG = `<?php\ndefine( 'DB_PASSWORD', '${APART[1]}' );\ndefine( 'DB_HOST', 'localhost' );\n`;
const WEB_CONFIG = `<appSettings>\n  <add key="ApiKey" value="${APART[2]}" />\n</appSettings>\n`;
const FALLBACK = `export const jwtSecret = process.env.JWT_SECRET || '${APART[3]}';\n`;

const VAULT = 'hvs.Zq8vN2xLp4Rt7Yw3Kd9FbQ';
const DB_PASSWORD = 'Xk29fLq8Zp3rTv7W';
const FILES: Record<string, string> = {
  '.vault-token': `${VAULT}\n`,
  'secrets/db_password.txt': `${DB_PASSWORD}\n`,
  '.nvmrc': 'v20.11.1\n',
  'scripts/deploy.sh': DEPLOY,
  'k8s/deploy.yaml': MANIFEST,
  'wp-config.php': WP_CONFIG,
  'Web.config': WEB_CONFIG,
  'src/auth.ts': FALLBACK,
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

describe('credentials inside URLs, headers, command options, and apart from their names', () => {
  it('are redacted; the rest of each line is sent (fails on main)', async () => {
    const result = await runCli(
      [
        '--print-prompt',
        'deploy from the new host',
        '--files',
        'scripts/deploy.sh',
        'k8s/deploy.yaml',
        'wp-config.php',
        'Web.config',
        'src/auth.ts',
        '--dir',
        project,
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('## scripts/deploy.sh (whole file)');
    for (const secret of [URL_TOKEN, ...INLINE, ...APART]) expect(result.stdout).not.toContain(secret);
    expect(result.stdout).toContain("define( 'DB_HOST', 'localhost' );");
    expect(result.stdout).toContain('value: debug');
    expect(result.stdout).toContain('git clone https://[REDACTED:url_token]@github.com/org/app.git');
    expect(result.stdout).toContain('&limit=10"');
    expect(result.stdout).toContain("psql -h db -U app -c 'select 1'");
  });
});
