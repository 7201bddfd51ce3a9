import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../support/fixture.js';

// `clawcode init` copies the project's own name (package.json `name`, go.mod `module`) into AGENTS.md, a file
// the person reads in a terminal and clawcode sends as instructions. A name holding an OSC sequence is written as
// one line of plain text.

let base: string;
let home: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-init-name-'));
  // Outside the project: a clawcode home inside it is refused (tests/e2e/attack-home-in-project.test.ts).
  home = await mkdtemp(join(tmpdir(), 'clawcode-init-name-home-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

describe('a package name holding terminal controls', () => {
  it('is written into AGENTS.md without them (fails on main)', async () => {
    const name = 'app\u001b]0;pwned\u0007\u009b8m';
    await writeFile(join(base, 'package.json'), JSON.stringify({ name, scripts: { test: 'vitest' } }));
    const result = await runCli(['init', '--dir', base], { env: cleanEnv({ CLAWCODE_HOME: home }) });
    expect(result.code, result.stderr).toBe(0);
    const written = await readFile(join(base, 'AGENTS.md'), 'utf8');
    expect(written).toContain('- Stack: Node.js (JavaScript package "app ]0;pwned 8m")');
    expect(written).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});
