import { ClawcodeError } from '../utils/errors.js';
import { normalizeRelPath, refuseByName } from '../utils/policy/paths.js';
import { redactSecrets, type Redaction } from '../utils/policy/secrets.js';
import { secretValue } from '../utils/policy/secret-values.js';

/**
 * The one door out. Every request body clawcode sends to a provider (the plan, the JSON repair, the patch
 * repair, the wide scope request, every shard) and every prompt it prints for pasting (`--print-prompt`) passes
 * `sealRequest` first: it applies the path policy to each project file the body quotes and redacts secrets in the
 * whole body, task and instructions included, then replaces every exact occurrence of a credential clawcode
 * itself holds (the provider key, credential-named environment variables), whatever its shape. The stages redact
 * what they select as well (budgets are measured on redacted text); this is the boundary that does not depend on
 * each of them remembering to.
 */

/** One request body as a stage built it. */
export interface OutboundRequest {
  system: string;
  user: string;
  /**
   * Project-relative paths of the files whose text `user` quotes (`## <path>` sections, repair excerpts). The
   * instruction files are not listed: they are read through the path policy and sent as instructions.
   */
  files?: readonly string[];
}

/**
 * Which project files a request may quote beyond the path policy: the files the context stage could send (its
 * scan's candidates, so ignored files are never quoted either). Absent: the path policy alone decides.
 */
export type SendableFile = (path: string) => boolean;

/** A request that quotes a file clawcode never sends: a bug in the stage that built it, never sent. Exit 1. */
export class OutboundRefusedError extends ClawcodeError {
  readonly path: string;
  constructor(path: string, why: string) {
    super(`Refusing to send a request that quotes ${JSON.stringify(path)}: ${why}`, {
      code: 'outbound_refused',
      exitCode: 1,
      hint: 'Nothing was sent. This is a bug in clawcode; please report it.',
    });
    this.path = path;
  }
}

/** A request ready to leave, and what was redacted from it at the door. */
export interface SealedRequest {
  system: string;
  user: string;
  /** secrets found in the body at the door, by kind (usually none: the stages redact first) */
  redactions: Redaction[];
}

/** Names of environment variables that hold a credential (`OPENAI_API_KEY`, `DB_PASSWORD`, `GITHUB_TOKEN`). */
const CREDENTIAL_VARIABLE = /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH)(?:_|$)/i;

/**
 * The credentials clawcode itself holds, as exact values: the provider key it was given, and the values of the
 * environment variables named as credentials (`*_API_KEY`, `*_TOKEN`, `*_PASSWORD`…) that look like one (ten
 * characters or more, letters and digits, not a path or URL). Whatever shape they have, wherever the project
 * quotes them (a fixture, a log a command wrote, a README), they are not sent: a key the rules cannot recognise
 * (`sk-test-e2e`, a gateway's own format) is still the key.
 *
 * @param apiKey  the provider key of the request, if any
 * @param env     the environment to read (default `process.env`)
 * @returns distinct values, longest first (so a value inside another is replaced after it)
 */
export function heldSecrets(apiKey?: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const values = new Set<string>();
  if (apiKey !== undefined && apiKey.trim().length >= 8) values.add(apiKey.trim());
  for (const [name, value] of Object.entries(env)) {
    if (!value || !CREDENTIAL_VARIABLE.test(name)) continue;
    const v = value.trim();
    if (v.length < 10 || v.length > 4096 || /^[./~]|:\/\//.test(v) || /\s/.test(v)) continue;
    if ((/[0-9]/.test(v) && /[A-Za-z]/.test(v)) || secretValue(v, name)) values.add(v);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Replace every exact occurrence of `values` in `text` by a marker, counting them. */
function redactHeld(text: string, values: readonly string[]): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const value of values) {
    if (!out.includes(value)) continue;
    const parts = out.split(value);
    count += parts.length - 1;
    out = parts.join('[REDACTED:held_secret]');
  }
  return { text: out, count };
}

/**
 * Check and redact one request body on its way out.
 *
 * @param request   the body; `files` lists the project files it quotes
 * @param sendable  the files the context stage could send; a quoted file outside it is refused
 * @param held      exact credential values to redact besides what the rules find (see heldSecrets); default the
 *                  credentials in `process.env`
 * @returns the body with every secret replaced by `[REDACTED:<kind>]` (line structure kept)
 * @throws OutboundRefusedError when a quoted file is outside the root, a control, secret or binary path, or not
 *         sendable: nothing is sent
 */
export function sealRequest(
  request: OutboundRequest,
  sendable?: SendableFile,
  held: readonly string[] = heldSecrets(),
): SealedRequest {
  for (const file of request.files ?? []) {
    const normal = normalizeRelPath(file);
    if (!normal.ok) throw new OutboundRefusedError(file, normal.message);
    const refused = refuseByName(normal.path);
    if (refused) throw new OutboundRefusedError(file, refused.message);
    if (sendable && !sendable(normal.path))
      throw new OutboundRefusedError(file, 'it is not among the files the context stage may send (ignored or skipped)');
  }
  const system = redactSecrets(request.system);
  const user = redactSecrets(request.user);
  const counts = new Map<string, number>();
  for (const r of [...system.redactions, ...user.redactions]) counts.set(r.kind, (counts.get(r.kind) ?? 0) + r.count);
  const heldSystem = redactHeld(system.text, held);
  const heldUser = redactHeld(user.text, held);
  if (heldSystem.count + heldUser.count > 0) counts.set('held_secret', heldSystem.count + heldUser.count);
  return {
    system: heldSystem.text,
    user: heldUser.text,
    redactions: [...counts].map(([kind, count]) => ({ kind, count })),
  };
}
