// The Account API: createAccountApp (handle, identify, close) and what callers need with it.
export { createAccountApp, ACCOUNT_PREFIX, INVALID_KEY, WATCHLIST_MAX_LIMIT, LIMITS, type AccountApp, type AccountDeps } from './app.js';
export { requestToken, bearerToken, type Identity } from './auth.js';
export type { SmtpOptions } from './mail.js';
export { createAccountWithSession } from './cli.js';
