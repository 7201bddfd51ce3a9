import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, buildUserPrompt } from '../../llm/prompts.js';
import { rangesText, wholeFileText } from '../../agent/context/pack-text.js';

describe('prompts', () => {
  it('system prompt names JSON (required by JSON mode) and embeds the schema', () => {
    const s = buildSystemPrompt();
    expect(s).toContain('JSON');
    expect(s).toContain('"replace_all"');
    expect(s).toContain('find: ""');
  });

  it('user prompt holds the task, memory, outline and each file verbatim inside a safe fence', () => {
    const text = 'const a = "```";\nconsole.log(a);\n';
    const bLines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
    const u = buildUserPrompt({
      task: 'add logging',
      outline: 'src/a.ts\nsrc/b.ts',
      files: [
        { path: 'src/a.ts', text: wholeFileText('src/a.ts', text), ranges: null },
        {
          path: 'src/b.ts',
          text: rangesText('src/b.ts', bLines, [
            [3, 4],
            [9, 9],
          ]),
          ranges: [
            [3, 4],
            [9, 9],
          ],
        },
      ],
      memoryContext: '\n\n[Context memory]\nRecent tasks: t1\n',
      instructions: 'Use tabs.',
    });
    expect(u).toContain('# Task\nadd logging');
    expect(u).toContain('# Project instructions\nUse tabs.');
    expect(u).toContain('[Context memory]\nRecent tasks: t1');
    expect(u).toContain('## src/a.ts (whole file)\n````\n' + text + '````');
    // One header per file; each excerpt's line marker stands outside its fence.
    expect(u).toContain(
      '## src/b.ts (excerpts: lines 3-4, 9-9 of 12)\n[lines 3-4]\n```\nline 3\nline 4\n```\n[lines 9-9]\n```\nline 9\n```',
    );
    expect(u.match(/^## /gm)).toHaveLength(2);
    expect(u.indexOf('# Task')).toBeLessThan(u.indexOf('# File contents'));
  });

  it('says so when no file content was selected', () => {
    expect(buildUserPrompt({ task: 't', outline: '', files: [], memoryContext: '' })).toContain(
      'no file content selected',
    );
  });
});
