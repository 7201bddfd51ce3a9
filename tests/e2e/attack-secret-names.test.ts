import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, gitIn, runCli } from '../support/fixture.js';

// `pass` is the usual short name of a password in configuration (`MYSQL_PASS`, `SMTP_PASS` in a compose
// file, `dbPass` in code). A high-entropy value assigned to it is a secret like one assigned to `password`,
// and never leaves in a request; a word that only contains the letters (`bypass`, `compass`) is not a name.

const MARKERS = ['Zq8vN2xLp4Rt7Yw3', 'Zq8vN2xLp4Rt7Yw4', 'Zq8vN2xLp4Rt7Yw5', 'Zq8vN2xLp4Rt7Yw6'];

let base: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-secret-names-'));
  project = join(base, 'project');
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(
    join(project, 'docker-compose.yml'),
    `services:\n  db:\n    environment:\n      - MYSQL_PASS=${MARKERS[0]}\n      SMTP_PASS: ${MARKERS[1]}\n`,
  );
  await writeFile(
    join(project, 'src/config.js'),
    `module.exports = {\n  dbPass: "${MARKERS[2]}",\n  db_pass: "${MARKERS[3]}",\n  bypass: "Kp3mX9qL2vR8tN4w",\n};\n`,
  );
  gitIn(project, 'init', '-q');
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterAll(async () => rm(base, { recursive: true, force: true }));

describe('a password under the name `pass`', () => {
  it('is redacted from what would be sent (fails on main)', async () => {
    const task = 'update the docker-compose db environment and the config connect settings';
    const result = await runCli(['--print-prompt', task, '--dir', project, '--budget', '60000'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('## docker-compose.yml');
    expect(result.stdout).toContain('## src/config.js');
    for (const marker of MARKERS) expect(result.stdout).not.toContain(marker);
    expect(result.stdout).toContain('bypass: "Kp3mX9qL2vR8tN4w"');
  });
});
