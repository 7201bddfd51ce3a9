import { TERMINAL_CONTROLS } from '../utils/terminal-text.js';

/**
 * Model names as a server reports them (its model list, the `model` field of a reply), checked before a person
 * sees, picks or saves one: the SDKs hand the server's JSON through untyped.
 */

/** Most model ids kept from one list (OpenRouter, the longest real list, names a few hundred). */
export const MAX_LISTED_MODELS = 5_000;
/** Longest model id kept, in characters. */
export const MAX_MODEL_ID_CHARS = 256;
/** Characters no model id holds: the ones a terminal acts on, and the invisible ones that reorder text. */
const NOT_IN_AN_ID = new RegExp(`[${TERMINAL_CONTROLS}]`);

/** Whether a server's value can be a model id: a string of 1 to 256 characters with none of NOT_IN_AN_ID. */
export function isModelId(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length > 0 && value.length <= MAX_MODEL_ID_CHARS && !NOT_IN_AN_ID.test(value)
  );
}

/**
 * The ids of a server's model list that a person may pick, in order, without repeats, at most
 * MAX_LISTED_MODELS. An id holding an escape sequence was drawn raw by the model picker, saved into config.json
 * and printed raw by `clawcode config list`; one that was not a string ended the picker with a TypeError.
 *
 * @param listed  the ids as the server sent them (any JSON values)
 * @returns the ids that pass `isModelId`
 */
export function usableModelIds(listed: readonly unknown[]): string[] {
  return [...new Set(listed.filter(isModelId))].slice(0, MAX_LISTED_MODELS);
}
