/*
 * Secret-detection rules from the gitleaks default rule set, converted to JavaScript regexes by
 * scripts/gitleaks-rules.py from gitleaks commit b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b. Generated: do not edit by hand.
 *
 * MIT License
 *
 * Copyright (c) 2019 Zachary Rice
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction, including without limitation the rights
 * to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 * copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
 */
import type { SecretRuleSet } from './secrets.js';

/** The gitleaks rules, global allow-list and the rules left out (with why). */
export const GITLEAKS_RULES: SecretRuleSet = {
  source: 'https://github.com/gitleaks/gitleaks/blob/b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b/config/gitleaks.toml',
  allow: {
    regexes: [
      {
        regex: '^true|false|null$',
        flags: 'i',
      },
      {
        regex: '^(?:a+|b+|c+|d+|e+|f+|g+|h+|i+|j+|k+|l+|m+|n+|o+|p+|q+|r+|s+|t+|u+|v+|w+|x+|y+|z+|\\*+|\\.+)$',
        flags: 'i',
      },
      {
        regex: '^\\$(?:\\d+|{\\d+})$',
        flags: '',
      },
      {
        regex: '^\\$(?:[A-Z_]+|[a-z_]+)$',
        flags: '',
      },
      {
        regex: '^\\${(?:[A-Z_]+|[a-z_]+)}$',
        flags: '',
      },
      {
        regex: '^\\{\\{[ \\t]*[\\w ().|]+[ \\t]*}}$',
        flags: '',
      },
      {
        regex: '^\\$\\{\\{[ \\t]*(?:(?:env|github|secrets|vars)(?:\\.[A-Za-z]\\w+)+[\\w "\'&./=|]*)[ \\t]*}}$',
        flags: '',
      },
      {
        regex: '^%(?:[A-Z_]+|[a-z_]+)%$',
        flags: '',
      },
      {
        regex: '^%[+\\-# 0]?[bcdeEfFgGoOpqstTUvxX]$',
        flags: '',
      },
      {
        regex: '^\\{\\d{0,2}}$',
        flags: '',
      },
      {
        regex: '^@(?:[A-Z_]+|[a-z_]+)@$',
        flags: '',
      },
      {
        regex: '^/Users/[a-z0-9]+/[\\w .-/]+$',
        flags: 'i',
      },
      {
        regex: '^/(?:bin|etc|home|opt|tmp|usr|var)/[\\w ./-]+$',
        flags: '',
      },
    ],
    target: 'secret',
    stopwords: ['014df517-39d1-4453-b7b3-9930c563627c', 'abcdefghijklmnopqrstuvwxyz'],
  },
  rules: [
    {
      id: '1password-secret-key',
      regex:
        '\\bA3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\\b',
      flags: '',
      keywords: ['a3-'],
      entropy: 3.8,
    },
    {
      id: '1password-service-account-token',
      regex: 'ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}',
      flags: '',
      keywords: ['ops_'],
      entropy: 4,
    },
    {
      id: 'adafruit-api-key',
      regex:
        '[\\w.-]{0,50}?(?:adafruit)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['adafruit'],
    },
    {
      id: 'adobe-client-id',
      regex:
        '[\\w.-]{0,50}?(?:adobe)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['adobe'],
      entropy: 2,
    },
    {
      id: 'adobe-client-secret',
      regex: '\\b(p8e-[a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['p8e-'],
      entropy: 2,
    },
    {
      id: 'age-secret-key',
      regex: 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}',
      flags: '',
      keywords: ['age-secret-key-1'],
    },
    {
      id: 'airtable-api-key',
      regex:
        '[\\w.-]{0,50}?(?:airtable)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{17})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['airtable'],
    },
    {
      id: 'airtable-personnal-access-token',
      regex: '\\b(pat[a-zA-Z0-9]{14}\\.[a-f0-9]{64})\\b',
      flags: '',
      keywords: ['airtable'],
    },
    {
      id: 'algolia-api-key',
      regex:
        '[\\w.-]{0,50}?(?:algolia)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['algolia'],
    },
    {
      id: 'alibaba-access-key-id',
      regex: '\\b(LTAI[a-z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['ltai'],
      entropy: 2,
    },
    {
      id: 'alibaba-secret-key',
      regex:
        '[\\w.-]{0,50}?(?:alibaba)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{30})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['alibaba'],
      entropy: 2,
    },
    {
      id: 'anthropic-admin-api-key',
      regex: '\\b(sk-ant-admin01-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['sk-ant-admin01'],
    },
    {
      id: 'anthropic-api-key',
      regex: '\\b(sk-ant-api03-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['sk-ant-api03'],
    },
    {
      id: 'artifactory-api-key',
      regex: '\\bAKCp[A-Za-z0-9]{69}\\b',
      flags: '',
      keywords: ['akcp'],
      entropy: 4.5,
    },
    {
      id: 'artifactory-reference-token',
      regex: '\\bcmVmd[A-Za-z0-9]{59}\\b',
      flags: '',
      keywords: ['cmvmd'],
      entropy: 4.5,
    },
    {
      id: 'asana-client-id',
      regex:
        '[\\w.-]{0,50}?(?:asana)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['asana'],
    },
    {
      id: 'asana-client-secret',
      regex:
        '[\\w.-]{0,50}?(?:asana)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['asana'],
    },
    {
      id: 'atlassian-api-token',
      regex:
        '[\\w.-]{0,50}?(?:(?:ATLASSIAN|[Aa]tlassian)|(?:CONFLUENCE|[Cc]onfluence)|(?:JIRA|[Jj]ira))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{20}[a-f0-9]{4})(?:[\\x60\'"\\s;]|\\\\[nr]|$)|\\b(ATATT3[A-Za-z0-9_\\-=]{186})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['atlassian', 'confluence', 'jira', 'atatt3'],
      entropy: 3.5,
    },
    {
      id: 'authress-service-client-access-key',
      regex:
        '\\b((?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\\.[a-z0-9]{4,6}\\.(?:acc)[_-][a-z0-9-]{10,32}\\.[a-z0-9+/_=-]{30,120})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sc_', 'ext_', 'scauth_', 'authress_'],
      entropy: 2,
    },
    {
      id: 'aws-access-token',
      regex: '\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\\b',
      flags: '',
      keywords: ['a3t', 'akia', 'asia', 'abia', 'acca'],
      entropy: 3,
      allow: [
        {
          regexes: [
            {
              regex: '.+EXAMPLE$',
              flags: '',
            },
          ],
          target: 'secret',
        },
      ],
    },
    {
      id: 'aws-amazon-bedrock-api-key-long-lived',
      regex: '\\b(ABSK[A-Za-z0-9+/]{109,269}={0,2})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['absk'],
      entropy: 3,
    },
    {
      id: 'aws-amazon-bedrock-api-key-short-lived',
      regex: 'bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t',
      flags: '',
      keywords: ['bedrock-api-key-'],
      entropy: 3,
    },
    {
      id: 'azure-ad-client-secret',
      regex: '(?:^|[\\\\\'"\\x60\\s>=:(,)])([a-zA-Z0-9_~.]{3}\\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\\\\'"\\x60\\s<),])',
      flags: '',
      keywords: ['q~'],
      entropy: 3,
    },
    {
      id: 'beamer-api-token',
      regex:
        '[\\w.-]{0,50}?(?:beamer)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(b_[a-z0-9=_\\-]{44})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['beamer'],
    },
    {
      id: 'bitbucket-client-id',
      regex:
        '[\\w.-]{0,50}?(?:bitbucket)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['bitbucket'],
    },
    {
      id: 'bitbucket-client-secret',
      regex:
        '[\\w.-]{0,50}?(?:bitbucket)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['bitbucket'],
    },
    {
      id: 'bittrex-access-key',
      regex:
        '[\\w.-]{0,50}?(?:bittrex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['bittrex'],
    },
    {
      id: 'bittrex-secret-key',
      regex:
        '[\\w.-]{0,50}?(?:bittrex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['bittrex'],
    },
    {
      id: 'cisco-meraki-api-key',
      regex:
        '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Mm]eraki|MERAKI))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['meraki'],
      entropy: 3,
    },
    {
      id: 'clickhouse-cloud-api-secret-key',
      regex: '\\b(4b1d[A-Za-z0-9]{38})\\b',
      flags: '',
      keywords: ['4b1d'],
      entropy: 3,
    },
    {
      id: 'clojars-api-token',
      regex: 'CLOJARS_[a-z0-9]{60}',
      flags: 'i',
      keywords: ['clojars_'],
      entropy: 2,
    },
    {
      id: 'cloudflare-api-key',
      regex:
        '[\\w.-]{0,50}?(?:cloudflare)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['cloudflare'],
      entropy: 2,
    },
    {
      id: 'cloudflare-global-api-key',
      regex:
        '[\\w.-]{0,50}?(?:cloudflare)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{37})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['cloudflare'],
      entropy: 2,
    },
    {
      id: 'cloudflare-origin-ca-key',
      regex: '\\b(v1\\.0-[a-f0-9]{24}-[a-f0-9]{146})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['cloudflare', 'v1.0-'],
      entropy: 2,
    },
    {
      id: 'codecov-access-token',
      regex:
        '[\\w.-]{0,50}?(?:codecov)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['codecov'],
    },
    {
      id: 'cohere-api-token',
      regex:
        '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:cohere|CO_API_KEY)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['cohere', 'co_api_key'],
      entropy: 4,
    },
    {
      id: 'coinbase-access-token',
      regex:
        '[\\w.-]{0,50}?(?:coinbase)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['coinbase'],
    },
    {
      id: 'confluent-access-token',
      regex:
        '[\\w.-]{0,50}?(?:confluent)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['confluent'],
    },
    {
      id: 'confluent-secret-key',
      regex:
        '[\\w.-]{0,50}?(?:confluent)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['confluent'],
    },
    {
      id: 'contentful-delivery-api-token',
      regex:
        '[\\w.-]{0,50}?(?:contentful)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{43})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['contentful'],
    },
    {
      id: 'databricks-api-token',
      regex: '\\b(dapi[a-f0-9]{32}(?:-\\d)?)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['dapi'],
      entropy: 3,
    },
    {
      id: 'datadog-access-token',
      regex:
        '[\\w.-]{0,50}?(?:datadog)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['datadog'],
    },
    {
      id: 'defined-networking-api-token',
      regex:
        '[\\w.-]{0,50}?(?:dnkey)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(dnkey-[a-z0-9=_\\-]{26}-[a-z0-9=_\\-]{52})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['dnkey'],
    },
    {
      id: 'digitalocean-access-token',
      regex: '\\b(doo_v1_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['doo_v1_'],
      entropy: 3,
    },
    {
      id: 'digitalocean-pat',
      regex: '\\b(dop_v1_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['dop_v1_'],
      entropy: 3,
    },
    {
      id: 'digitalocean-refresh-token',
      regex: '\\b(dor_v1_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['dor_v1_'],
    },
    {
      id: 'discord-api-token',
      regex:
        '[\\w.-]{0,50}?(?:discord)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['discord'],
    },
    {
      id: 'discord-client-id',
      regex:
        '[\\w.-]{0,50}?(?:discord)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{18})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['discord'],
      entropy: 2,
    },
    {
      id: 'discord-client-secret',
      regex:
        '[\\w.-]{0,50}?(?:discord)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['discord'],
      entropy: 2,
    },
    {
      id: 'doppler-api-token',
      regex: 'dp\\.pt\\.[a-z0-9]{43}',
      flags: 'i',
      keywords: ['dp.pt.'],
      entropy: 2,
    },
    {
      id: 'droneci-access-token',
      regex:
        '[\\w.-]{0,50}?(?:droneci)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['droneci'],
    },
    {
      id: 'dropbox-api-token',
      regex:
        '[\\w.-]{0,50}?(?:dropbox)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{15})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['dropbox'],
    },
    {
      id: 'dropbox-long-lived-api-token',
      regex:
        '[\\w.-]{0,50}?(?:dropbox)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{11}(AAAAAAAAAA)[a-z0-9\\-_=]{43})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['dropbox'],
    },
    {
      id: 'dropbox-short-lived-api-token',
      regex:
        '[\\w.-]{0,50}?(?:dropbox)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(sl\\.[a-z0-9\\-=_]{135})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['dropbox'],
    },
    {
      id: 'duffel-api-token',
      regex: 'duffel_(?:test|live)_[a-z0-9_\\-=]{43}',
      flags: 'i',
      keywords: ['duffel_'],
      entropy: 2,
    },
    {
      id: 'dynatrace-api-token',
      regex: 'dt0c01\\.[a-z0-9]{24}\\.[a-z0-9]{64}',
      flags: 'i',
      keywords: ['dt0c01.'],
      entropy: 4,
    },
    {
      id: 'easypost-api-token',
      regex: '\\bEZAK[a-z0-9]{54}\\b',
      flags: 'i',
      keywords: ['ezak'],
      entropy: 2,
    },
    {
      id: 'easypost-test-api-token',
      regex: '\\bEZTK[a-z0-9]{54}\\b',
      flags: 'i',
      keywords: ['eztk'],
      entropy: 2,
    },
    {
      id: 'etsy-access-token',
      regex:
        '[\\w.-]{0,50}?(?:(?:ETSY|[Ee]tsy))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{24})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['etsy'],
      entropy: 3,
    },
    {
      id: 'facebook-access-token',
      regex: '\\b(\\d{15,16}(\\||%)[0-9a-z\\-_]{27,40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['facebook'],
      entropy: 3,
    },
    {
      id: 'facebook-page-access-token',
      regex: '\\b(EAA[MC][a-z0-9]{100,})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['eaam', 'eaac'],
      entropy: 4,
    },
    {
      id: 'facebook-secret',
      regex:
        '[\\w.-]{0,50}?(?:facebook)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['facebook'],
      entropy: 3,
    },
    {
      id: 'fastly-api-token',
      regex:
        '[\\w.-]{0,50}?(?:fastly)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['fastly'],
    },
    {
      id: 'finicity-api-token',
      regex:
        '[\\w.-]{0,50}?(?:finicity)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['finicity'],
    },
    {
      id: 'finicity-client-secret',
      regex:
        '[\\w.-]{0,50}?(?:finicity)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['finicity'],
    },
    {
      id: 'finnhub-access-token',
      regex:
        '[\\w.-]{0,50}?(?:finnhub)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['finnhub'],
    },
    {
      id: 'flickr-access-token',
      regex:
        '[\\w.-]{0,50}?(?:flickr)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['flickr'],
    },
    {
      id: 'flutterwave-encryption-key',
      regex: 'FLWSECK_TEST-[a-h0-9]{12}',
      flags: 'i',
      keywords: ['flwseck_test'],
      entropy: 2,
    },
    {
      id: 'flutterwave-public-key',
      regex: 'FLWPUBK_TEST-[a-h0-9]{32}-X',
      flags: 'i',
      keywords: ['flwpubk_test'],
      entropy: 2,
    },
    {
      id: 'flutterwave-secret-key',
      regex: 'FLWSECK_TEST-[a-h0-9]{32}-X',
      flags: 'i',
      keywords: ['flwseck_test'],
      entropy: 2,
    },
    {
      id: 'flyio-access-token',
      regex:
        '\\b((?:fo1_[\\w-]{43}|fm1[ar]_[a-zA-Z0-9+\\/]{100,}={0,3}|fm2_[a-zA-Z0-9+\\/]{100,}={0,3}))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['fo1_', 'fm1', 'fm2_'],
      entropy: 4,
    },
    {
      id: 'frameio-api-token',
      regex: 'fio-u-[a-z0-9\\-_=]{64}',
      flags: 'i',
      keywords: ['fio-u-'],
    },
    {
      id: 'freemius-secret-key',
      regex: '["\']secret_key["\']\\s*=>\\s*["\'](sk_[\\S]{29})["\']',
      flags: 'i',
      keywords: ['secret_key'],
    },
    {
      id: 'freshbooks-access-token',
      regex:
        '[\\w.-]{0,50}?(?:freshbooks)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['freshbooks'],
    },
    {
      id: 'gcp-api-key',
      regex: '\\b(AIza[\\w-]{35})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['aiza'],
      entropy: 4,
      allow: [
        {
          regexes: [
            {
              regex: 'AIzaSyabcdefghijklmnopqrstuvwxyz1234567',
              flags: '',
            },
            {
              regex: 'AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs',
              flags: '',
            },
            {
              regex: 'AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM',
              flags: '',
            },
            {
              regex: 'AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU',
              flags: '',
            },
            {
              regex: 'AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0',
              flags: '',
            },
            {
              regex: 'AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A',
              flags: '',
            },
            {
              regex: 'AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c',
              flags: '',
            },
            {
              regex: 'AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4',
              flags: '',
            },
            {
              regex: 'AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY',
              flags: '',
            },
            {
              regex: 'AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM',
              flags: '',
            },
            {
              regex: 'AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ',
              flags: '',
            },
            {
              regex: 'AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g',
              flags: '',
            },
            {
              regex: 'AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU',
              flags: '',
            },
            {
              regex: 'AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw',
              flags: '',
            },
            {
              regex: 'AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE',
              flags: '',
            },
            {
              regex: 'AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY',
              flags: '',
            },
          ],
          target: 'secret',
        },
      ],
    },
    {
      id: 'github-app-token',
      regex: '(?:ghu|ghs)_[0-9a-zA-Z]{36}',
      flags: '',
      keywords: ['ghu_', 'ghs_'],
      entropy: 3,
    },
    {
      id: 'github-fine-grained-pat',
      regex: 'github_pat_\\w{82}',
      flags: '',
      keywords: ['github_pat_'],
      entropy: 3,
    },
    {
      id: 'github-oauth',
      regex: 'gho_[0-9a-zA-Z]{36}',
      flags: '',
      keywords: ['gho_'],
      entropy: 3,
    },
    {
      id: 'github-pat',
      regex: 'ghp_[0-9a-zA-Z]{36}',
      flags: '',
      keywords: ['ghp_'],
      entropy: 3,
    },
    {
      id: 'github-refresh-token',
      regex: 'ghr_[0-9a-zA-Z]{36}',
      flags: '',
      keywords: ['ghr_'],
      entropy: 3,
    },
    {
      id: 'gitlab-cicd-job-token',
      regex: 'glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}',
      flags: '',
      keywords: ['glcbt-'],
      entropy: 3,
    },
    {
      id: 'gitlab-deploy-token',
      regex: 'gldt-[0-9a-zA-Z_\\-]{20}',
      flags: '',
      keywords: ['gldt-'],
      entropy: 3,
    },
    {
      id: 'gitlab-feature-flag-client-token',
      regex: 'glffct-[0-9a-zA-Z_\\-]{20}',
      flags: '',
      keywords: ['glffct-'],
      entropy: 3,
    },
    {
      id: 'gitlab-feed-token',
      regex: 'glft-[0-9a-zA-Z_\\-]{20}',
      flags: '',
      keywords: ['glft-'],
      entropy: 3,
    },
    {
      id: 'gitlab-incoming-mail-token',
      regex: 'glimt-[0-9a-zA-Z_\\-]{25}',
      flags: '',
      keywords: ['glimt-'],
      entropy: 3,
    },
    {
      id: 'gitlab-kubernetes-agent-token',
      regex: 'glagent-[0-9a-zA-Z_\\-]{50}',
      flags: '',
      keywords: ['glagent-'],
      entropy: 3,
    },
    {
      id: 'gitlab-oauth-app-secret',
      regex: 'gloas-[0-9a-zA-Z_\\-]{64}',
      flags: '',
      keywords: ['gloas-'],
      entropy: 3,
    },
    {
      id: 'gitlab-pat',
      regex: 'glpat-[\\w-]{20}',
      flags: '',
      keywords: ['glpat-'],
      entropy: 3,
    },
    {
      id: 'gitlab-pat-routable',
      regex: '\\bglpat-[0-9a-zA-Z_-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b',
      flags: '',
      keywords: ['glpat-'],
      entropy: 4,
    },
    {
      id: 'gitlab-ptt',
      regex: 'glptt-[0-9a-f]{40}',
      flags: '',
      keywords: ['glptt-'],
      entropy: 3,
    },
    {
      id: 'gitlab-rrt',
      regex: 'GR1348941[\\w-]{20}',
      flags: '',
      keywords: ['gr1348941'],
      entropy: 3,
    },
    {
      id: 'gitlab-runner-authentication-token',
      regex: 'glrt-[0-9a-zA-Z_\\-]{20}',
      flags: '',
      keywords: ['glrt-'],
      entropy: 3,
    },
    {
      id: 'gitlab-runner-authentication-token-routable',
      regex: '\\bglrt-t\\d_[0-9a-zA-Z_\\-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b',
      flags: '',
      keywords: ['glrt-'],
      entropy: 4,
    },
    {
      id: 'gitlab-scim-token',
      regex: 'glsoat-[0-9a-zA-Z_\\-]{20}',
      flags: '',
      keywords: ['glsoat-'],
      entropy: 3,
    },
    {
      id: 'gitlab-session-cookie',
      regex: '_gitlab_session=[0-9a-z]{32}',
      flags: '',
      keywords: ['_gitlab_session='],
      entropy: 3,
    },
    {
      id: 'gitter-access-token',
      regex:
        '[\\w.-]{0,50}?(?:gitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['gitter'],
    },
    {
      id: 'gocardless-api-token',
      regex:
        '[\\w.-]{0,50}?(?:gocardless)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(live_[a-z0-9\\-_=]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['live_', 'gocardless'],
    },
    {
      id: 'grafana-api-key',
      regex: '\\b(eyJrIjoi[A-Za-z0-9]{70,400}={0,3})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['eyjrijoi'],
      entropy: 3,
    },
    {
      id: 'grafana-cloud-api-token',
      regex: '\\b(glc_[A-Za-z0-9+/]{32,400}={0,3})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['glc_'],
      entropy: 3,
    },
    {
      id: 'grafana-service-account-token',
      regex: '\\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['glsa_'],
      entropy: 3,
    },
    {
      id: 'harness-api-key',
      regex: '(?:pat|sat)\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9]{24}\\.[a-zA-Z0-9]{20}',
      flags: '',
      keywords: ['pat.', 'sat.'],
    },
    {
      id: 'hashicorp-tf-api-token',
      regex: '[a-z0-9]{14}\\.(?:atlasv1)\\.[a-z0-9\\-_=]{60,70}',
      flags: 'i',
      keywords: ['atlasv1'],
      entropy: 3.5,
    },
    {
      id: 'hashicorp-tf-password',
      regex:
        '[\\w.-]{0,50}?(?:administrator_login_password|password)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}("[a-z0-9=_\\-]{8,20}")(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['administrator_login_password', 'password'],
      entropy: 2,
    },
    {
      id: 'heroku-api-key',
      regex:
        '[\\w.-]{0,50}?(?:heroku)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['heroku'],
    },
    {
      id: 'heroku-api-key-v2',
      regex: '\\b((HRKU-AA[0-9a-zA-Z_-]{58}))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['hrku-aa'],
      entropy: 4,
    },
    {
      id: 'hubspot-api-key',
      regex:
        '[\\w.-]{0,50}?(?:hubspot)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['hubspot'],
    },
    {
      id: 'huggingface-access-token',
      regex: '\\b(hf_(?:[a-z]{34}))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['hf_'],
      entropy: 2,
    },
    {
      id: 'huggingface-organization-api-token',
      regex: '\\b(api_org_(?:[a-z]{34}))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['api_org_'],
      entropy: 2,
    },
    {
      id: 'infracost-api-token',
      regex: '\\b(ico-[a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['ico-'],
      entropy: 3,
    },
    {
      id: 'intercom-api-key',
      regex:
        '[\\w.-]{0,50}?(?:intercom)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{60})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['intercom'],
    },
    {
      id: 'intra42-client-secret',
      regex: '\\b(s-s4t2(?:ud|af)-[abcdef0123456789]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['intra', 's-s4t2ud-', 's-s4t2af-'],
      entropy: 3,
    },
    {
      id: 'jfrog-api-key',
      regex:
        '[\\w.-]{0,50}?(?:jfrog|artifactory|bintray|xray)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{73})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['jfrog', 'artifactory', 'bintray', 'xray'],
    },
    {
      id: 'jfrog-identity-token',
      regex:
        '[\\w.-]{0,50}?(?:jfrog|artifactory|bintray|xray)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['jfrog', 'artifactory', 'bintray', 'xray'],
    },
    {
      id: 'jwt',
      regex:
        '\\b(ey[a-zA-Z0-9]{17,}\\.ey[a-zA-Z0-9\\/\\\\_-]{17,}\\.(?:[a-zA-Z0-9\\/\\\\_-]{10,}={0,2})?)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['ey'],
      entropy: 3,
    },
    {
      id: 'jwt-base64',
      regex:
        '\\bZXlK(?:(?<alg>aGJHY2lPaU)|(?<apu>aGNIVWlPaU)|(?<apv>aGNIWWlPaU)|(?<aud>aGRXUWlPaU)|(?<b64>aU5qUWlP)|(?<crit>amNtbDBJanBi)|(?<cty>amRIa2lPaU)|(?<epk>bGNHc2lPbn)|(?<enc>bGJtTWlPaU)|(?<jku>cWEzVWlPaU)|(?<jwk>cWQyc2lPb)|(?<iss>cGMzTWlPaU)|(?<iv>cGRpSTZJ)|(?<kid>cmFXUWlP)|(?<key_ops>clpYbGZiM0J6SWpwY)|(?<kty>cmRIa2lPaUp)|(?<nonce>dWIyNWpaU0k2)|(?<p2c>d01tTWlP)|(?<p2s>d01uTWlPaU)|(?<ppt>d2NIUWlPaU)|(?<sub>emRXSWlPaU)|(?<svt>emRuUWlP)|(?<tag>MFlXY2lPaU)|(?<typ>MGVYQWlPaUp)|(?<url>MWNtd2l)|(?<use>MWMyVWlPaUp)|(?<ver>MlpYSWlPaU)|(?<version>MlpYSnphVzl1SWpv)|(?<x>NElqb2)|(?<x5c>NE5XTWlP)|(?<x5t>NE5YUWlPaU)|(?<x5ts256>NE5YUWpVekkxTmlJNkl)|(?<x5u>NE5YVWlPaU)|(?<zip>NmFYQWlPaU))[a-zA-Z0-9\\/\\\\_+\\-\\r\\n]{40,}={0,2}',
      flags: '',
      keywords: ['zxlk'],
      entropy: 2,
    },
    {
      id: 'kraken-access-token',
      regex:
        '[\\w.-]{0,50}?(?:kraken)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9\\/=_\\+\\-]{80,90})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['kraken'],
    },
    {
      id: 'kucoin-access-token',
      regex:
        '[\\w.-]{0,50}?(?:kucoin)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{24})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['kucoin'],
    },
    {
      id: 'kucoin-secret-key',
      regex:
        '[\\w.-]{0,50}?(?:kucoin)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['kucoin'],
    },
    {
      id: 'launchdarkly-access-token',
      regex:
        '[\\w.-]{0,50}?(?:launchdarkly)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['launchdarkly'],
    },
    {
      id: 'linear-api-key',
      regex: 'lin_api_[a-z0-9]{40}',
      flags: 'i',
      keywords: ['lin_api_'],
      entropy: 2,
    },
    {
      id: 'linear-client-secret',
      regex:
        '[\\w.-]{0,50}?(?:linear)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['linear'],
      entropy: 2,
    },
    {
      id: 'linkedin-client-id',
      regex:
        '[\\w.-]{0,50}?(?:linked[_-]?in)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{14})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['linkedin', 'linked_in', 'linked-in'],
      entropy: 2,
    },
    {
      id: 'linkedin-client-secret',
      regex:
        '[\\w.-]{0,50}?(?:linked[_-]?in)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['linkedin', 'linked_in', 'linked-in'],
      entropy: 2,
    },
    {
      id: 'lob-api-key',
      regex:
        '[\\w.-]{0,50}?(?:lob)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}((live|test)_[a-f0-9]{35})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['test_', 'live_'],
    },
    {
      id: 'lob-pub-api-key',
      regex:
        '[\\w.-]{0,50}?(?:lob)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}((test|live)_pub_[a-f0-9]{31})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['test_pub', 'live_pub', '_pub'],
    },
    {
      id: 'looker-client-id',
      regex:
        '[\\w.-]{0,50}?(?:looker)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['looker'],
    },
    {
      id: 'looker-client-secret',
      regex:
        '[\\w.-]{0,50}?(?:looker)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{24})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['looker'],
    },
    {
      id: 'mailchimp-api-key',
      regex:
        '[\\w.-]{0,50}?(?:MailchimpSDK.initialize|mailchimp)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32}-us\\d\\d)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['mailchimp'],
    },
    {
      id: 'mailgun-private-api-token',
      regex:
        '[\\w.-]{0,50}?(?:mailgun)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(key-[a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['mailgun'],
    },
    {
      id: 'mailgun-pub-key',
      regex:
        '[\\w.-]{0,50}?(?:mailgun)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(pubkey-[a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['mailgun'],
    },
    {
      id: 'mailgun-signing-key',
      regex:
        '[\\w.-]{0,50}?(?:mailgun)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['mailgun'],
    },
    {
      id: 'mapbox-api-token',
      regex:
        '[\\w.-]{0,50}?(?:mapbox)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(pk\\.[a-z0-9]{60}\\.[a-z0-9]{22})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['mapbox'],
    },
    {
      id: 'mattermost-access-token',
      regex:
        '[\\w.-]{0,50}?(?:mattermost)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{26})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['mattermost'],
    },
    {
      id: 'maxmind-license-key',
      regex: '\\b([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['_mmk'],
      entropy: 4,
    },
    {
      id: 'messagebird-api-token',
      regex:
        '[\\w.-]{0,50}?(?:message[_-]?bird)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{25})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['messagebird', 'message-bird', 'message_bird'],
    },
    {
      id: 'messagebird-client-id',
      regex:
        '[\\w.-]{0,50}?(?:message[_-]?bird)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['messagebird', 'message-bird', 'message_bird'],
    },
    {
      id: 'microsoft-teams-webhook',
      regex:
        'https://[a-z0-9]+\\.webhook\\.office\\.com/webhookb2/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}',
      flags: '',
      keywords: ['webhook.office.com', 'webhookb2', 'incomingwebhook'],
    },
    {
      id: 'netlify-access-token',
      regex:
        '[\\w.-]{0,50}?(?:netlify)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{40,46})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['netlify'],
    },
    {
      id: 'new-relic-browser-api-token',
      regex:
        '[\\w.-]{0,50}?(?:new-relic|newrelic|new_relic)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(NRJS-[a-f0-9]{19})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['nrjs-'],
    },
    {
      id: 'new-relic-insert-key',
      regex:
        '[\\w.-]{0,50}?(?:new-relic|newrelic|new_relic)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(NRII-[a-z0-9-]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['nrii-'],
    },
    {
      id: 'new-relic-user-api-id',
      regex:
        '[\\w.-]{0,50}?(?:new-relic|newrelic|new_relic)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['new-relic', 'newrelic', 'new_relic'],
    },
    {
      id: 'new-relic-user-api-key',
      regex:
        '[\\w.-]{0,50}?(?:new-relic|newrelic|new_relic)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(NRAK-[a-z0-9]{27})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['nrak'],
    },
    {
      id: 'notion-api-token',
      regex: '\\b(ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['ntn_'],
      entropy: 4,
    },
    {
      id: 'npm-access-token',
      regex: '\\b(npm_[a-z0-9]{36})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['npm_'],
      entropy: 2,
    },
    {
      id: 'nuget-config-password',
      regex: '<add key=\\"(?:(?:ClearText)?Password)\\"\\s*value=\\"(.{8,})\\"\\s*/>',
      flags: 'i',
      keywords: ['<add key='],
      entropy: 1,
      allow: [
        {
          regexes: [
            {
              regex: '33f!!lloppa',
              flags: '',
            },
            {
              regex: 'hal\\+9ooo_da!sY',
              flags: '',
            },
            {
              regex: '^\\%\\S.*\\%$',
              flags: '',
            },
          ],
          target: 'secret',
        },
      ],
    },
    {
      id: 'nytimes-access-token',
      regex:
        '[\\w.-]{0,50}?(?:nytimes|new-york-times,|newyorktimes)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['nytimes', 'new-york-times', 'newyorktimes'],
    },
    {
      id: 'octopus-deploy-api-key',
      regex: '\\b(API-[A-Z0-9]{26})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['api-'],
      entropy: 3,
    },
    {
      id: 'okta-access-token',
      regex:
        '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Oo]kta|OKTA))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(00[\\w=\\-]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['okta'],
      entropy: 4,
    },
    {
      id: 'openai-api-key',
      regex:
        '\\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['t3blbkfj'],
      entropy: 3,
    },
    {
      id: 'openshift-user-token',
      regex: '\\b(sha256~[\\w-]{43})(?:[^\\w-]|$)',
      flags: '',
      keywords: ['sha256~'],
      entropy: 3.5,
    },
    {
      id: 'perplexity-api-key',
      regex: '\\b(pplx-[a-zA-Z0-9]{48})(?:[\\x60\'"\\s;]|\\\\[nr]|$|\\b)',
      flags: '',
      keywords: ['pplx-'],
      entropy: 4,
    },
    {
      id: 'plaid-api-token',
      regex:
        '[\\w.-]{0,50}?(?:plaid)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['plaid'],
    },
    {
      id: 'plaid-client-id',
      regex:
        '[\\w.-]{0,50}?(?:plaid)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{24})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['plaid'],
      entropy: 3.5,
    },
    {
      id: 'plaid-secret-key',
      regex:
        '[\\w.-]{0,50}?(?:plaid)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{30})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['plaid'],
      entropy: 3.5,
    },
    {
      id: 'planetscale-api-token',
      regex: '\\b(pscale_tkn_[\\w=\\.-]{32,64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['pscale_tkn_'],
      entropy: 3,
    },
    {
      id: 'planetscale-oauth-token',
      regex: '\\b(pscale_oauth_[\\w=\\.-]{32,64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['pscale_oauth_'],
      entropy: 3,
    },
    {
      id: 'planetscale-password',
      regex: '\\b(pscale_pw_[\\w=\\.-]{32,64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['pscale_pw_'],
      entropy: 3,
    },
    {
      id: 'postman-api-token',
      regex: '\\b(PMAK-[a-f0-9]{24}\\-[a-f0-9]{34})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['pmak-'],
      entropy: 3,
    },
    {
      id: 'prefect-api-token',
      regex: '\\b(pnu_[a-zA-Z0-9]{36})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['pnu_'],
      entropy: 2,
    },
    {
      id: 'private-key',
      regex: '-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\\s\\S-]{64,}?KEY(?: BLOCK)?-----',
      flags: 'i',
      keywords: ['-----begin'],
    },
    {
      id: 'privateai-api-token',
      regex:
        '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:private[_-]?ai)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['privateai', 'private_ai', 'private-ai'],
      entropy: 3,
    },
    {
      id: 'pulumi-api-token',
      regex: '\\b(pul-[a-f0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['pul-'],
      entropy: 2,
    },
    {
      id: 'pypi-upload-token',
      regex: 'pypi-AgEIcHlwaS5vcmc[\\w-]{50,1000}',
      flags: '',
      keywords: ['pypi-ageichlwas5vcmc'],
      entropy: 3,
    },
    {
      id: 'rapidapi-access-token',
      regex:
        '[\\w.-]{0,50}?(?:rapidapi)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{50})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['rapidapi'],
    },
    {
      id: 'readme-api-token',
      regex: '\\b(rdme_[a-z0-9]{70})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['rdme_'],
      entropy: 2,
    },
    {
      id: 'rubygems-api-token',
      regex: '\\b(rubygems_[a-f0-9]{48})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['rubygems_'],
      entropy: 2,
    },
    {
      id: 'scalingo-api-token',
      regex: '\\b(tk-us-[\\w-]{48})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['tk-us-'],
      entropy: 2,
    },
    {
      id: 'sendbird-access-id',
      regex:
        '[\\w.-]{0,50}?(?:sendbird)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sendbird'],
    },
    {
      id: 'sendbird-access-token',
      regex:
        '[\\w.-]{0,50}?(?:sendbird)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sendbird'],
    },
    {
      id: 'sendgrid-api-token',
      regex: '\\b(SG\\.[a-z0-9=_\\-\\.]{66})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sg.'],
      entropy: 2,
    },
    {
      id: 'sendinblue-api-token',
      regex: '\\b(xkeysib-[a-f0-9]{64}\\-[a-z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['xkeysib-'],
      entropy: 2,
    },
    {
      id: 'sentry-access-token',
      regex:
        '[\\w.-]{0,50}?(?:sentry)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sentry'],
      entropy: 3,
    },
    {
      id: 'sentry-org-token',
      regex:
        '\\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?:[^a-zA-Z0-9+/]|$)',
      flags: '',
      keywords: ['sntrys_eyjpyxqio'],
      entropy: 4.5,
    },
    {
      id: 'sentry-user-token',
      regex: '\\b(sntryu_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['sntryu_'],
      entropy: 3.5,
    },
    {
      id: 'settlemint-application-access-token',
      regex: '\\b(sm_aat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['sm_aat'],
      entropy: 3,
    },
    {
      id: 'settlemint-personal-access-token',
      regex: '\\b(sm_pat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['sm_pat'],
      entropy: 3,
    },
    {
      id: 'settlemint-service-access-token',
      regex: '\\b(sm_sat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['sm_sat'],
      entropy: 3,
    },
    {
      id: 'shippo-api-token',
      regex: '\\b(shippo_(?:live|test)_[a-fA-F0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['shippo_'],
      entropy: 2,
    },
    {
      id: 'shopify-access-token',
      regex: 'shpat_[a-fA-F0-9]{32}',
      flags: '',
      keywords: ['shpat_'],
      entropy: 2,
    },
    {
      id: 'shopify-custom-access-token',
      regex: 'shpca_[a-fA-F0-9]{32}',
      flags: '',
      keywords: ['shpca_'],
      entropy: 2,
    },
    {
      id: 'shopify-private-app-access-token',
      regex: 'shppa_[a-fA-F0-9]{32}',
      flags: '',
      keywords: ['shppa_'],
      entropy: 2,
    },
    {
      id: 'shopify-shared-secret',
      regex: 'shpss_[a-fA-F0-9]{32}',
      flags: '',
      keywords: ['shpss_'],
      entropy: 2,
    },
    {
      id: 'sidekiq-secret',
      regex:
        '[\\w.-]{0,50}?(?:BUNDLE_ENTERPRISE__CONTRIBSYS__COM|BUNDLE_GEMS__CONTRIBSYS__COM)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{8}:[a-f0-9]{8})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['bundle_enterprise__contribsys__com', 'bundle_gems__contribsys__com'],
    },
    {
      id: 'sidekiq-sensitive-url',
      regex:
        '\\bhttps?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems.contribsys.com|enterprise.contribsys.com)(?:[\\/|\\#|\\?|:]|$)',
      flags: 'i',
      keywords: ['gems.contribsys.com', 'enterprise.contribsys.com'],
    },
    {
      id: 'slack-app-token',
      regex: 'xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+',
      flags: 'i',
      keywords: ['xapp'],
      entropy: 2,
    },
    {
      id: 'slack-bot-token',
      regex: 'xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*',
      flags: '',
      keywords: ['xoxb'],
      entropy: 3,
    },
    {
      id: 'slack-config-access-token',
      regex: 'xoxe.xox[bp]-\\d-[A-Z0-9]{163,166}',
      flags: 'i',
      keywords: ['xoxe.xoxb-', 'xoxe.xoxp-'],
      entropy: 2,
    },
    {
      id: 'slack-config-refresh-token',
      regex: 'xoxe-\\d-[A-Z0-9]{146}',
      flags: 'i',
      keywords: ['xoxe-'],
      entropy: 2,
    },
    {
      id: 'slack-legacy-bot-token',
      regex: 'xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}',
      flags: '',
      keywords: ['xoxb'],
      entropy: 2,
    },
    {
      id: 'slack-legacy-token',
      regex: 'xox[os]-\\d+-\\d+-\\d+-[a-fA-F\\d]+',
      flags: '',
      keywords: ['xoxo', 'xoxs'],
      entropy: 2,
    },
    {
      id: 'slack-legacy-workspace-token',
      regex: 'xox[ar]-(?:\\d-)?[0-9a-zA-Z]{8,48}',
      flags: '',
      keywords: ['xoxa', 'xoxr'],
      entropy: 2,
    },
    {
      id: 'slack-user-token',
      regex: 'xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}',
      flags: '',
      keywords: ['xoxp-', 'xoxe-'],
      entropy: 2,
    },
    {
      id: 'slack-webhook-url',
      regex: '(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}',
      flags: '',
      keywords: ['hooks.slack.com'],
    },
    {
      id: 'snyk-api-token',
      regex:
        '[\\w.-]{0,50}?(?:snyk[_.-]?(?:(?:api|oauth)[_.-]?)?(?:key|token))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['snyk'],
    },
    {
      id: 'sonar-api-token',
      regex:
        '[\\w.-]{0,50}?(?:sonar[_.-]?(login|token))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}((?:squ_|sqp_|sqa_)?[a-z0-9=_\\-]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sonar'],
      secretGroup: 2,
    },
    {
      id: 'sourcegraph-access-token',
      regex:
        '\\b(\\b(sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}|[a-fA-F0-9]{40})\\b)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sgp_', 'sourcegraph'],
      entropy: 3,
    },
    {
      id: 'square-access-token',
      regex: '\\b((?:EAAA|sq0atp-)[\\w-]{22,60})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['sq0atp-', 'eaaa'],
      entropy: 2,
    },
    {
      id: 'squarespace-access-token',
      regex:
        '[\\w.-]{0,50}?(?:squarespace)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['squarespace'],
    },
    {
      id: 'stripe-access-token',
      regex: '\\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['sk_test', 'sk_live', 'sk_prod', 'rk_test', 'rk_live', 'rk_prod'],
      entropy: 2,
    },
    {
      id: 'sumologic-access-id',
      regex:
        '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Ss]umo|SUMO))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(su[a-zA-Z0-9]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sumo'],
      entropy: 3,
    },
    {
      id: 'sumologic-access-token',
      regex:
        '[\\w.-]{0,50}?(?:(?:[Ss]umo|SUMO))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['sumo'],
      entropy: 3,
    },
    {
      id: 'telegram-bot-api-token',
      regex:
        '[\\w.-]{0,50}?(?:telegr)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{5,16}:(?:A)[a-z0-9_\\-]{34})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['telegr'],
    },
    {
      id: 'travisci-access-token',
      regex:
        '[\\w.-]{0,50}?(?:travis)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{22})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['travis'],
    },
    {
      id: 'twilio-api-key',
      regex: 'SK[0-9a-fA-F]{32}',
      flags: '',
      keywords: ['sk'],
      entropy: 3,
    },
    {
      id: 'twitch-api-token',
      regex:
        '[\\w.-]{0,50}?(?:twitch)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{30})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['twitch'],
    },
    {
      id: 'twitter-access-secret',
      regex:
        '[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{45})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['twitter'],
    },
    {
      id: 'twitter-access-token',
      regex:
        '[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{15,25}-[a-zA-Z0-9]{20,40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['twitter'],
    },
    {
      id: 'twitter-api-key',
      regex:
        '[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{25})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['twitter'],
    },
    {
      id: 'twitter-api-secret',
      regex:
        '[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{50})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['twitter'],
    },
    {
      id: 'twitter-bearer-token',
      regex:
        '[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(A{22}[a-zA-Z0-9%]{80,100})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['twitter'],
    },
    {
      id: 'typeform-api-token',
      regex:
        '[\\w.-]{0,50}?(?:typeform)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(tfp_[a-z0-9\\-_\\.=]{59})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['tfp_'],
    },
    {
      id: 'vault-batch-token',
      regex: '\\b(hvb\\.[\\w-]{138,300})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: '',
      keywords: ['hvb.'],
      entropy: 4,
    },
    {
      id: 'vault-service-token',
      regex: '\\b((?:hvs\\.[\\w-]{90,120}|s\\.(?:[a-z0-9]{24})))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['hvs.', 's.'],
      entropy: 3.5,
      allow: [
        {
          regexes: [
            {
              regex: 's\\.[A-Za-z]{24}',
              flags: '',
            },
          ],
          target: 'secret',
        },
      ],
    },
    {
      id: 'yandex-access-token',
      regex:
        '[\\w.-]{0,50}?(?:yandex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(t1\\.[A-Z0-9a-z_-]+[=]{0,2}\\.[A-Z0-9a-z_-]{86}[=]{0,2})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['yandex'],
    },
    {
      id: 'yandex-api-key',
      regex:
        '[\\w.-]{0,50}?(?:yandex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(AQVN[A-Za-z0-9_\\-]{35,38})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['yandex'],
    },
    {
      id: 'yandex-aws-access-token',
      regex:
        '[\\w.-]{0,50}?(?:yandex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(YC[a-zA-Z0-9_\\-]{38})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['yandex'],
    },
    {
      id: 'zendesk-secret-key',
      regex:
        '[\\w.-]{0,50}?(?:zendesk)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
      flags: 'i',
      keywords: ['zendesk'],
    },
  ],
  excluded: [
    {
      id: 'curl-auth-header',
      why: 'nested lazy quantifiers over up to six lines backtrack badly without RE2',
    },
    {
      id: 'curl-auth-user',
      why: 'nested quantifiers over up to six lines backtrack badly without RE2',
    },
    {
      id: 'generic-api-key',
      why: "replaced by clawcode's own high-entropy assignment rule (utils/secrets.ts)",
    },
    {
      id: 'kubernetes-secret-yaml',
      why: 'matches across documents with (?s:.)+; too slow without RE2',
    },
    {
      id: 'pkcs12-file',
      why: 'matches file paths only',
    },
  ],
};
