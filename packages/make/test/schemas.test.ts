/**
 * Every app file validates against the JSON Schema Make's editor applies to it. Make's schemas are not
 * in this repository (see harness/schema-location.ts): without them this one suite is skipped with a
 * line saying how to run it, except under EVF_REQUIRE_ALL_SUITES=1 (.ci/run), where a missing folder fails the run so CI keeps
 * checking the files.
 */
import { listAppFiles, makecomapp, readJsonc } from './harness/app-files';
import { schemaNameFor, validateAgainst } from './support/make-schemas';
import { schemasMissingMessage, schemasPresent } from './harness/schema-location';
import { describeWhenPresent } from '../../../test/support/optional-suite';

const present = schemasPresent();

describeWhenPresent(
  'Make app files against Make’s JSON Schemas',
  present ? undefined : schemasMissingMessage(),
  () => {
    it('makecomapp.json validates against the local-development schema', () => {
      expect(schemaNameFor('makecomapp.json')).toBe('makecomapp.schema.json');
      expect(validateAgainst('makecomapp.schema.json', makecomapp)).toEqual([]);
    });

    it.each(listAppFiles().filter((f) => f.endsWith('.json')))(
      '%s parses and validates against its Make schema',
      (file) => {
        const schema = schemaNameFor(file);
        expect(schema).toBeDefined();
        expect(validateAgainst(schema!, readJsonc(file))).toEqual([]);
      },
    );

    it('the schemas do reject a broken file (the check can fail)', () => {
      expect(validateAgainst('api.json', { url: '/v1/verify/single', method: 'POST' })).not.toEqual([]);
      expect(validateAgainst('parameters.json', [{ name: 'x', type: 'no-such-type' }])).not.toEqual([]);
      expect(
        validateAgainst('base.json', { response: { error: { '429': { type: 'RateLimitError' } } } }),
      ).not.toEqual([]);
      expect(validateAgainst('makecomapp.schema.json', { ...makecomapp, origins: [{}] })).not.toEqual([]);
    });
  },
);
