// A JSON document keeps its shape when its secrets are masked: a secret is masked inside the document's
// strings (values and keys), in every spelling the Redactor knows, and a bare literal (a number, `true`,
// `false`, `null`) is left as it is. Every field of the tool's documents that can carry a secret is a
// string (a password the service echoes as a number is read as unusable and quoted, masked, in a
// message), so a bare literal is never the secret: a password `true` is not the `true` of
// `"risky": true`, and masking that one would only leave a document that no longer parses.

/** A string of a JSON text: its quotes, and characters but a quote or a backslash, or escapes. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * `json` with `redact` applied to the value of each of its strings (decoded, so that an escape is the
 * character it stands for, and written back as JSON only when masking changed it); undefined when `json`
 * is not a JSON text.
 */
export function redactJsonStrings(json: string, redact: (text: string) => string): string | undefined {
  try {
    JSON.parse(json);
  } catch {
    return undefined;
  }
  // In a JSON text a quote outside a string opens one: each match is one whole string, in order.
  return json.replace(JSON_STRING, (token) => {
    const value = JSON.parse(token) as string;
    const masked = redact(value);
    return masked === value ? token : JSON.stringify(masked);
  });
}
