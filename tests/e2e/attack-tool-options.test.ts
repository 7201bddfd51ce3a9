import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { fingerprintTree, runCli } from '../support/fixture.js';
import { useLoopbackProject } from '../support/loopback-project.js';
import { planOf } from '../support/plans.js';
import { replies } from '../support/provider-server.js';

// A hostile plan whose commands are allow-listed tools handed a program or code by module or option: `python -m`
// runs any module (timeit runs the statement it is given), cargo runs the test binary through a configured
// runner. With --yes --run-commands and no terminal each ran as "a local build/test tool" and deleted src/.

const sandbox = await detectSandbox();
const has = (tool: string): boolean => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;

const project = useLoopbackProject({
  prefix: 'clawcode-attack-options-',
  files: {
    'Cargo.toml': '[package]\nname = "c"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    'src/lib.rs': '#[test]\nfn t() {}\n',
  },
});

type Report = { commands: { command: string; ran: boolean; decision?: string; skipped?: string }[] };

const ATTACKS: [tool: string, command: string][] = [
  ['python3', `python3 -m timeit "__import__('shutil').rmtree('src')"`],
  ['cargo', `cargo test --config "target.'cfg(all())'.runner=['rm','-rf','src']"`],
];

describe(`allow-listed tools given a program or code${sandbox.available ? '' : ` (skipped: ${sandbox.reason})`}`, () => {
  for (const [tool, command] of ATTACKS) {
    const skip = !sandbox.available || !has(tool);
    it.skipIf(skip)(`${command} is not run unasked (fails on main)`, { timeout: 60_000 }, async () => {
      const before = fingerprintTree(project.project);
      project.server.reply(replies.plan(planOf([], { commands: [command] })));
      const result = await runCli(['run the checks', '--dir', project.project, '--yes', '--run-commands', '--json'], {
        env: project.env,
        timeoutMs: 45_000,
      });
      const report = JSON.parse(result.stdout) as Report;
      expect(report.commands[0], result.stderr).toMatchObject({ ran: false, decision: 'ask-user' });
      expect(fingerprintTree(project.project)).toEqual(before);
    });
  }
});
