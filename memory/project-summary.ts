import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { readRegularFile } from '../utils/regular-file.js';
import { cleanNote, type ProjectSummary } from './memory.js';

/** Longest manifest read, in bytes. */
const MAX_MANIFEST_BYTES = 1_000_000;

/**
 * A manifest's text, read the way instruction files are: a regular file only (never a symlink, FIFO
 * or device, which could lead outside the project or hang), at most 1 MB; undefined otherwise.
 */
async function readText(path: string): Promise<string | undefined> {
  const read = await readRegularFile(path, MAX_MANIFEST_BYTES);
  return read ? read.bytes.toString('utf8') : undefined;
}

/** Whether a parsed JSON value is an object (not null, not an array). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

const JS_FRAMEWORKS: [dep: string, name: string][] = [
  ['next', 'Next.js'],
  ['nuxt', 'Nuxt'],
  ['@angular/core', 'Angular'],
  ['svelte', 'Svelte'],
  ['vue', 'Vue'],
  ['react', 'React'],
  ['@nestjs/core', 'NestJS'],
  ['express', 'Express'],
  ['fastify', 'Fastify'],
  ['koa', 'Koa'],
];
const PY_FRAMEWORKS: [dep: string, name: string][] = [
  ['django', 'Django'],
  ['flask', 'Flask'],
  ['fastapi', 'FastAPI'],
];

/**
 * Detect what a project is from its manifest files (framework, test command, architecture):
 * package.json, pyproject.toml / setup.py, go.mod, Cargo.toml.
 *
 * @param rootDir  absolute project root
 * @returns the summary; fields stay undefined when nothing is detected (never throws)
 */
export async function detectProjectSummary(rootDir: string): Promise<ProjectSummary> {
  const pkgText = await readText(join(rootDir, 'package.json'));
  if (pkgText !== undefined) {
    let pkg: {
      name?: string;
      scripts?: Record<string, string>;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
      type?: string;
    };
    try {
      pkg = JSON.parse(pkgText);
    } catch {
      pkg = {};
    }
    // A manifest is the project's, any JSON at all: `null` ended every task in an internal error.
    if (!isRecord(pkg)) pkg = {};
    const deps = {
      ...(isRecord(pkg.dependencies) ? pkg.dependencies : {}),
      ...(isRecord(pkg.devDependencies) ? pkg.devDependencies : {}),
    };
    const framework = JS_FRAMEWORKS.find(([dep]) => dep in deps)?.[1];
    const usesTs = 'typescript' in deps || (await exists(join(rootDir, 'tsconfig.json')));
    const testScript = isRecord(pkg.scripts) ? pkg.scripts.test : undefined;
    const hasTest = typeof testScript === 'string' && !/no test specified/.test(testScript);
    const manager = (await exists(join(rootDir, 'pnpm-lock.yaml')))
      ? 'pnpm'
      : (await exists(join(rootDir, 'yarn.lock')))
        ? 'yarn'
        : 'npm';
    return {
      framework: framework ?? (usesTs ? 'TypeScript' : 'Node.js'),
      testCommand: hasTest ? `${manager} test` : undefined,
      // The name comes with the project and is written into AGENTS.md and memory: one line, no controls.
      architecture: `${usesTs ? 'TypeScript' : 'JavaScript'} ${pkg.type === 'module' ? 'ESM ' : ''}package${pkg.name ? ` "${cleanNote(String(pkg.name))}"` : ''}`,
    };
  }
  const pyproject = await readText(join(rootDir, 'pyproject.toml'));
  const setupPy = pyproject === undefined ? await readText(join(rootDir, 'setup.py')) : undefined;
  if (pyproject !== undefined || setupPy !== undefined) {
    const text = (pyproject ?? setupPy ?? '').toLowerCase();
    const framework = PY_FRAMEWORKS.find(([dep]) => new RegExp(`["'\\s]${dep}[\\s"'<>=~!\\[]`).test(text))?.[1];
    const pytest =
      text.includes('pytest') || (await exists(join(rootDir, 'pytest.ini'))) || (await exists(join(rootDir, 'tests')));
    return {
      framework: framework ?? 'Python',
      testCommand: pytest ? 'pytest' : undefined,
      architecture: 'Python package',
    };
  }
  if (await exists(join(rootDir, 'go.mod'))) {
    const mod = (await readText(join(rootDir, 'go.mod'))) ?? '';
    const found = /^module\s+(\S+)/m.exec(mod)?.[1];
    const name = found === undefined ? undefined : cleanNote(found);
    return { framework: 'Go', testCommand: 'go test ./...', architecture: `Go module${name ? ` ${name}` : ''}` };
  }
  if (await exists(join(rootDir, 'Cargo.toml'))) {
    return { framework: 'Rust', testCommand: 'cargo test', architecture: 'Cargo crate' };
  }
  return {};
}
