import { access, readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { clawcodeHome } from '../../config/paths.js';
import { writeFileDurable } from '../../utils/journal/durable-write.js';
import { UsageError } from '../../utils/errors.js';
import { makeDirs } from '../../utils/make-dirs.js';

/** One remembered project folder; `lastUsed` is an ISO-8601 timestamp. */
export interface RecentProject {
  path: string;
  lastUsed: string;
}

/** How many recent projects are kept. */
const MAX_RECENT_PROJECTS = 5;

/** Files or folders whose presence marks a folder as a project root. */
const PROJECT_MARKERS = [
  'package.json',
  '.git',
  'pyproject.toml',
  'go.mod',
  'Cargo.toml',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'Gemfile',
  'composer.json',
  'requirements.txt',
  'setup.py',
  'deno.json',
  'mix.exs',
] as const;

/**
 * Whether `dir` itself holds one of the {@link PROJECT_MARKERS} (a `.git`, a `package.json`, ...).
 * @returns false for a missing or unreadable folder
 */
export async function isProjectFolder(dir: string): Promise<boolean> {
  const found = await Promise.all(PROJECT_MARKERS.map((m) => exists(join(dir, m))));
  return found.some(Boolean);
}

/** The choice value standing for "Other (enter path)". */
export const OTHER_PROJECT = '\u0000other';

/** Subfolders never offered as projects: dependency and build output folders. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'target', 'vendor', '__pycache__']);

/** Absolute path of `<clawcodeHome>/recent-projects.json`. */
function recentProjectsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(clawcodeHome(env), 'recent-projects.json');
}

/**
 * Read the recent projects, most recent first. A missing or corrupt file (or wrong shape) reads as
 * no projects: the list is a convenience, never a reason to fail.
 *
 * @returns at most {@link MAX_RECENT_PROJECTS} entries with absolute paths
 */
export async function getRecentProjects(env: NodeJS.ProcessEnv = process.env): Promise<RecentProject[]> {
  let raw: string;
  try {
    raw = await readFile(recentProjectsPath(env), 'utf8');
  } catch {
    return [];
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    const list = (parsed as { recent?: unknown }).recent;
    if (!Array.isArray(list)) return [];
    return list
      .filter((e): e is RecentProject => typeof e?.path === 'string' && typeof e?.lastUsed === 'string')
      .map((e) => ({ path: e.path, lastUsed: e.lastUsed }))
      .sort((a, b) => b.lastUsed.localeCompare(a.lastUsed))
      .slice(0, MAX_RECENT_PROJECTS);
  } catch {
    return [];
  }
}

/**
 * Put `projectPath` (resolved) at the front of the recent list, de-duplicated, capped at
 * {@link MAX_RECENT_PROJECTS}, and write `{ recent: [{ path, lastUsed }] }` atomically.
 *
 * @param now  clock, injected for tests
 * @returns the new list
 * @throws the Node fs error (EACCES, ENOSPC, …) when CLAWCODE_HOME cannot be created or written
 */
export async function addRecentProject(
  projectPath: string,
  env: NodeJS.ProcessEnv = process.env,
  now: Date = new Date(),
): Promise<RecentProject[]> {
  const path = resolve(projectPath);
  const current = await getRecentProjects(env);
  const recent = [{ path, lastUsed: now.toISOString() }, ...current.filter((p) => p.path !== path)].slice(
    0,
    MAX_RECENT_PROJECTS,
  );
  await makeDirs(clawcodeHome(env), 0o700);
  // 0600 like everything else under the home: the list names the person's projects.
  await writeFileDurable(recentProjectsPath(env), `${JSON.stringify({ recent }, null, 2)}\n`, { mode: 0o600 });
  return recent;
}

/** A choice for the project picker; `value` is an absolute path or {@link OTHER_PROJECT}. */
export interface ProjectChoice {
  name: string;
  value: string;
  description?: string;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The folder choices under `cwd`: "." first, then each direct, non-hidden subfolder
 * holding a project marker (alphabetical), then "Other (enter path)".
 *
 * @param cwd  folder to look in
 * @returns choices; values are absolute paths except the last, {@link OTHER_PROJECT}
 */
export async function getProjectDirectoryChoices(cwd: string): Promise<ProjectChoice[]> {
  const root = resolve(cwd);
  const choices: ProjectChoice[] = [{ name: '. (current folder)', value: root, description: root }];
  let entries: { name: string; isDirectory(): boolean }[] = [];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    // An unreadable cwd still leaves "." and "Other" to choose from.
  }
  const dirs = entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !SKIPPED_DIRS.has(e.name))
    .map((e) => e.name)
    .sort();
  for (const name of dirs) {
    const dir = join(root, name);
    const markers = await Promise.all(PROJECT_MARKERS.map(async (m) => ((await exists(join(dir, m))) ? m : null)));
    const found = markers.filter((m): m is (typeof PROJECT_MARKERS)[number] => m !== null);
    if (found.length > 0) choices.push({ name: `${name}/`, value: dir, description: found.join(', ') });
  }
  choices.push({ name: 'Other (enter path)', value: OTHER_PROJECT });
  return choices;
}

