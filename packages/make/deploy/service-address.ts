/**
 * The service's address is a literal in the app as Make runs it. Make's base-URL guidance shows a
 * fixed host, a connection sees only its own parameters and common data (not the app's), and common
 * data is locked once an app is approved; so the address cannot live in common data. The files in
 * app/ carry a placeholder instead, on the reserved `.invalid` domain so that a copy uploaded without
 * the deploy (for example by Make's editor extension) can reach nothing; the deploy replaces it from
 * EVF_BASE_URL, and the test harness replaces it the same way with its sandbox's address.
 */
export const SERVICE_ADDRESS_PLACEHOLDER = 'https://evf-service-address.invalid/api';

/** The app files that hold the placeholder: the base and the connection (its test call). */
export const FILES_WITH_SERVICE_ADDRESS = [
  'general/base.iml.json',
  'connections/api-key/api-key.communication.iml.json',
] as const;

/** A file's text with the deployed service address in place of the placeholder. */
export function withServiceAddress(text: string, serviceAddress: string): string {
  if (serviceAddress.includes('"') || serviceAddress.includes('\\') || serviceAddress.includes('{{'))
    throw new Error('the service address may not hold quotes, backslashes or IML');
  return text.split(SERVICE_ADDRESS_PLACEHOLDER).join(serviceAddress.replace(/\/$/, ''));
}
