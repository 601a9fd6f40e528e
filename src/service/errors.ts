// Typed errors at the boundary of the service: every transport or HTTP failure becomes one of these,
// so callers decide by class and status, never by parsing messages.

export interface ServiceErrorOptions {
  method: string;
  path: string;
  status?: number;
  /** The service's own message (`message` of its JSON body), when it sent one. */
  serviceMessage?: string;
  /** Laravel validation errors: field → messages. */
  fieldErrors?: Record<string, string[]>;
  /** A short excerpt of an unexpected body (HTML page, truncated JSON). */
  excerpt?: string;
  /** The website the request acted on was deleted meanwhile (found missing after a 5xx). */
  vanished?: boolean;
  /** An earlier attempt of the request went out and its answer was lost (attempts.ts AnswerWatch). */
  afterLostAnswer?: boolean;
  cause?: unknown;
}

export class ServiceError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly serviceMessage: string | undefined;
  readonly fieldErrors: Record<string, string[]>;
  readonly excerpt: string | undefined;
  readonly vanished: boolean;
  readonly afterLostAnswer: boolean;

  constructor(message: string, options: ServiceErrorOptions) {
    super(message, { cause: options.cause });
    this.name = 'ServiceError';
    this.method = options.method;
    this.path = options.path;
    this.status = options.status;
    this.serviceMessage = options.serviceMessage;
    this.fieldErrors = options.fieldErrors ?? {};
    this.excerpt = options.excerpt;
    this.vanished = options.vanished ?? false;
    this.afterLostAnswer = options.afterLostAnswer ?? false;
  }

  /**
   * True when the service may have acted on the request although we could not read its answer: no
   * answer at all (reset, timeout), a server error, or a success we could not read (an HTML page, a
   * body without the record). 4xx answers, redirects and 429 mean nothing was done.
   */
  get ambiguous(): boolean {
    return this.status === undefined || this.status >= 500 || (this.status >= 200 && this.status < 300);
  }

  /**
   * The failure in one line, for reports: the service's field messages ("domain: The domain has already
   * been taken."), else the whole message, which names the request and the status ("PATCH
   * /api/v1/websites/7: 503 Service Unavailable"); the service's own message alone ("Server Error")
   * would say neither.
   */
  get details(): string {
    const fields = Object.entries(this.fieldErrors).map(([field, msgs]) => `${field}: ${msgs.join(' ')}`);
    if (fields.length > 0) return fields.join('; ');
    return this.message;
  }
}

/** 401/403: the key is wrong or lacks rights. The run stops at once; nothing is retried. */
export class AuthError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions) {
    super(message, options);
    this.name = 'AuthError';
  }
}

/**
 * The key was refused after the service had accepted it in this process: rotated or revoked. Nothing
 * more is sent with it (every later request fails with this class too, before it is sent).
 */
export class KeyRevokedError extends AuthError {
  constructor(message: string, options: ServiceErrorOptions) {
    super(message, options);
    this.name = 'KeyRevokedError';
  }
}

/** Masks the secrets a text may hold (the run's Redactor); an excerpt is masked before it is cut. */
export type Redact = (text: string) => string;

/**
 * A short, single-line, quoted excerpt of a body that is not JSON: tags dropped, whitespace folded.
 * Secrets are masked in the body as it came (before folding could change their spelling) and again
 * after (folding and dropping tags may join one), and before the cut, which so never leaves the start of
 * one.
 */
export function excerptOf(text: string, redact: Redact): string {
  const flat = redact(text)
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return JSON.stringify(shorten(redact(flat)));
}

/** The same for a JSON answer of an unexpected shape: the JSON itself, masked, then shortened. */
export function jsonExcerptOf(body: unknown, redact: Redact): string {
  return shorten(redact(JSON.stringify(body) ?? String(body)));
}

/** The most characters of one message of the service shown (Laravel's are well under 200). */
const MAX_MESSAGE = 300;

/**
 * A message the service wrote (`message`, a validation error) as one line of bounded length: a hostile
 * or broken service could send megabytes, or lines, there. Masked before it is folded and cut, as above.
 */
export function messageOf(text: string, redact: Redact): string {
  const flat = redact(redact(text).replace(/\s+/g, ' ').trim());
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 3)}...` : flat;
}

function shorten(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
