import { noisePrior } from './noise.js';

/**
 * The path prior of file ranking: tests, fixtures, docs, prose and tooling files rank below code unless
 * the task is about them.
 */

const TEST_PATH =
  /(^|\/)(tests?|__tests__|__mocks__|spec|specs|fixtures?|e2e|testing|testdata|__snapshots__|mocks?)\/|(^|\/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|\/)conftest\.py$|\.snap$/i;
/** Docs and examples folders, and CODEOWNERS; every prose file (PROSE_PATH) counts as docs too. */
const DOC_PATH =
  /(^|\/)(docs?|examples?|benchmarks?|bench|samples?|website|changelogs?)\/|(^|\/)CODEOWNERS(-[\w-]+)?$/i;
/**
 * Prose: markup and plain-text documents, READMEs, release notes and licence texts (`LICENSE-MIT`,
 * but not `license_gpl_2.go`), as opposed to code kept in a docs or examples folder, and to the text
 * files a build reads (dependency lists, CMake).
 */
const PROSE_PATH =
  /\.(md|mdx|rst|adoc|txt)$|(^|\/)(README|CHANGELOG|HISTORY|CHANGES|NEWS|LICENSE|LICENCE|COPYING|NOTICE|AUTHORS|CONTRIBUTORS)(-[\w-]+)?$/i;
const NOT_PROSE = /(^|\/)((requirements|constraints)([\w.-]*|\/[^/]+)|CMakeLists)\.txt$/i;
const TEST_PRIOR = 0.15;
const DOC_PRIOR = 0.3;
/**
 * Prose goes after code: a short request names behaviour, and its edits go to code, while a Markdown
 * page about the same feature shares every prose word of the request.
 */
const PROSE_PRIOR = 0.01;
const TOOLING_PATH =
  /^(\.github|\.circleci|\.gitlab|\.vscode|\.devcontainer|\.husky|scripts?|tools?|build|ci)\/|\.(ya?ml|toml|ini|cfg|json|jsonc|lock|mk)$|(^|\/)(Makefile|Dockerfile|Justfile|Rakefile|\.[a-z]+rc(\.[a-z]+)?|[\w-]+\.config\.[a-z]+)$/i;
const TOOLING_PRIOR = 0.3;
const TOOLING_WORDS =
  /\b(ci|workflows?|actions?|builds?|config|configs|configuration|yaml|yml|json|toml|scripts?|tooling|lint|linter|eslint|deps|dependency|dependencies|package|packages|release|releases|docker|makefile|tsconfig|setup|install|versions?|publish)\b/i;
const TEST_WORDS = /\b(tests?|testing|specs?|fixtures?|e2e|unit|coverage|mocks?)\b/i;
const DOC_WORDS =
  /\b(docs?|document(?:ation|s|ed|ing)?|readme|examples?|changelog|guide|tutorial|typos?|benchmarks?|instructions?|wording|faq|manual)\b/i;

/**
 * Whether the task (lowercased) names the file itself: its base name, extension included, as a whole
 * word ("update CONTRIBUTING.md", "bump the version in package.json").
 */
export function namesIn(path: string, text: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  for (let at = text.indexOf(base); at !== -1; at = text.indexOf(base, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + base.length] ?? ' ';
    if (!/[\w-]/.test(before) && !/[\w-]/.test(after)) return true;
  }
  return false;
}

/**
 * Path prior: 0.15 for test and fixture paths, 0.3 for code in docs and examples folders, 0.01 for
 * prose (Markdown and other markup, READMEs, release notes, licences); the test and docs priors are
 * lifted to 1 when the task says test/spec or doc/readme/example/instructions. 0.3 for tooling (CI
 * folders, root scripts/ and build/, Makefiles, YAML/TOML/JSON and `*.config.*` files), lifted when
 * the task says ci, build, config, dependencies and the like: these files share words with code but
 * are rarely where a code change goes. A task that names the file (`README.md`, `.eslintrc.js`) lifts
 * any of these priors.
 *
 * @param path  project-relative path, `/`-separated
 * @param task  the request's text (its title, for a long report)
 * @returns a multiplier in (0, 1]
 */
export function pathPrior(path: string, task: string): number {
  return pathPriorFor(task)(path);
}

/** `pathPrior` for the paths of one task: the task's words are read once, not once per path. */
export function pathPriorFor(task: string): (path: string) => number {
  const lower = task.toLowerCase();
  const asks = { test: TEST_WORDS.test(task), doc: DOC_WORDS.test(task), tooling: TOOLING_WORDS.test(task) };
  return (path) => {
    const noise = noisePrior(path, task);
    if (noise < 1) return noise;
    const prior = kindPrior(path, asks);
    return prior < 1 && namesIn(path, lower) ? 1 : prior;
  };
}

/** The prior of a path's kind (test, docs, prose, tooling, else code: 1), as `pathPrior` describes. */
function kindPrior(path: string, asks: { test: boolean; doc: boolean; tooling: boolean }): number {
  if (TEST_PATH.test(path)) return asks.test ? 1 : TEST_PRIOR;
  const prose = PROSE_PATH.test(path);
  if (prose || DOC_PATH.test(path)) return asks.doc ? 1 : prose && !NOT_PROSE.test(path) ? PROSE_PRIOR : DOC_PRIOR;
  if (TOOLING_PATH.test(path)) return asks.tooling ? 1 : TOOLING_PRIOR;
  return 1;
}
