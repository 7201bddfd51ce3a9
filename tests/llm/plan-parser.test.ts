import { describe, expect, it } from 'vitest';
import { extractJson, parsePlan, PlanParseError } from '../../llm/plan-parser.js';

const plan = {
  analysis: 'Add logging.',
  files_to_edit: [{ path: 'src/api.ts', reason: 'log requests' }],
  patches: [{ file: 'src/api.ts', operation: 'replace', find: 'a', replace: 'b', replace_all: null, occurrence: null }],
  commands: ['npm test'],
  agent_notes: ['uses vitest'],
};

describe('parsePlan', () => {
  it('accepts a bare JSON plan and normalizes null optional fields away', () => {
    const parsed = parsePlan(JSON.stringify(plan));
    expect(parsed.patches[0]).toEqual({ file: 'src/api.ts', operation: 'replace', find: 'a', replace: 'b' });
    expect(parsed.commands).toEqual(['npm test']);
    expect(parsed.agent_notes).toEqual(['uses vitest']);
  });

  it('accepts a plan inside a ```json fence with prose around it', () => {
    const raw = `Sure! Here is the plan:\n\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\`\nLet me know.`;
    expect(parsePlan(raw).analysis).toBe('Add logging.');
  });

  it('accepts a plan wrapped in prose whose trailing text holds braces', () => {
    const raw = `Plan: ${JSON.stringify(plan)} (note: {not json})`;
    expect(parsePlan(raw).files_to_edit).toEqual([{ path: 'src/api.ts', reason: 'log requests' }]);
  });

  it('keeps replace_all and occurrence when set', () => {
    const p = {
      ...plan,
      patches: [
        { file: 'x.ts', find: 'a', replace: 'b', replace_all: true, occurrence: null },
        { file: 'x.ts', find: 'c', replace: 'd', occurrence: 2 },
      ],
    };
    const parsed = parsePlan(JSON.stringify(p));
    expect(parsed.patches[0]!.replace_all).toBe(true);
    expect(parsed.patches[1]!.occurrence).toBe(2);
    expect(parsed.patches[1]!.operation).toBe('replace');
  });

  it('fills missing optional lists and accepts bare-path files_to_edit', () => {
    const parsed = parsePlan(JSON.stringify({ patches: [], files_to_edit: ['a.ts'] }));
    expect(parsed).toEqual({
      analysis: '',
      files_to_edit: [{ path: 'a.ts', reason: '' }],
      patches: [],
      commands: [],
      agent_notes: [],
    });
  });

  it('rejects wrong types with the schema path in the message', () => {
    const bad = { ...plan, patches: [{ file: 'a.ts', operation: 'replace', find: 1, replace: 'x' }] };
    expect(() => parsePlan(JSON.stringify(bad))).toThrowError(/patches\.0\.find/);
  });

  it('rejects a reply with no JSON object', () => {
    const error = (() => {
      try {
        parsePlan('I cannot help with that.');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(PlanParseError);
    expect((error as PlanParseError).exitCode).toBe(1);
    expect((error as PlanParseError).detail).toMatch(/no JSON object/);
  });

  it('rejects truncated JSON with the parser position', () => {
    expect(() => parsePlan('{"analysis": "x", "patches": [')).toThrowError(PlanParseError);
  });

  it('rejects an unknown operation and a non-positive occurrence', () => {
    expect(() =>
      parsePlan(JSON.stringify({ patches: [{ file: 'a', operation: 'delete', find: '', replace: '' }] })),
    ).toThrowError(/operation/);
    expect(() =>
      parsePlan(JSON.stringify({ patches: [{ file: 'a', find: 'x', replace: '', occurrence: 0 }] })),
    ).toThrowError(/occurrence/);
  });
});

describe('extractJson', () => {
  it('skips braces inside strings when finding the end of the object', () => {
    expect(extractJson('x {"a": "}{"} y')).toBe('{"a": "}{"}');
  });
  it('returns undefined without any object', () => {
    expect(extractJson('nothing here')).toBeUndefined();
  });
});
