/** Reads the Make app exactly as the Make Apps Editor would: makecomapp.json and its JSON-with-comments files. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { withServiceAddress } from '../../deploy/service-address';

export const APP_DIR = join(__dirname, '..', '..', 'app');
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type ComponentType = 'connection' | 'webhook' | 'module' | 'rpc' | 'function' | 'endpoint';

export interface ComponentMeta {
  label?: string;
  description?: string;
  moduleType?: 'action' | 'search' | 'trigger' | 'instant_trigger' | 'universal' | 'responder';
  actionCrud?: string;
  connection?: string | null;
  webhook?: string | null;
  webhookType?: string;
  connectionType?: string;
  codeFiles: Record<string, string | null>;
}

export interface MakecomappJson {
  fileVersion: number;
  generalCodeFiles: Record<'base' | 'common' | 'readme' | 'groups', string | null>;
  components: Record<ComponentType, Record<string, ComponentMeta | null>>;
  origins: unknown[];
}

/**
 * Parses JSON with comments; a syntax error fails loudly with the file and offset. With
 * `deployedTo`, the file as the deploy uploads it: the service address in place of its placeholder.
 */
export function readJsonc(relPath: string, deployedTo?: string): Json {
  const file = readFileSync(join(APP_DIR, relPath), 'utf8');
  const text = deployedTo === undefined ? file : withServiceAddress(file, deployedTo);
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: false, disallowComments: false }) as Json;
  if (errors.length > 0) {
    const list = errors.map((e) => `${printParseErrorCode(e.error)} at offset ${e.offset}`).join(', ');
    throw new Error(`${relPath} is not valid JSON with comments: ${list}`);
  }
  return value;
}

export const makecomapp = readJsonc('makecomapp.json') as unknown as MakecomappJson;

/** Every file under app/, relative to it, with forward slashes. */
export function listAppFiles(dir = APP_DIR): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return listAppFiles(full);
    return [relative(APP_DIR, full).split(sep).join('/')];
  });
}

export function components(type: ComponentType): [string, ComponentMeta][] {
  return Object.entries(makecomapp.components[type]).filter(
    (e): e is [string, ComponentMeta] => e[1] !== null,
  );
}

export function codeFile(type: ComponentType, id: string, code: string): string {
  const meta = makecomapp.components[type][id];
  const file = meta?.codeFiles[code];
  if (!file) throw new Error(`${type} ${id} has no ${code} file in makecomapp.json`);
  return file;
}
