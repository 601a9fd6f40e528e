// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { Document, isMap, isScalar, type YAMLMap, type YAMLSeq } from 'yaml';
import {
  canonicalDomain,
  matchWebsites,
  PRIVACY_NAMES,
  type RemoteWebsite,
  SERVICE_CREATE_DEFAULTS,
  SETTING_FIELDS,
  type SettingField,
  sameValue,
  websiteKey,
} from '../model/index.js';

// The account as a manifest, for adopting the tool on an existing account. Pure: records in, YAML out.
// Values equal to the service's create defaults are left out (a listed website is fully declared, so
// leaving them out means exactly them); what the service does not return cannot be exported, and a
// comment says so where it matters.

export interface ExportOptions {
  baseUrl: string;
  version: string;
  now: Date;
  /** For `restore`: the records are deleted websites read back from this backup file, not the account. */
  backupFile?: string;
}

export interface ExportedManifest {
  text: string;
  /** Environment variables the manifest reads passwords from, by domain. */
  passwordVariables: Record<string, string>;
}

/**
 * One record per identity, the one a plan matches to the entry written for it (`matchWebsites`); the
 * others (`dup.example.com.` beside `DUP.example.com`) are twins: listed in a comment, never entries,
 * since an entry cannot tell them apart and a plan never deletes them.
 */
function oneRecordPerIdentity(records: readonly RemoteWebsite[]) {
  const keys = [...new Set(records.map((r) => websiteKey(r.domain)))];
  const entries = keys.map((key) => {
    const canonical = canonicalDomain(key);
    return 'domain' in canonical
      ? { domain: canonical.domain, writtenDomain: canonical.written }
      : { domain: key };
  });
  const matches = matchWebsites(entries, records);
  const chosen = keys.flatMap((_, index) => matches.recordOf(index) ?? []);
  return { chosen, twins: records.filter((record) => !matches.isMatched(record)) };
}

function twinsNote(twins: readonly RemoteWebsite[]): string {
  const list = twins.map((r) => `${JSON.stringify(r.domain)} (id ${r.id})`).join(', ');
  return ` Also on the account, each the same website for websites-sync as an entry below but held separately\n by the service: ${list}. They are not managed and never deleted by websites-sync.`;
}

export function exportManifest(records: readonly RemoteWebsite[], options: ExportOptions): ExportedManifest {
  const { chosen, twins } = oneRecordPerIdentity(records);
  const sorted = chosen.sort((a, b) => websiteKey(a.domain).localeCompare(websiteKey(b.domain)));
  const variables = passwordVariables(sorted.filter((r) => r.privacy === 2).map((r) => websiteKey(r.domain)));
  const doc = new Document({
    version: 1,
    prune: false,
    websites: sorted.map((r) => websiteEntry(r, variables)),
  });
  doc.commentBefore = header(options, sorted.length);
  const prune = doc.get('prune', true);
  if (isScalar(prune)) prune.comment = ' true deletes the websites not listed here; turn it on after review';
  // A field no record carries gets one note above the list; one only some lack gets a note per website.
  const unreturned = SETTING_FIELDS.filter(
    (field) => sorted.length > 0 && sorted.every((r) => r[field] === undefined),
  );
  const root = doc.contents;
  const websites = isMap(root)
    ? root.items.find((pair) => isScalar(pair.key) && pair.key.value === 'websites')
    : undefined;
  const notes = [
    ...(unreturned.length > 0 ? [unreturnedNote(unreturned, 'any website')] : []),
    ...(twins.length > 0 ? [twinsNote(twins)] : []),
  ];
  if (websites && isScalar(websites.key) && notes.length > 0) websites.key.commentBefore = notes.join('\n');
  (doc.get('websites', true) as YAMLSeq).items.forEach((item, index) => {
    if (isMap(item)) annotate(item, sorted[index]!, variables, unreturned);
  });
  return { text: doc.toString({ lineWidth: 0 }), passwordVariables: variables };
}

function unreturnedNote(fields: SettingField[], who: string): string {
  const them = fields.length > 1 ? 'them' : 'it';
  return ` ${fields.join(', ')}: not returned by the service, so not exported. If ${who} uses ${them}, add ${them}\n to that website: the first apply sets what this file says (none when left out).`;
}

function header(options: ExportOptions, count: number): string {
  return [
    ' yaml-language-server: $schema=./websites.schema.json',
    ' (for completion and checks in an editor: websites-sync schema > websites.schema.json beside this file)',
    ...(options.backupFile === undefined
      ? [
          ` Exported by websites-sync ${options.version} from ${options.baseUrl} on ${options.now.toISOString()}:`,
          ` the ${count} website(s) of the account as they are now. Settings equal to the service's defaults`,
          ' are left out. Review it, then check what applying it would change:',
        ]
      : [
          ` Restored by websites-sync ${options.version} on ${options.now.toISOString()}:`,
          ` the ${count} deleted website(s) in the backup file ${options.backupFile},`,
          ` each as last read from ${options.baseUrl} before its delete. Only settings come back: the`,
          " statistics of a deleted website are not restorable. Settings equal to the service's defaults",
          ' are left out. Add these entries to the manifest, then check what applying it would change:',
        ]),
    '   websites-sync --once --dry-run -f websites.yaml',
  ].join('\n');
}

function websiteEntry(record: RemoteWebsite, variables: Record<string, string>): Record<string, unknown> {
  const domain = websiteKey(record.domain);
  const entry: Record<string, unknown> = { domain };
  for (const field of SETTING_FIELDS) {
    const value = record[field];
    // Unreturned fields are left out (see annotate); so are values the service would set anyway.
    if (value === undefined || sameValue(value, SERVICE_CREATE_DEFAULTS[field])) continue;
    entry[field] = field === 'privacy' ? PRIVACY_NAMES[record.privacy!] : value;
  }
  const variable = variables[domain];
  if (variable !== undefined) entry.password = `\${${variable}}`;
  return entry;
}

function annotate(
  map: YAMLMap,
  record: RemoteWebsite,
  variables: Record<string, string>,
  noted: readonly SettingField[],
): void {
  const variable = variables[websiteKey(record.domain)];
  const password = map.items.find((pair) => isScalar(pair.key) && pair.key.value === 'password');
  if (variable !== undefined && password && isScalar(password.key)) {
    password.key.commentBefore = ` The service never returns passwords: set ${variable} to this website's password`;
  }
  const missing = SETTING_FIELDS.filter((field) => record[field] === undefined && !noted.includes(field));
  if (missing.length > 0) map.comment = unreturnedNote(missing, 'this website');
}

/**
 * `WEBSITES_SYNC_PASSWORD_SHOP_EXAMPLE_COM` for shop.example.com. Different domains can map to the same
 * name (`a-b.com`, `a.b.com`), so later ones get a numeric suffix.
 */
export function passwordVariables(domains: readonly string[]): Record<string, string> {
  const used = new Set<string>();
  const variables: Record<string, string> = {};
  for (const domain of domains) {
    const base = `WEBSITES_SYNC_PASSWORD_${domain.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    variables[domain] = name;
  }
  return variables;
}
