import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  addRecentProject,
  getProjectDirectoryChoices,
  getRecentProjects,
  OTHER_PROJECT,
  selectProject,
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

  it('lists existing recent projects first and records the choice', async () => {
    const old = await mkdtemp(join(tmpdir(), 'clawcode-old-'));
    await addRecentProject(old, env());
    await addRecentProject(join(work, 'gone'), env(), new Date(0));
    const p = prompts((choices) => choices[0]!.value);
    expect(await selectProject({ cwd: work, env: env(), prompts: p })).toBe(old);
    expect(p.seen[0]).toEqual([`${old} (recent)`, '. (current folder)', 'Other (enter path)']);
    expect((await getRecentProjects(env()))[0]!.path).toBe(old);
  });

  it('"Other" asks for a path, validates it and resolves it against cwd', async () => {
    await mkdir(join(work, 'deep', 'proj'), { recursive: true });
    const p = prompts(() => OTHER_PROJECT, 'deep/proj');
    expect(await selectProject({ cwd: work, env: env(), prompts: p })).toBe(join(work, 'deep', 'proj'));
    expect((await getRecentProjects(env())).map((r) => r.path)).toEqual([join(work, 'deep', 'proj')]);
  });
});
