import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  buildMemoryContext, loadGlobalMemory, loadSessionMemory, MAX_LAST_TASKS, MAX_RECENT_FILES, saveGlobalMemory, saveSessionAfterRun,
} from '../../memory/memory.js';
import { getProjectHash } from '../../memory/project-hash.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
});

describe('project hash', () => {
  it('is the first 16 hex chars of sha256 of the resolved path, stable across spellings', () => {
    expect(getProjectHash('/tmp/x/../proj')).toBe(getProjectHash('/tmp/proj'));
    expect(getProjectHash('/tmp/proj')).toMatch(/^[0-9a-f]{16}$/);
    expect(getProjectHash('/tmp/proj')).not.toBe(getProjectHash('/tmp/proj2'));
  });
});

describe('session memory', () => {
  it('starts empty, then records task, files and notes under sessions/<hash>.json', async () => {
    expect(await loadSessionMemory('/p', home)).toEqual({ lastTasks: [], recentFiles: [], agentNotes: [] });
    await saveSessionAfterRun('/p', 'task one', ['a.ts'], ['note'], home);
    const raw = JSON.parse(await readFile(join(home, 'memory', 'sessions', `${getProjectHash('/p')}.json`), 'utf8'));
    expect(raw).toEqual({ lastTasks: ['task one'], recentFiles: ['a.ts'], agentNotes: ['note'] });
  });

  it('puts the newest first, dedupes and caps', async () => {
    for (let i = 0; i < MAX_LAST_TASKS + 5; i++) await saveSessionAfterRun('/p', `t${i}`, [`f${i}.ts`, 'common.ts'], [], home);
    await saveSessionAfterRun('/p', 't3', ['f3.ts'], [], home);
    const m = await loadSessionMemory('/p', home);
    expect(m.lastTasks).toHaveLength(MAX_LAST_TASKS);
    expect(m.lastTasks[0]).toBe('t3');
    expect(m.lastTasks.filter((t) => t === 't3')).toHaveLength(1);
    expect(m.recentFiles[0]).toBe('f3.ts');
    expect(new Set(m.recentFiles).size).toBe(m.recentFiles.length);
    expect(m.recentFiles.length).toBeLessThanOrEqual(MAX_RECENT_FILES);
    expect(m.agentNotes).toEqual([]);
  });

  it('keeps projects apart', async () => {
    await saveSessionAfterRun('/p1', 'a', [], [], home);
    expect((await loadSessionMemory('/p2', home)).lastTasks).toEqual([]);
  });
});

describe('buildMemoryContext', () => {
  it('is empty without memory', () => {
    expect(buildMemoryContext('/p', { projectSummaries: {} }, { lastTasks: [], recentFiles: [], agentNotes: [] })).toBe('');
  });

  it('lists summary, up to 5 tasks, 10 files and 5 notes', async () => {
    await saveGlobalMemory({ projectSummaries: { [resolve('/p')]: { framework: 'express', testCommand: 'npm test' } } }, home);
    const global = await loadGlobalMemory(home);
    const ctx = buildMemoryContext('/p', global, {
      lastTasks: ['t1', 't2', 't3', 't4', 't5', 't6'],
      recentFiles: Array.from({ length: 12 }, (_, i) => `f${i}`),
      agentNotes: ['n1'],
    });
    expect(ctx.startsWith('\n\n[Context memory]\n')).toBe(true);
    expect(ctx).toContain('framework=express, testCommand=npm test');
    expect(ctx).toContain('Recent tasks: t1 | t2 | t3 | t4 | t5\n');
    expect(ctx).toContain('f9\n');
    expect(ctx).not.toContain('f10');
    expect(ctx).toContain('Agent notes: n1');
  });
});
