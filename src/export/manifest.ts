// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { Document, isMap, isScalar, isSeq, visit, type YAMLMap, type YAMLSeq } from 'yaml';
import { declarable } from '../manifest/index.js';
import {
  hasControls,
  PRIVACY_NAMES,
  type RemoteWebsite,
  SERVICE_CREATE_DEFAULTS,
  SETTING_FIELDS,
  type SettingField,
  sameValue,
  type WritableField,
} from '../model/index.js';
import { type ExportedAccount, type ExportedEntry, exportedAccount } from './entries.js';
import { commentText, manifestText, manifestValue } from './escape.js';

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
 * A value holding a control, bidirectional or zero-width character is written double-quoted, where the
 * escape every written text shows it as (`\u202e`, Redactor.show) reads back as exactly that character.
 */
function quoteControls(doc: Document): void {
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && hasControls(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
}

function twinsNote(twins: ExportedAccount['twins']): string {
  const list = twins
    .map(
      ({ record, listed }) =>
        `${commentText(record.domain)} (id ${record.id}, the same as ${commentText(listed)})`,
    )
    .join(', ');
  return ` Also on the account, each the same website for websites-sync as an entry below but held separately\n by the service: ${list}. They are not managed and never deleted by websites-sync.`;
}

function unlistedNote(unlisted: readonly RemoteWebsite[]): string {
  const list = unlisted.map((record) => `${commentText(record.domain)} (id ${record.id})`).join(', ');
  return ` Also on the account, under a name the service refuses today, so that no entry can name it: ${list}.\n With prune on, websites-sync deletes it; keep prune off, or rename it in the web interface.`;
}

export function exportManifest(records: readonly RemoteWebsite[], options: ExportOptions): ExportedManifest {
  const account = exportedAccount(records);
  const { entries } = account;
  // Asked once per record: its entry and its comment both need it.
  // A restored website is created afresh: no password of its old record survives to be kept.
  const restoring = options.backupFile !== undefined;
  const undeclarable = entries.map((e) => undeclarableFields(e.record, restoring));
  const variables = passwordVariables(entries.filter((e) => e.record.privacy === 2).map((e) => e.name));
  const doc = new Document({
    version: 1,
    prune: false,
    ...(account.ignored.length > 0 ? { ignore: account.ignored.map((i) => manifestText(i.pattern)) } : {}),
    websites: entries.map((e, index) => websiteEntry(e, variables, undeclarable[index] ?? [])),
  });
  doc.commentBefore = header(options, entries.length);
  const prune = doc.get('prune', true);
  if (isScalar(prune)) prune.comment = ' true deletes the websites not listed here; turn it on after review';
  const ignore = doc.get('ignore', true);
  if (isSeq(ignore)) ignore.commentBefore = ignoredNote(account.ignored);
  // A field no record carries gets one note above the list; one only some lack gets a note per website.
  const unreturned = SETTING_FIELDS.filter(
    (field) => entries.length > 0 && entries.every((e) => e.record[field] === undefined),
  );
  const root = doc.contents;
  const websites = isMap(root)
    ? root.items.find((pair) => isScalar(pair.key) && pair.key.value === 'websites')
    : undefined;
  const notes = [
    ...(unreturned.length > 0 ? [unreturnedNote(unreturned, 'a website')] : []),
    ...(account.twins.length > 0 ? [twinsNote(account.twins)] : []),
    ...(account.unlisted.length > 0 ? [unlistedNote(account.unlisted)] : []),
  ];
  if (websites && isScalar(websites.key) && notes.length > 0) websites.key.commentBefore = notes.join('\n');
  (doc.get('websites', true) as YAMLSeq).items.forEach((item, index) => {
    if (isMap(item))
      annotate(item, entries[index]!, variables, { unreturned, undeclarable: undeclarable[index] ?? [] });
  });
  quoteControls(doc);
  return { text: doc.toString({ lineWidth: 0 }), passwordVariables: variables };
}

function ignoredNote(ignored: ExportedAccount['ignored']): string {
  const list = ignored.map(({ record }) => `${commentText(record.domain)} (id ${record.id})`).join(', ');
  return ` Stored under a name the service refuses today, so that no entry can name it: ${list}.\n Ignored, so that websites-sync never deletes it.`;
}

function unreturnedNote(fields: SettingField[], where: string): string {
  const them = fields.length > 1 ? 'them' : 'it';
  return ` ${fields.join(', ')}: not returned by the service, so not written here. Left out, what the\n service holds is left as it is; written on ${where}, the next apply sets ${them} to what this file says.`;
}

function header(options: ExportOptions, count: number): string {
  return [
    ' yaml-language-server: $schema=./websites.schema.json',
    ' (for completion and checks in an editor: websites-sync schema > websites.schema.json beside this file)',
    ...(options.backupFile === undefined
      ? [
          ` Exported by websites-sync ${options.version} from ${commentText(options.baseUrl)} on ${options.now.toISOString()}:`,
          ` the ${count} website(s) of the account as they are now. Settings equal to the service's defaults`,
          ' are left out. Review it, then check what applying it would change:',
        ]
      : [
          ` Restored by websites-sync ${options.version} on ${options.now.toISOString()}:`,
          ` the ${count} deleted website(s) in the backup file ${commentText(options.backupFile)},`,
          ` each as last read from ${commentText(options.baseUrl)} before its delete. Only settings come back: the`,
          " statistics of a deleted website are not restorable. Settings equal to the service's defaults",
          ' are left out. Add these entries to the manifest, then check what applying it would change:',
        ]),
    '   websites-sync --once --dry-run -f websites.yaml',
  ].join('\n');
}

/** A value of a record in a comment: a list's items, each quoted and escaped as a name is. */
function shownValues(value: unknown): string {
  return (Array.isArray(value) ? value : [value]).map((item) => commentText(String(item))).join(', ');
}

/** A field's value as the manifest writes it, or undefined when the entry leaves it out. */
function writtenValue(record: RemoteWebsite, field: SettingField): unknown {
  const value = record[field];
  // Unreturned and unset (null) fields are left out (see annotate); so are values the service would
  // set anyway. A null written out would not validate.
  if (value === undefined || value === null || sameValue(value, SERVICE_CREATE_DEFAULTS[field]))
    return undefined;
  return field === 'privacy' ? PRIVACY_NAMES[record.privacy!] : value;
}

/**
 * The fields whose value the service holds but a manifest cannot declare (an `exclude_ips` entry
 * `10.0.0.0/8`, stored by the web interface; a password kept from an earlier privacy 2, which a plan
 * would clear): written as `ignore_fields`, so the export validates and its first apply leaves them as
 * they are rather than clear them.
 */
function undeclarableFields(record: RemoteWebsite, restoring: boolean): WritableField[] {
  const settings = SETTING_FIELDS.filter((field) => {
    const value = writtenValue(record, field);
    return value !== undefined && !declarable(field, value);
  });
  return stalePassword(record) && !restoring ? [...settings, 'password'] : settings;
}

/** A password the service keeps although privacy is no longer 2 (it keeps it when privacy changes). */
function stalePassword(record: RemoteWebsite): boolean {
  return record.hasPassword === true && record.privacy !== 2;
}

const STALE_PASSWORD_NOTE =
  ' The service still holds a password from when privacy was "password" (it is kept when privacy\n changes): ignored here (ignore_fields), so applying this file leaves it. Remove "password" from\n ignore_fields to have the next apply clear it.';

function websiteEntry(
  entry: ExportedEntry,
  variables: Record<string, string>,
  undeclarable: readonly WritableField[],
): Record<string, unknown> {
  const { record } = entry;
  const values: Record<string, unknown> = { domain: entry.name };
  for (const field of SETTING_FIELDS) {
    const value = writtenValue(record, field);
    if (value !== undefined && !undeclarable.includes(field)) values[field] = value;
  }
  if (undeclarable.length > 0) values.ignore_fields = [...undeclarable];
  // Every value from the account reads back as itself; the password is a reference, on purpose.
  const written = manifestValue(values);
  const variable = variables[entry.name];
  if (variable !== undefined) written.password = `\${${variable}}`;
  return written;
}

function annotate(
  map: YAMLMap,
  entry: ExportedEntry,
  variables: Record<string, string>,
  fields: { unreturned: readonly SettingField[]; undeclarable: readonly WritableField[] },
): void {
  const variable = variables[entry.name];
  const password = map.items.find((pair) => isScalar(pair.key) && pair.key.value === 'password');
  if (variable !== undefined && password && isScalar(password.key)) {
    password.key.commentBefore = ` The service never returns passwords: set ${variable} to this website's password`;
  }
  const missing = SETTING_FIELDS.filter(
    (field) => entry.record[field] === undefined && !fields.unreturned.includes(field),
  );
  const unset = SETTING_FIELDS.filter((field) => entry.record[field] === null);
  const undeclarable = fields.undeclarable.map((field) =>
    field === 'password'
      ? STALE_PASSWORD_NOTE
      : ` ${field} holds values a manifest cannot declare (${shownValues(entry.record[field])}):\n ignored here (ignore_fields), so websites-sync leaves them as the service holds them.`,
  );
  const notes = [
    ...undeclarable,
    ...(missing.length > 0 ? [unreturnedNote(missing, 'this website')] : []),
    ...(unset.length > 0
      ? [
          ` ${unset.join(', ')}: not set on the service (null); the first apply sets ${unset.length > 1 ? 'them' : 'it'} to what this\n entry says (the default when left out).`,
        ]
      : []),
  ];
  if (notes.length > 0) map.comment = notes.join('\n');
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
