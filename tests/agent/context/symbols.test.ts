import { describe, expect, it } from 'vitest';
import { analyzeText, extractImports, resolveImport } from '../../../agent/context/symbols.js';
import { countTokens } from '../../../agent/context/tokenize.js';

describe('analyzeText', () => {
  it('counts tokens exactly like countTokens', () => {
    const text = 'export class HttpClient {\n  sendRequest(url) {\n    return fetch_all(url);\n  }\n}\n';
    const a = analyzeText(text);
    const c = countTokens(text);
    expect(a.total).toBe(c.total);
    expect([...a.counts].sort()).toEqual([...c.counts].sort());
  });

  it('finds JS/TS definitions: functions, classes, methods, types, top-level consts, function-valued properties', () => {
    const text = [
      'export default async function loadConfig(path) {}',
      'export class Router extends Base {',
      '  static async addRoute(path, handler) {',
      '    const local = 1;',
      '    if (x) {',
      '    }',
      '  }',
      '}',
      'export interface Options { a: string }',
      'type Hook = () => void;',
      'const retryDelay = (n) => n * 2;',
      'res.sendFile = function sendFile(path) {};',
      'app.handle = function handle(req, res) {};',
      'const api = {',
      '  parse: function (x) {},',
      '  stringify: (x) => x,',
      '};',
      '// the function name here is prose, and so is this class of things',
    ].join('\n');
    const defs = new Set(analyzeText(text).defs);
    for (const d of [
      'loadConfig',
      'Router',
      'addRoute',
      'Options',
      'Hook',
      'retryDelay',
      'sendFile',
      'handle',
      'parse',
      'stringify',
      'api',
    ])
      expect(defs, d).toContain(d);
    for (const d of ['local', 'if', 'name', 'of', 'Base']) expect(defs, d).not.toContain(d);
  });

  it('finds Python and Go definitions, including Go methods', () => {
    const py =
      'class Flask(App):\n    def register_error_handler(self, code):\n        pass\n\nasync def main():\n    pass\n';
    expect(analyzeText(py).defs).toEqual(['Flask', 'register_error_handler', 'main']);
    const go =
      'package cli\n\ntype Command struct {\n}\n\nfunc (cmd *Command) Run(ctx context.Context) error {\n}\n\nfunc helpCommand() {}\n';
    expect(analyzeText(go).defs).toEqual(['Command', 'Run', 'helpCommand']);
  });
});

describe('imports', () => {
  const files = new Set([
    'src/a.ts',
    'src/lib/index.ts',
    'src/b.js',
    'pkg/flask/app.py',
    'pkg/flask/json/__init__.py',
    'pkg/flask/helpers.py',
  ]);
  const bySuffix = (suffix: string): string[] => [...files].filter((p) => p === suffix || p.endsWith(`/${suffix}`));

  it('extracts relative JS specifiers and Python modules', () => {
    const js = 'import a from "./a.js";\nconst b = require("./b");\nimport x from "react";\nexport * from "./lib";\n';
    expect(extractImports(js)).toEqual(['./a.js', 'react', './lib', './b']);
    expect(extractImports('from .helpers import x\nimport flask.json\nfrom . import app\n')).toEqual([
      '.helpers',
      '.',
      'flask.json',
    ]);
  });

  it('resolves JS extensions, index files, .js → .ts, and Python packages', () => {
    expect(resolveImport('./a.js', 'src/main.ts', files, bySuffix)).toEqual(['src/a.ts']);
    expect(resolveImport('./lib', 'src/main.ts', files, bySuffix)).toEqual(['src/lib/index.ts']);
    expect(resolveImport('../src/b', 'test/x.js', files, bySuffix)).toEqual(['src/b.js']);
    expect(resolveImport('.helpers', 'pkg/flask/app.py', files, bySuffix)).toEqual(['pkg/flask/helpers.py']);
    expect(resolveImport('flask.json', 'pkg/flask/app.py', files, bySuffix)).toEqual(['pkg/flask/json/__init__.py']);
    expect(resolveImport('./missing', 'src/main.ts', files, bySuffix)).toEqual([]);
  });
});
