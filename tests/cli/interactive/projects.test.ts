import { mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  addRecentProject,
  getProjectDirectoryChoices,
  getRecentProjects,
  OTHER_PROJECT,
  selectProject,
  timeAgo,
  validateProjectPath,
  type ProjectPrompts,
} from '../../../cli/interactive/projects.js';

let home: string;
let work: string;
const env = () => ({ CLAWCODE_HOME: home });

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
  work = await mkdtemp(join(tmpdir(), 'clawcode-projects-'));
});

describe('recent projects', () => {
  it('keeps the 5 most recent, newest first, without duplicates, in recent-projects.json', async () => {
    for (let i = 0; i < 7; i++)
      await addRecentProject(join(work, `p${i}`), env(), new Date(Date.UTC(2026, 0, 1, 0, i)));
    await addRecentProject(join(work, 'p3'), env(), new Date(Date.UTC(2026, 0, 2)));
    const recent = await getRecentProjects(env());
    expect(recent.map((r) => r.path)).toEqual(['p3', 'p6', 'p5', 'p4', 'p2'].map((p) => join(work, p)));
    const file = JSON.parse(await readFile(join(home, 'recent-projects.json'), 'utf8'));
    expect(file.recent[0]).toEqual({ path: join(work, 'p3'), lastUsed: '2026-01-02T00:00:00.000Z' });
    // Like everything under the home: only the person may read it, whatever the home's own mode.
    expect((await stat(join(home, 'recent-projects.json'))).mode & 0o777).toBe(0o600);
  });

  it('reads a missing or corrupt file as an empty list', async () => {
    expect(await getRecentProjects(env())).toEqual([]);
    await writeFile(join(home, 'recent-projects.json'), '{not json');
    expect(await getRecentProjects(env())).toEqual([]);
    await writeFile(join(home, 'recent-projects.json'), '{"recent": [{"path": 3}]}');
    expect(await getRecentProjects(env())).toEqual([]);
  });
});

describe('getProjectDirectoryChoices', () => {
  it('offers ".", marked subfolders in order, then Other', async () => {
    await mkdir(join(work, 'web'));
    await writeFile(join(work, 'web', 'package.json'), '{}');
    await mkdir(join(work, 'api', '.git'), { recursive: true });
    await mkdir(join(work, 'svc'));
    await writeFile(join(work, 'svc', 'go.mod'), 'module x');
    await mkdir(join(work, 'docs'));
    await mkdir(join(work, 'node_modules', 'x'), { recursive: true });
    await writeFile(join(work, 'node_modules', 'package.json'), '{}');
    const choices = await getProjectDirectoryChoices(work);
    expect(choices.map((c) => c.name)).toEqual(['. (current folder)', 'api/', 'svc/', 'web/', 'Other (enter path)']);
    expect(choices[1]).toMatchObject({ value: join(work, 'api'), description: '.git' });
    expect(choices.at(-1)!.value).toBe(OTHER_PROJECT);
  });
});

describe('validateProjectPath', () => {
  it('accepts a folder and explains a missing path or a file', async () => {
    await writeFile(join(work, 'file.txt'), 'x');
    expect(await validateProjectPath('.', work)).toBe(true);
    expect(await validateProjectPath('nope', work)).toBe('nope does not exist');
    expect(await validateProjectPath('file.txt', work)).toBe('file.txt is not a folder');
    expect(await validateProjectPath('  ', work)).toBe('Enter a folder path');
  });
});

describe('selectProject', () => {
  function prompts(
    pick: (choices: { name: string; value: string }[]) => string,
    typed = '',
  ): ProjectPrompts & { seen: string[][] } {
    const seen: string[][] = [];
    return {
      seen,
      async select({ choices }) {
        seen.push(choices.map((c) => c.name));
        return pick(choices);
      },
      async input({ validate }) {
        expect(await validate('does/not/exist')).toMatch(/does not exist/);
        expect(await validate(typed)).toBe(true);
        return typed;
      },
    };
  }

  it('offers the current folder first (Enter keeps it), then recent projects that exist with relative dates', async () => {
    const old = await mkdtemp(join(tmpdir(), 'clawcode-old-'));
    await addRecentProject(old, env(), new Date(Date.now() - 3 * 3_600_000));
    await addRecentProject(join(work, 'gone'), env(), new Date(0));
    const first = prompts((choices) => choices[0]!.value);
    expect(await selectProject({ cwd: work, env: env(), prompts: first })).toBe(work);
    expect(first.seen[0]).toEqual(['. (current folder)', `${old} (opened 3 hours ago)`, 'Other (enter path)']);
    const second = prompts((choices) => choices[1]!.value);
    expect(await selectProject({ cwd: work, env: env(), prompts: second })).toBe(old);
    expect((await getRecentProjects(env()))[0]!.path).toBe(old);
  });

  it('says when a project was opened in words', () => {
    const now = new Date('2026-03-10T12:00:00Z');
    expect(timeAgo('2026-03-10T11:59:30Z', now)).toBe('just now');
    expect(timeAgo('2026-03-10T11:55:00Z', now)).toBe('5 minutes ago');
    expect(timeAgo('2026-03-10T09:00:00Z', now)).toBe('3 hours ago');
    expect(timeAgo('2026-03-09T10:00:00Z', now)).toBe('yesterday');
    expect(timeAgo('2026-02-20T12:00:00Z', now)).toBe('3 weeks ago');
    expect(timeAgo('2025-01-10T12:00:00Z', now)).toBe('last year');
    expect(timeAgo('not a date', now)).toBe('not a date');
  });

  it('"Other" asks for a path, validates it and resolves it against cwd', async () => {
    await mkdir(join(work, 'deep', 'proj'), { recursive: true });
    const p = prompts(() => OTHER_PROJECT, 'deep/proj');
    expect(await selectProject({ cwd: work, env: env(), prompts: p })).toBe(join(work, 'deep', 'proj'));
    expect((await getRecentProjects(env())).map((r) => r.path)).toEqual([join(work, 'deep', 'proj')]);
  });
});
