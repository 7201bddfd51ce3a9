#!/usr/bin/env python3
"""Convert gitleaks' default rule set (config/gitleaks.toml, MIT) into utils/policy/secret-rules.ts (data only).

Usage: python3 scripts/gitleaks-rules.py <gitleaks.toml> <gitleaks commit> > utils/policy/secret-rules.ts

gitleaks writes Go RE2 regexes; JavaScript (Node 20) lacks inline flag groups, so: a leading `(?i)` becomes
the `i` flag, a later `(?i)` or `(?i:...)` makes the whole rule case-insensitive (it can only match more),
`(?-i:...)` becomes a plain group, `\\z` becomes `$`, `(?P<n>` becomes `(?<n>`, POSIX classes are spelled out.
Rules left out are listed under "excluded" with the reason.
"""
import json
import re
import sys
import tomllib

LICENSE = """MIT License

Copyright (c) 2019 Zachary Rice

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE."""

# Left out on purpose, with the reason recorded in the output.
EXCLUDE = {
    'generic-api-key': 'replaced by clawcode\'s own high-entropy assignment rule (utils/secrets.ts)',
    'kubernetes-secret-yaml': 'matches across documents with (?s:.)+; too slow without RE2',
    'curl-auth-header': 'nested lazy quantifiers over up to six lines backtrack badly without RE2',
    'curl-auth-user': 'nested quantifiers over up to six lines backtrack badly without RE2',
}

POSIX = {'alnum': 'a-zA-Z0-9', 'alpha': 'a-zA-Z', 'digit': '0-9', 'lower': 'a-z', 'upper': 'A-Z',
         'space': r'\s', 'xdigit': '0-9a-fA-F', 'word': r'\w', 'punct': r'!-/:-@\[-`{-~'}


def to_js(rx):
    flags = ''
    if rx.startswith('(?i)'):
        rx = rx[4:]
        flags += 'i'
    if '(?i)' in rx or '(?i:' in rx:
        rx = rx.replace('(?i)', '').replace('(?i:', '(?:')
        if 'i' not in flags:
            flags += 'i'
    rx = rx.replace('(?-i:', '(?:')
    if '(?s:' in rx or rx.startswith('(?s)'):
        rx = rx.replace('(?s)', '').replace('(?s:', '(?:')
        flags += 's'
    rx = rx.replace('(?P<', '(?<').replace(r'\z', '$')
    rx = re.sub(r'\[:(\w+):\]', lambda m: POSIX[m.group(1)], rx)
    if re.search(r'\(\?[a-zA-Z-]+[:)]', rx):
        raise ValueError('inline flags left')
    return rx, flags


def allow_of(entry):
    out = {}
    regs = []
    for r in entry.get('regexes', []):
        src, fl = to_js(r)
        regs.append({'regex': src, 'flags': fl})
    if regs:
        out['regexes'] = regs
        out['target'] = entry.get('regexTarget', 'secret')
    if entry.get('stopwords'):
        out['stopwords'] = entry['stopwords']
    if entry.get('paths') and not regs and not entry.get('stopwords'):
        return None  # path-only allowlists do not apply to text
    return out or None


def main():
    src, commit = sys.argv[1], sys.argv[2]
    config = tomllib.load(open(src, 'rb'))
    rules, excluded = [], []
    for r in config['rules']:
        rid = r['id']
        if rid in EXCLUDE:
            excluded.append({'id': rid, 'why': EXCLUDE[rid]})
            continue
        if 'regex' not in r:
            excluded.append({'id': rid, 'why': 'matches file paths only'})
            continue
        try:
            regex, flags = to_js(r['regex'])
            allow = [a for a in (allow_of(x) for x in r.get('allowlists', [])) if a]
        except (ValueError, KeyError) as e:
            excluded.append({'id': rid, 'why': f'regex not convertible: {e}'})
            continue
        rule = {'id': rid, 'regex': regex, 'flags': flags, 'keywords': [k.lower() for k in r.get('keywords', [])]}
        if 'entropy' in r:
            rule['entropy'] = r['entropy']
        if 'secretGroup' in r:
            rule['secretGroup'] = r['secretGroup']
        if allow:
            rule['allow'] = allow
        rules.append(rule)
    glob = allow_of(config.get('allowlist', {})) or {}
    data = {
        'source': f'https://github.com/gitleaks/gitleaks/blob/{commit}/config/gitleaks.toml',
        'allow': glob,
        'rules': rules,
        'excluded': excluded,
    }
    out = sys.stdout
    out.write('/*\n * Secret-detection rules from the gitleaks default rule set, converted to JavaScript regexes by\n')
    out.write(f' * scripts/gitleaks-rules.py from gitleaks commit {commit}. Generated: do not edit by hand.\n *\n')
    for line in LICENSE.split('\n'):
        out.write((' * ' + line).rstrip() + '\n')
    out.write(' */\n')
    out.write("import type { SecretRuleSet } from './secrets.js';\n\n")
    out.write('/** The gitleaks rules, global allow-list and the rules left out (with why). */\n')
    out.write('export const GITLEAKS_RULES: SecretRuleSet = ')
    json.dump(data, out, indent=1, ensure_ascii=False)
    out.write(';\n')


main()
