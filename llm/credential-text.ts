/**
 * Keeping credentials out of what clawcode shows: a provider's messages and the URLs it was configured with end up
 * in the terminal, in logs and in `--json`, so a key or password inside them is masked first.
 */

/**
 * A base URL or endpoint as messages and listings show it: a user name and password inside it
 * (`https://user:token@gateway/v1`) become `***`, so a credential never reaches a terminal, a log or `--json`.
 *
 * @param url  the URL as configured (any text)
 * @returns the URL with its credentials masked; the text unchanged when it holds none or does not parse
 */
export function shownUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!parsed.username && !parsed.password) return url;
  if (parsed.username) parsed.username = '***';
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** `text` with every occurrence of `key` (a key of 8 characters or more) shown as `****`. */
export function withoutKey(text: string, key: string | undefined): string {
  return key && key.length >= 8 ? text.split(key).join('****') : text;
}