/**
 * Check a typed project path: it must exist and be a folder.
 *
 * @returns true, or a one-line message for the prompt to show
 */
export async function validateProjectPath(input: string, cwd: string): Promise<true | string> {
  const trimmed = input.trim();
  if (!trimmed) return 'Enter a folder path';
  try {
    const info = await stat(resolve(cwd, trimmed));
    return info.isDirectory() ? true : `${trimmed} is not a folder`;
  } catch {
    return `${trimmed} does not exist`;
  }
}

/** The prompts `selectProject` needs; @inquirer/prompts' `select` and `input` fit, tests pass fakes. */
export interface ProjectPrompts {
  select(config: { message: string; choices: ProjectChoice[] }): Promise<string>;
  input(config: { message: string; validate: (value: string) => Promise<true | string> }): Promise<string>;
}

/**
 * How long ago `iso` was, in words: "just now", "5 minutes ago", "yesterday", "3 weeks ago"
 * (Intl.RelativeTimeFormat, English, `numeric: 'auto'`). A date that does not parse is shown as it is.
 *
 * @param now  clock, injected for tests
 */
export function timeAgo(iso: string, now: Date = new Date()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((then - now.getTime()) / 1000);
  if (Math.abs(seconds) < 60) return 'just now';
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 365 * 86_400],
    ['month', 30 * 86_400],
    ['week', 7 * 86_400],
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const [unit, size] = units.find(([, size]) => Math.abs(seconds) >= size) ?? ['minute', 60];
  return format.format(Math.round(seconds / size), unit);
}

/**
 * The projects to offer from `cwd`, current folder first (so Enter keeps it): ". (current folder)",
 * then recent projects that still exist with when they were last opened ("(opened 3 hours ago)"), then the
 * marked subfolders of `cwd`. No "Other" entry.
 *
 * @param now  clock for the relative dates, injected for tests
 * @returns choices whose values are absolute paths
 */
export async function projectChoices(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  now: Date = new Date(),
): Promise<ProjectChoice[]> {
  const dirChoices = (await getProjectDirectoryChoices(cwd)).filter((c) => c.value !== OTHER_PROJECT);
  const [current, ...subfolders] = dirChoices;
  const seen = new Set<string>([current!.value]);
  const recentChoices: ProjectChoice[] = [];
  for (const p of await getRecentProjects(env)) {
    if (seen.has(p.path) || (await validateProjectPath(p.path, cwd)) !== true) continue;
    seen.add(p.path);
    recentChoices.push({ name: `${p.path} (opened ${timeAgo(p.lastUsed, now)})`, value: p.path });
  }
  return [current!, ...recentChoices, ...subfolders.filter((c) => !seen.has(c.value))];
}

/**
 * Ask which project to work on: the current folder first (the default), recent projects that still exist
 * (with relative dates), the marked subfolders of `cwd`, then "Other (enter path)" with validation. The
 * chosen folder is added to the recent list.
 *
 * @returns the absolute path of the chosen folder
 * @throws UsageError if a typed path fails validation (only reachable with a non-validating prompt);
 *         prompt errors (e.g. Ctrl-C → ExitPromptError) pass through
 */
export async function selectProject(options: {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  prompts?: ProjectPrompts;
}): Promise<string> {
  const env = options.env ?? process.env;
  const prompts = options.prompts ?? (await loadInquirerPrompts());
  const choices = [...(await projectChoices(options.cwd, env)), { name: 'Other (enter path)', value: OTHER_PROJECT }];
  let chosen = await prompts.select({ message: 'Which project?', choices });
  if (chosen === OTHER_PROJECT) {
    const typed = await prompts.input({
      message: 'Project folder:',
      validate: (value) => validateProjectPath(value, options.cwd),
    });
    const verdict = await validateProjectPath(typed, options.cwd);
    if (verdict !== true) throw new UsageError(verdict, { code: 'bad_project_dir' });
    chosen = resolve(options.cwd, typed.trim());
  }
  await addRecentProject(chosen, env);
  return chosen;
}

async function loadInquirerPrompts(): Promise<ProjectPrompts> {
  const { select, input } = await import('@inquirer/prompts');
  return {
    select: (config) => select<string>(config),
    input: (config) => input(config),
  };
}
