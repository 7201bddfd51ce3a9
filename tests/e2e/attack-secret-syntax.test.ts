import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/fixture.js';
import { LOOPBACK_KEY, planRequestText, useLoopbackProject } from '../support/loopback-project.js';

// Passwords that no `NAME=<high-entropy value>` rule sees: given in a tool's own syntax (`curl -u`, `mysql -p`,
// `sshpass -p`, `redis-cli -a`, `docker login -p`, `htpasswd -b`), low in entropy under a password name (Makefile
// `:=`, CI YAML, Dockerfile `ENV NAME value`, `docker run -e`), commented out, stated in prose, or reached through a
// YAML alias. Each is a distinct marker; the plan request the built CLI sends to the loopback provider, and what
// --print-prompt prints, must hold none of them.

/** A credential in the environment clawcode runs in, in no recognisable format. */
const HELD_TOKEN = 'plainTok3nValue2024';

const M = {
  curl: 'plum7tree',
  mysql: 'quartz8lamp',
  mysqldump: 'velvet3fox',
  sshpass: 'maple6river',
  redis: 'cedar4moth',
  docker: 'amber2wolf',
  htpasswd: 'coral5ink',
  makefile: 'birch1opal',
  gitlab: 'ember3sage',
  workflow: 'hazel8dune',
  dockerfile: 'frost6vale',
  readmeRun: 'orchid4peak',
  readmeProse: 'jade7storm',
  comment: 'ivory2reef',
  python: 'onyx5glen',
  anchor: 'tulip9crest',
  sql: 'fennel5arch',
  maven: 'gorse8lynx',
};

const FILES: Record<string, string> = {
  'scripts/deploy.sh': [
    '#!/bin/sh',
    `curl -s -X POST -u deploy:${M.curl} https://api.example.com/upload`,
    `mysql -u root -p${M.mysql} shop < seed.sql`,
    `mysqldump --user=root --password=${M.mysqldump} shop > shop.sql`,
    `sshpass -p '${M.sshpass}' ssh deploy@web1 'systemctl restart shop'`,
    `redis-cli -h cache -a ${M.redis} FLUSHALL`,
    '',
  ].join('\n'),
  Makefile: `DB_PASS := ${M.makefile}\n\nseed:\n\tdocker login -u ci -p ${M.docker} registry.example.com\n`,
  '.gitlab-ci.yml': `deploy:\n  variables:\n    DB_PASSWORD: ${M.gitlab}\n  script:\n    - ./scripts/deploy.sh\n`,
  '.github/workflows/ci.yml': `jobs:\n  test:\n    services:\n      db:\n        env:\n          password: ${M.workflow}\n`,
  Dockerfile: `FROM nginx\nENV POSTGRES_PASSWORD ${M.dockerfile}\nRUN htpasswd -b -c /etc/nginx/.htpasswd admin ${M.htpasswd}\n`,
  'README.md': `# Shop\n\nRun \`docker run -e POSTGRES_PASSWORD=${M.readmeRun} -d postgres\`.\nThe admin password is ${M.readmeProse}.\n`,
  'shop/db.py': `# password: ${M.comment}\nDB_PASSWORD = "${M.python}"\n\ndef connect():\n    return DB_PASSWORD\n`,
  'config/db.yml': `defaults: &dbpw ${M.anchor}\nproduction:\n  password: *dbpw\n`,
  'config/init.sql': `CREATE ROLE shop WITH LOGIN PASSWORD '${M.sql}';\n`,
  'config/settings.xml': `<settings><servers><server><id>shop</id><password>${M.maven}</password></server></servers></settings>\n`,
  // The provider key clawcode holds and a credential in its environment, in shapes no rule knows.
  'docs/ops.md': `# Ops\n\nThe staging gateway takes ${LOOPBACK_KEY}; the deploy hook takes ${HELD_TOKEN}.\n`,
};

const project = useLoopbackProject({ prefix: 'clawcode-secret-syntax-', files: FILES });
const TASK =
  'rename the shop database to store in the deploy script, Makefile, CI, Dockerfile, README, db.py and db.yml';
const PINS = [
  '--files',
  'scripts/',
  'Makefile',
  '.gitlab-ci.yml',
  '.github/',
  'Dockerfile',
  'README.md',
  'shop/',
  'config/',
  'docs/',
];

function expectNoMarker(text: string, where: string): void {
  for (const [name, marker] of Object.entries(M)) expect(text.includes(marker), `${name} in ${where}`).toBe(false);
}

describe('passwords in tool syntax, low in entropy, in comments and prose', () => {
  it('never reach the provider in the plan request (fails before the password rules)', async () => {
    const texts = [await planRequestText(project, [TASK, ...PINS])];
    for (const path of Object.keys(FILES)) expect(texts[0]).toContain(`## ${path}`);
    expect(texts[0]).toContain('curl -s -X POST -u deploy:[REDACTED:command_password] https://api.example.com/upload');
    expect(texts[0]).toContain('ENV POSTGRES_PASSWORD [REDACTED:password_assignment]');
    expectNoMarker(texts[0]!, 'the plan request');
  });

  it('the provider key and the environment’s credentials never leave, whatever their shape (fails before heldSecrets)', async () => {
    const env = { ...project.env, DEPLOY_HOOK_TOKEN: HELD_TOKEN };
    const texts = [await planRequestText(project, [TASK, ...PINS], env)];
    expect(texts[0]).toContain(
      'The staging gateway takes [REDACTED:held_secret]; the deploy hook takes [REDACTED:held_secret].',
    );
    expect(texts[0]).not.toContain(LOOPBACK_KEY);
    expect(texts[0]).not.toContain(HELD_TOKEN);
    const printed = await runCli(['--print-prompt', TASK, ...PINS, '--dir', project.project], { env });
    expect(printed.stdout).toContain('## docs/ops.md');
    expect(printed.stdout).not.toContain(HELD_TOKEN);
  });

  it('--print-prompt prints none of them', async () => {
    const result = await runCli(['--print-prompt', TASK, ...PINS, '--dir', project.project], { env: project.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('## scripts/deploy.sh');
    expect(result.stdout).toContain('mysql -u root -p[REDACTED:command_password] shop < seed.sql');
    expectNoMarker(result.stdout, '--print-prompt');
  });

  it('files that hold passwords by their name, a backup of .env and a shell history are not sent (fails before)', async () => {
    const held = {
      'db/password.txt': 'walnut6gale\n',
      'secrets/db_password': 'pepper3cove\n',
      '.env~': 'DB_PASSWORD=saffron8dew\n',
      '.bash_history': 'ls\nmysql -u root -p thistle2bay shop\n',
    };
    for (const [path, text] of Object.entries(held)) {
      await mkdir(join(project.project, path, '..'), { recursive: true });
      await writeFile(join(project.project, path), text);
    }
    const task = 'rename shop to store in db/password.txt, secrets/db_password, .env~ and .bash_history';
    const result = await runCli(['--print-prompt', task, '--dir', project.project, '--budget', '200000'], {
      env: project.env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('## scripts/deploy.sh');
    for (const value of ['walnut6gale', 'pepper3cove', 'saffron8dew', 'thistle2bay'])
      expect(result.stdout, value).not.toContain(value);
  });
});
