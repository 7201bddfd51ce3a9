import { describe, expect, it } from 'vitest';
import { checkPlan, hashBytes, makeSavedPlan } from '../../agent/plan-file.js';
import { readPlanText } from '../../agent/plan-source.js';
import type { Plan } from '../../utils/plan.js';

const plan = (patches: Plan['patches']): Plan => ({
  analysis: '',
  files_to_edit: [],
  patches,
  commands: [],
  agent_notes: [],
});

describe('saved plans', () => {
  it('round-trips through makeSavedPlan and readPlanText with base hashes', () => {
    const p = plan([{ file: 'a.ts', operation: 'replace', find: 'x', replace: 'y' }]);
    const saved = makeSavedPlan(
      p,
      new Map([
        ['a.ts', Buffer.from('x\n')],
        ['new.ts', null],
      ]),
      { task: 't', provider: 'openai', model: 'm', now: new Date(0) },
    );
    expect(saved.baseHashes).toEqual({ 'a.ts': hashBytes(Buffer.from('x\n')), 'new.ts': null });
    const read = readPlanText(JSON.stringify(saved));
    expect(read.plan).toEqual(p);
    expect(read.saved?.task).toBe('t');
    expect(read.saved?.createdAt).toBe('1970-01-01T00:00:00.000Z');
  });

  it('reads a bare plan, and a model answer with prose around it', () => {
    const p = plan([]);
    expect(readPlanText(JSON.stringify(p)).saved).toBeUndefined();
    expect(readPlanText(`Here:\n\`\`\`json\n${JSON.stringify(p)}\n\`\`\``).plan).toEqual(p);
  });
});

describe('checkPlan', () => {
  const contents = new Map([['a.ts', 'one\ntwo\ntwo\nthree\n']]);

  it('classifies applies, already applied, ambiguous and conflict, in order', () => {
    const checks = checkPlan(
      plan([
        { file: 'a.ts', operation: 'replace', find: 'one\n', replace: 'ONE\n' },
        { file: 'a.ts', operation: 'replace', find: 'four\n', replace: 'three\n' },
        { file: 'a.ts', operation: 'replace', find: 'two\n', replace: 'TWO\n' },
        { file: 'a.ts', operation: 'replace', find: 'five\n', replace: 'six\n' },
      ]),
      contents,
    );
    expect(checks.map((c) => c.status)).toEqual(['applies', 'already_applied', 'ambiguous', 'conflict']);
    expect(checks[0]!.detail).toBe('exact');
  });

  it('says already applied when the replacement keeps its find (applying again would duplicate the addition)', () => {
    const applied = new Map([['a.ts', 'one\nadded\ntwo\n']]);
    const checks = checkPlan(
      plan([{ file: 'a.ts', operation: 'replace', find: 'one\n', replace: 'one\nadded\n' }]),
      applied,
    );
    expect(checks.map((c) => c.status)).toEqual(['already_applied']);
    // A find left outside the replacement can still apply there.
    const twice = new Map([['a.ts', 'one\nadded\none\n']]);
    expect(
      checkPlan(plan([{ file: 'a.ts', operation: 'replace', find: 'one\n', replace: 'one\nadded\n' }]), twice)[0]!
        .status,
    ).not.toBe('already_applied');
  });

  it('says already applied when the replacement stands re-indented or with CRLF line ends', () => {
    const applied = new Map([['a.py', 'def f():\r\n        return 2\r\n']]);
    const checks = checkPlan(
      plan([{ file: 'a.py', operation: 'replace', find: '    return 1\n', replace: '    return 2\n' }]),
      applied,
    );
    expect(checks.map((c) => c.status)).toEqual(['already_applied']);
  });

  it('says already applied for a file-creating patch whose file holds exactly its text', () => {
    const created = new Map([['new.ts', 'export const x = 1;\n']]);
    const make = plan([{ file: 'new.ts', operation: 'replace', find: '', replace: 'export const x = 1;\n' }]);
    expect(checkPlan(make, created)[0]!.status).toBe('already_applied');
    expect(checkPlan(make, new Map([['new.ts', '']]))[0]!.status).toBe('applies');
  });

  it('a later patch sees the earlier result', () => {
    const checks = checkPlan(
      plan([
        { file: 'a.ts', operation: 'replace', find: 'one\n', replace: 'uno\n' },
        { file: 'a.ts', operation: 'replace', find: 'uno\ntwo\n', replace: 'uno\ndos\n' },
      ]),
      contents,
    );
    expect(checks.map((c) => c.status)).toEqual(['applies', 'applies']);
  });

  it('flags files whose bytes changed since the plan was saved', () => {
    const p = plan([{ file: 'a.ts', operation: 'replace', find: 'one\n', replace: 'ONE\n' }]);
    const [same] = checkPlan(p, contents, { 'a.ts': 'h1' }, new Map([['a.ts', 'h1']]));
    const [changed] = checkPlan(p, contents, { 'a.ts': 'h1' }, new Map([['a.ts', 'h2']]));
    expect(same!.baseChanged).toBe(false);
    expect(changed!.baseChanged).toBe(true);
  });
});
