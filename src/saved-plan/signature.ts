import { createHmac, timingSafeEqual } from 'node:crypto';

// A saved plan is signed: an HMAC of its whole content, keyed by a secret derived from the API key
// (never written), so a file changed after it was saved — an operation added, `prune` or `force`
// turned on — is refused before any request, and only a holder of the key can make a plan that runs.
// The content is the file's JSON without its `signature`, in compact form.

function signatureOf(content: unknown, secret: string): string {
  const key = createHmac('sha256', secret).update('websites-sync saved plan signature').digest();
  return createHmac('sha256', key).update(JSON.stringify(content)).digest('base64url');
}

/** The file's text with its signature added (the text is the final content: already redacted). */
export function signedText(text: string, secret: string): string {
  const content = JSON.parse(text) as Record<string, unknown>;
  return `${JSON.stringify({ ...content, signature: signatureOf(content, secret) }, null, 2)}\n`;
}

/** Why the file's signature does not hold (empty when it does); `text` parsed already as a saved plan. */
export function signatureMismatch(text: string, secret: string): string[] {
  const { signature, ...content } = JSON.parse(text) as Record<string, unknown>;
  if (typeof signature !== 'string') {
    return ['the plan file is not signed: it was not saved by this version, or was edited; plan again'];
  }
  const expected = Buffer.from(signatureOf(content, secret));
  const given = Buffer.from(signature);
  if (given.length === expected.length && timingSafeEqual(given, expected)) return [];
  return [
    'the plan file was changed after it was saved, or saved with another API key (its signature does not match); plan again',
  ];
}
