import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, buildUserPrompt } from '../../llm/prompts.js';

describe('prompts', () => {
  it('system prompt names JSON (required by JSON mode) and embeds the schema', () => {
    const s = buildSystemPrompt();
    expect(s).toContain('JSON');
    expect(s).toContain('"replace_all"');
    expect(s).toContain('find: ""');
  });

  it('user prompt holds the task, memory, outline and each file verbatim inside a safe fence', () => {
    const text = 'const a = "```";\nconsole.log(a);\n';
    const u = buildUserPrompt({
      task: 'add logging',
      outline: 'src/a.ts\nsrc/b.ts',
      files: [{ path: 'src/a.ts', text, ranges: null }, { path: 'src/b.ts', text: 'x', ranges: [[3, 9]] }],
      memoryContext: '\n\n[Context memory]\nRecent tasks: t1\n',
      instructions: 'Use tabs.',
    });
    expect(u).toContain('# Task\nadd logging');
    expect(u).toContain('# Project instructions\nUse tabs.');
    expect(u).toContain('[Context memory]\nRecent tasks: t1');
    expect(u).toContain('## src/a.ts (whole file)\n````\n' + text + '````');
    expect(u).toContain('## src/b.ts (excerpts, lines 3-9)');
    expect(u.indexOf('# Task')).toBeLessThan(u.indexOf('# File contents'));
  });

  it('says so when no file content was selected', () => {
    expect(buildUserPrompt({ task: 't', outline: '', files: [], memoryContext: '' })).toContain('no file content selected');
  });
});
