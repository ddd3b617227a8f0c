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
