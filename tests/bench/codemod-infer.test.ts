import { describe, expect, it } from 'vitest';
import { generaliseCall, guessesFromLine, importsOnly, pathspecsFor } from '../../bench/codemod-infer.js';

describe('codemod rule guesses', () => {
  it('guesses a rename as a name, a member and a callee', () => {
    expect(guessesFromLine('  const u = getUser(id);', '  const u = fetchUser(id);').slice(0, 3)).toEqual([
      { kind: 'rename', find: 'getUser', replace: 'fetchUser' },
      { kind: 'rename', find: '$OBJ.getUser', replace: '$OBJ.fetchUser' },
      { kind: 'rename', find: 'getUser($$$ARGS)', replace: 'fetchUser($$$ARGS)' },
    ]);
  });

  it('guesses a moved module from a relative path, a scoped package and a Go module path', () => {
    expect(guessesFromLine("import { a } from './old';", "import { a } from './new';")).toContainEqual({
      kind: 'import-move',
      find: "'./old'",
      replace: "'./new'",
    });
    expect(guessesFromLine('\t"github.com/pkg/errors"', '\t"errors/v2"')).toEqual([
      { kind: 'import-move', find: '"github.com/pkg/errors"', replace: '"errors/v2"' },
    ]);
    // A version number is not a module, nor a path-like string outside an import.
    expect(guessesFromLine('const v = "1.2.3";', 'const v = "1.2.4";')).toEqual([]);
    expect(guessesFromLine('model = "gemini/pro-05"', 'model = "gemini/pro-06"')).toEqual([]);
  });

  it('keeps the unchanged arguments of a call as metavariables', () => {
    expect(generaliseCall('getUser(id, true)', 'fetchUser(id, { cache: true })')).toEqual([
      { kind: 'call-shape', find: 'getUser($A, true)', replace: 'fetchUser($A, { cache: true })' },
    ]);
  });

  it('tells a commit that changes import lines only', () => {
    expect(importsOnly(['from a.b import c', 'from a.d import c', 'import x.y', 'use crate::a::B;'])).toBe(true);
    expect(importsOnly(['\t"github.com/a/b"', '\tlog "github.com/c/d"'])).toBe(true);
    expect(importsOnly(["const { a } = require('./a');", "export { b } from './b';"])).toBe(true);
    expect(importsOnly(['from a.b import c', 'x = b.c()'])).toBe(false);
    expect(importsOnly([])).toBe(false);
  });

  it('names the common folder, then the project, for one extension only', () => {
    expect(pathspecsFor(['src/a/x.ts', 'src/b/y.ts'])).toEqual(['src/**/*.ts', '**/*.ts']);
    expect(pathspecsFor(['x.ts', 'src/y.ts'])).toEqual(['**/*.ts']);
    expect(pathspecsFor(['a.ts', 'b.js'])).toEqual([]);
  });
});
