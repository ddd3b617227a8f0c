/**
 * Where Make's JSON Schemas for app files are. They are MIT-licensed files of Make's editor extension
 * and are not copied into this repository: CI lays them out beside the clone
 * (`<repo>/../shared/make-app-schemas`), and EVF_MAKE_SCHEMAS can name another folder. Only the
 * schema suite reads them; every other Make suite runs without them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const SCHEMA_DIR =
  process.env.EVF_MAKE_SCHEMAS ?? join(__dirname, '..', '..', '..', '..', '..', 'shared', 'make-app-schemas');

export const schemasPresent = (): boolean => existsSync(join(SCHEMA_DIR, 'file-match.json'));

export const schemasMissingMessage = (): string =>
  `Make's app schemas were not found at ${SCHEMA_DIR}: the Make schema check is skipped. ` +
  'To run it, set EVF_MAKE_SCHEMAS to a folder holding them (file-match.json and the *.json schemas of ' +
  "Make's Apps Editor extension) or lay them out as ../shared/make-app-schemas beside the clone.";

/**
 * Where Make's parameter validator is: `@makehq/forman-schema` (MIT, built from Make's own
 * make-forman-schema source; it is not on the registry these machines reach, so it is never
 * installed). CI lays it out as `<repo>/../shared/make-forman-schema`; EVF_MAKE_FORMAN can name
 * another folder. The Forman suite reads it, and so does the harness for every module run; without it
 * both skip that check (the suite with one line).
 */
export const FORMAN_DIR =
  process.env.EVF_MAKE_FORMAN ??
  join(__dirname, '..', '..', '..', '..', '..', 'shared', 'make-forman-schema');

export const formanPresent = (): boolean => existsSync(join(FORMAN_DIR, 'dist', 'index.cjs'));

export const formanMissingMessage = (): string =>
  `Make's Forman validator was not found at ${FORMAN_DIR}: the Forman parameter check is skipped. ` +
  'To run it, set EVF_MAKE_FORMAN to a build of @makehq/forman-schema 1.16.0 (a folder with ' +
  'dist/index.cjs) or lay it out as ../shared/make-forman-schema beside the clone.';
