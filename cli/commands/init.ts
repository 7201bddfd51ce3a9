import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import chalk from 'chalk';
import { detectProjectSummary } from '../../memory/project-summary.js';
import { UsageError } from '../../utils/errors.js';

/**
 * The starter AGENTS.md text for a project, from what was detected (language, framework, test
 * command). Pure, so it can be tested without a file system.
 */
function starterAgentsMd(
  summary: { framework?: string; testCommand?: string; architecture?: string },
  projectName: string,
): string {
  return [
    `# ${projectName}`,
    '',
    'Instructions for coding agents (clawcode, Codex, Claude Code, …) working in this repository.',
    '',
    '## Project',
    `- Stack: ${summary.framework ?? 'unknown'}${summary.architecture ? ` (${summary.architecture})` : ''}`,
    `- Tests: ${summary.testCommand ? `\`${summary.testCommand}\`` : 'no test command detected; add one here'}`,
    '',
    '## Conventions',
    '- Match the style of the surrounding code; keep changes small and focused.',
    '- Add or update tests with every behaviour change.',
    '',
  ].join('\n');
}

/**
 * `clawcode init`: write a starter AGENTS.md at the project root from what is detected; never
 * overwrites an existing one.
 *
 * @throws UsageError (exit 2) when AGENTS.md already exists
 */
export async function runInitCommand(options: { rootDir: string; stdout: NodeJS.WritableStream }): Promise<void> {
  const target = join(options.rootDir, 'AGENTS.md');
  const exists = await access(target).then(
    () => true,
    () => false,
  );
  if (exists)
    throw new UsageError(`AGENTS.md already exists in ${options.rootDir}; not overwriting it.`, {
      code: 'init_exists',
    });
  const summary = await detectProjectSummary(options.rootDir);
  const name = options.rootDir.split(/[\\/]/).filter(Boolean).pop() ?? 'Project';
  // 'wx' so a file created between the check and the write is still never overwritten.
  await writeFile(target, starterAgentsMd(summary, name), { flag: 'wx' });
  options.stdout.write(
    `${chalk.green('✓')} Wrote AGENTS.md (${summary.framework ?? 'stack not detected'}${summary.testCommand ? `, tests: ${summary.testCommand}` : ''})\n`,
  );
}
