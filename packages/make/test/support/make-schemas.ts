/** Make's own JSON Schemas (draft-07) for the app files, matched to files by file-match.json. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { SCHEMA_DIR } from '../harness/schema-location';

interface FileMatch {
  fileMatch: string[];
  url: string;
}

interface Loaded {
  ajv: Ajv;
  fileMatches: FileMatch[];
}

let loaded: Loaded | undefined;

/** Read on first use, so importing this file never touches the schema folder (it may be absent). */
function load(): Loaded {
  if (loaded) return loaded;
  const ajv = new Ajv({
    // Make's schemas carry editor-only keywords (errorMessage, doNotSuggest) and defaults of other
    // types; they are annotations for VS Code, not rules, so strict mode is off.
    strict: false,
    allErrors: true,
    // The editor evaluates patterns without the unicode flag; one of them (`\-`) is invalid with it.
    unicodeRegExp: false,
  });
  addFormats(ajv);
  for (const name of readdirSync(SCHEMA_DIR).filter((n) => n.endsWith('.json') && n !== 'file-match.json')) {
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, name), 'utf8'));
    // The schemas refer to each other by file name (sources.json#/definitions/url).
    ajv.addSchema({ ...schema, $id: name }, name);
  }
  const fileMatches: FileMatch[] = JSON.parse(readFileSync(join(SCHEMA_DIR, 'file-match.json'), 'utf8'));
  loaded = { ajv, fileMatches };
  return loaded;
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .split('**/')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
    .join('(?:.*/)?');
  return new RegExp(`(?:^|/)${escaped}$`);
}

/**
 * The schema the editor applies to a file. VS Code lets a later, more specific association win, so
 * the last matching entry is taken (endpoint files are the only overlap, and this app has none).
 */
export function schemaNameFor(relPath: string): string | undefined {
  // file-match.json has no entry for these two local file names; they hold the same codes as
  // parameters (static parameters) and OAuth scopes (a list of strings) in Make's API.
  if (relPath.endsWith('.static-params.iml.json')) return 'parameters.json';
  if (/(^|\/)[^/]+\.scope\.iml\.json$/.test(relPath)) return 'scope.json';
  let found: string | undefined;
  for (const entry of load().fileMatches) {
    if (entry.fileMatch.some((glob) => globToRegExp(glob).test(relPath))) {
      found = entry.url.split('/').pop();
    }
  }
  return found;
}

const compiled = new Map<string, ValidateFunction>();

export function validateAgainst(schemaName: string, value: unknown): string[] {
  let fn = compiled.get(schemaName);
  if (!fn) {
    fn = load().ajv.getSchema(schemaName);
    if (!fn) throw new Error(`No Make schema named ${schemaName}`);
    compiled.set(schemaName, fn);
  }
  return fn(value)
    ? []
    : (fn.errors ?? []).map(
        (e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
      );
}
