import { ClawcodeError } from '../utils/errors.js';
import { normalizeRelPath, refuseByName } from '../utils/policy/paths.js';
import { redactSecrets, type Redaction } from '../utils/policy/secrets.js';

/**
 * The one door out. Every request body clawcode sends to a provider (the plan, the JSON repair, the patch
 * repair, the wide scope request, every shard) and every prompt it prints for pasting (`--print-prompt`) passes
 * `sealRequest` first: it applies the path policy to each project file the body quotes and redacts secrets in the
 * whole body, task and instructions included. The stages redact what they select as well (budgets are measured
 * on redacted text); this is the boundary that does not depend on each of them remembering to.
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

/**
 * Check and redact one request body on its way out.
 *
 * @param request   the body; `files` lists the project files it quotes
 * @param sendable  the files the context stage could send; a quoted file outside it is refused
 * @returns the body with every secret replaced by `[REDACTED:<kind>]` (line structure kept)
 * @throws OutboundRefusedError when a quoted file is outside the root, a control, secret or binary path, or not
 *         sendable: nothing is sent
 */
export function sealRequest(request: OutboundRequest, sendable?: SendableFile): SealedRequest {
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
  return { system: system.text, user: user.text, redactions: [...counts].map(([kind, count]) => ({ kind, count })) };
}
