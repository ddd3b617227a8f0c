import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { isNotFound, mapErrors } from '../errors';
import { field } from '../fields/outputs';

const perform = mapErrors(async (z: ZObject, bundle: Bundle<{ key_id?: string }>) => {
  const keyId = String(bundle.inputData.key_id ?? '').trim();
  try {
    await clientFor(z, bundle).revokeKey(keyId);
    return {
      key_id: keyId,
      revoked: true,
      result: 'revoked',
      message: `Key ${keyId} is revoked; requests made with it are refused from now on.`,
    };
  } catch (error) {
    // Nothing to revoke is an answer, not a failure: the key is not usable either way.
    if (isNotFound(error))
      return {
        key_id: keyId,
        revoked: false,
        result: 'not_found',
        message: `Key ${keyId} was not found for this account, so there was nothing to revoke. Check the Key ID under Profile, then API.`,
      };
    throw error;
  }
});

export default defineCreate({
  key: 'revoke_api_key',
  noun: 'API Key',
  display: {
    label: 'Revoke API Key',
    description: 'Revokes one of your API keys for good, e.g. the old key after a rotation.',
  },
  operation: {
    inputFields: [
      {
        key: 'revoke_warning',
        type: 'copy',
        helpText:
          '**Revoking cannot be undone.** Every Zap, script or app that uses the key stops working at once; a new key has to be created in the app and connected again.',
      },
      {
        key: 'key_id',
        label: 'Key ID',
        type: 'string',
        required: true,
        // Typed, not picked: the service has no request that lists an account's keys (the spec offers
        // only DELETE /v1/keys/{key_id}), so there is nothing to fill a dropdown from.
        helpText:
          'The ID of the key as shown in the app under Profile, then API (not the key itself, which starts with evf_). Typed by hand: the service offers no list of keys to pick from. Revoking the key this connection uses disconnects it.',
      },
    ],
    perform,
    sample: {
      key_id: 'key_8b1d3f',
      revoked: true,
      result: 'revoked',
      message: 'Key key_8b1d3f is revoked; requests made with it are refused from now on.',
    },
    outputFields: [
      field('key_id', 'Key ID', 'string'),
      field('revoked', 'Revoked', 'boolean'),
      field('result', 'Result (Revoked or Not Found)', 'string'),
      field('message', 'Message', 'string'),
    ],
  },
});
