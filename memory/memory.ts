import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { clawcodeHome } from '../utils/home.js';
import { getProjectHash } from '../utils/project-hash.js';

/** Caps of the session memory lists (reference §3.5). */
export const MAX_LAST_TASKS = 10;
export const MAX_RECENT_FILES = 30;
export const MAX_AGENT_NOTES = 20;

/** What is known about one project across sessions (reference §3.5 global memory). */
export interface ProjectSummary {
  framework?: string;
  testCommand?: string;
  architecture?: string;
}

/** `<home>/memory/global.json`. */
export interface GlobalMemory {
  projectSummaries: Record<string, ProjectSummary>;
}

/** `<home>/memory/sessions/<projectHash>.json`; arrays are newest first and capped. */
export interface SessionMemory {
  lastTasks: string[];
  recentFiles: string[];
  agentNotes: string[];
}

function memoryDir(homeDir?: string): string {
  return join(homeDir ?? clawcodeHome(), 'memory');
}

function sessionPath(projectRoot: string, homeDir?: string): string {
  return join(memoryDir(homeDir), 'sessions', `${getProjectHash(projectRoot)}.json`);
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    // Memory is a convenience: a missing or corrupt file starts empty rather than failing a task.
    return undefined;
  }
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
  await rename(tmp, path);
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Load global memory; a missing or corrupt file gives an empty memory. */
export async function loadGlobalMemory(homeDir?: string): Promise<GlobalMemory> {
  const data = (await readJson(join(memoryDir(homeDir), 'global.json'))) as { projectSummaries?: unknown } | undefined;
  const summaries = data?.projectSummaries;
  return { projectSummaries: summaries && typeof summaries === 'object' ? (summaries as Record<string, ProjectSummary>) : {} };
}

/** Save global memory atomically (temp file + rename). */
export async function saveGlobalMemory(memory: GlobalMemory, homeDir?: string): Promise<void> {
  await writeJson(join(memoryDir(homeDir), 'global.json'), memory);
}

/** Load the session memory of one project; a missing or corrupt file gives empty lists. */
export async function loadSessionMemory(projectRoot: string, homeDir?: string): Promise<SessionMemory> {
  const data = (await readJson(sessionPath(projectRoot, homeDir))) as Partial<Record<keyof SessionMemory, unknown>> | undefined;
  return { lastTasks: strings(data?.lastTasks), recentFiles: strings(data?.recentFiles), agentNotes: strings(data?.agentNotes) };
}

/**
 * The memory block of the user prompt (reference §4.8): project summary, up to 5 recent tasks,
 * 10 recent files and 5 notes.
 *
 * @returns `"\n\n[Context memory]\n..."`, or `""` when there is nothing to say
 */
export function buildMemoryContext(projectRoot: string, global: GlobalMemory, session: SessionMemory): string {
  const parts: string[] = [];
  const summary = global.projectSummaries[resolve(projectRoot)];
  if (summary && (summary.framework || summary.testCommand || summary.architecture)) {
    parts.push(
      `Project: framework=${summary.framework ?? 'unknown'}, testCommand=${summary.testCommand ?? 'unknown'}, architecture=${summary.architecture ?? 'unknown'}`,
    );
  }
  if (session.lastTasks.length) parts.push(`Recent tasks: ${session.lastTasks.slice(0, 5).join(' | ')}`);
  if (session.recentFiles.length) parts.push(`Recently touched files: ${session.recentFiles.slice(0, 10).join(', ')}`);
  if (session.agentNotes.length) parts.push(`Agent notes: ${session.agentNotes.slice(0, 5).join(' | ')}`);
  return parts.length ? `\n\n[Context memory]\n${parts.join('\n')}\n` : '';
}

/** Put `items` first, then the previous entries, without duplicates, capped at `max`. */
function prependUnique(items: readonly string[], previous: readonly string[], max: number): string[] {
  return [...new Set([...items, ...previous])].slice(0, max);
}

/**
 * Record a finished task in the project's session memory (reference §4.8 `saveSessionAfterRun`):
 * the task, the files it touched and the model's notes go first, deduplicated and capped.
 *
 * @returns the memory as saved
 */
export async function saveSessionAfterRun(
  projectRoot: string,
  task: string,
  filesTouched: readonly string[],
  agentNotes: readonly string[],
  homeDir?: string,
): Promise<SessionMemory> {
  const current = await loadSessionMemory(projectRoot, homeDir);
  const next: SessionMemory = {
    lastTasks: prependUnique([task], current.lastTasks, MAX_LAST_TASKS),
    recentFiles: prependUnique(filesTouched, current.recentFiles, MAX_RECENT_FILES),
    agentNotes: agentNotes.length ? prependUnique(agentNotes, current.agentNotes, MAX_AGENT_NOTES) : current.agentNotes,
  };
  await writeJson(sessionPath(projectRoot, homeDir), next);
  return next;
}
