import chalk from 'chalk';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { taskHeadline } from '../../utils/task-text.js';
import { formatMs, formatUsage, plural, undoCommand } from '../console/render.js';
import type { TaskOptions, TaskReport } from './flow.js';

/** The summary box; `wallMs` from the start of the task, `promptMs` of it spent at questions. */
export async function printSummary(
  report: TaskReport,
  options: Pick<TaskOptions, 'stdout' | 'rootDir'>,
  time: { wallMs: number; promptMs: number },
): Promise<void> {
  const { default: boxen } = await import('boxen');
  const ran = report.commands.filter((c) => c.ran);
  const lines = [
    `${chalk.bold('Task:')} ${escapeTerminal(taskHeadline(report.task))}`,
    `${chalk.bold('Result:')} ${report.status.replace('_', ' ')}${report.filesWritten.length ? `, ${plural(report.filesWritten.length, 'file')} written` : ''}`,
    ...(ran.length
      ? [`${chalk.bold('Commands:')} ${ran.filter((c) => c.exitCode === 0).length}/${ran.length} succeeded`]
      : []),
    // A saved plan (`clawcode apply`) had no model call in this run.
    report.providerId === 'none'
      ? `${chalk.bold('Model:')} none (${report.provider === 'rewrite' ? 'one rule' : `saved plan${report.model ? ` from ${report.provider}/${report.model}` : ''}`})`
      : `${chalk.bold('Model:')} ${report.provider}/${report.model} · ${formatUsage(report.usage ?? undefined, report.costUsd ?? undefined)}`,
    `${chalk.bold('Time:')} model ${formatMs(report.timings.modelMs)} · wall ${formatMs(time.wallMs)}` +
      (time.promptMs >= 1000 ? ` (${formatMs(time.promptMs)} of it at questions)` : ''),
    ...(report.commit ? [`${chalk.bold('Commit:')} ${report.commit}`] : []),
    // A rolled-back run has nothing left to undo.
    ...(report.runId && report.status !== 'rolled_back'
      ? [chalk.dim(`Undo with: ${undoCommand(report.runId, options.rootDir)}`)]
      : []),
  ];
  options.stdout.write(
    boxen(escapeTerminal(lines.join('\n'), 'colored'), {
      padding: { left: 1, right: 1 },
      borderStyle: 'round',
      borderColor: report.exitCode === 0 ? 'green' : 'red',
    }) + '\n',
  );
}
