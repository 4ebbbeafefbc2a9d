/**
 * Every error the API can answer with. Codes (snake_case) and messages (exact strings) are part of the contract:
 * clients match on `code`, people read `message`, so both are fixed here and nowhere else. No stack trace, ever.
 */
export const API_ERRORS = {
  missing_api_key: { status: 401, message: 'Missing x-api-key header' },
  invalid_api_key: { status: 401, message: 'Invalid API key' },
  subscription_inactive: { status: 403, message: 'API subscription is inactive' },
  invalid_postcode: { status: 400, message: 'Invalid postcode format' },
  invalid_date: { status: 400, message: 'Invalid date: use YYYY-MM-DD, from 2006-01-01, not in the future' },
  invalid_suburb: { status: 400, message: 'Suburb is not in this postcode' },
  invalid_request: { status: 400, message: 'Invalid request body' },
  catchment_too_large: { status: 400, message: 'A catchment holds at most 5000 postcodes' },
  invalid_webhook_url: { status: 400, message: 'Webhook URL must be an http(s) URL to a public address' },
  no_webhook: { status: 404, message: 'No webhook is set' },
  malformed_request: { status: 400, message: 'Malformed HTTP request' },
  expectation_failed: { status: 417, message: 'Expect header is not supported' },
  postcode_not_found: { status: 404, message: 'Postcode not found' },
  // POST /api/v1/check-batch (issue #37): the whole batch refused; one bad item is that item's error, not these.
  invalid_batch: { status: 400, message: 'A batch has 1 to 500 items' },
  batch_allowance_used: { status: 429, message: "Today's allowance of list rows is used up" },
  rate_limited: { status: 429, message: 'Rate limit exceeded' },
  invalid_json: { status: 400, message: 'Request body is not valid JSON' },
  invalid_body: { status: 400, message: 'Request body could not be decoded' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json' },
  unsupported_encoding: { status: 415, message: 'Content-Encoding must be gzip, deflate, br or identity' },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  request_timeout: { status: 408, message: 'Request was not received in time' },
  headers_too_large: { status: 431, message: 'Request headers are too large' },
  not_found: { status: 404, message: 'Not found' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  unauthenticated: { status: 401, message: 'Sign in required' },
  invalid_credentials: { status: 401, message: 'Invalid email or password' },
  key_exists: { status: 409, message: 'An active API key already exists' },
  no_active_key: { status: 404, message: 'No active API key' },
  data_unavailable: { status: 503, message: 'Disaster data is not available yet' },
  rate_limit_unavailable: { status: 503, message: 'Rate limiting is unavailable; try again shortly' },
  session_unavailable: { status: 503, message: 'Sessions are unavailable; try again shortly' },
  storage_unavailable: { status: 503, message: 'Storage is unavailable; try again shortly' },
  server_busy: { status: 503, message: 'The server is busy; try again shortly' },
  forbidden_origin: { status: 403, message: 'Request origin is not allowed' },
  forbidden_role: { status: 403, message: 'Your role does not allow this' },
  member_not_found: { status: 404, message: 'No such member' },
  last_owner: { status: 409, message: 'An organisation keeps at least one owner' },
  account_exists: { status: 409, message: 'An account with this email already exists' },
  invitation_not_found: { status: 404, message: 'No such invitation' },
  too_many_invitations: { status: 409, message: 'An organisation has at most 100 pending invitations' },
  // Who may make the service send mail, and how much (issue #35): plain words, as the Team page shows them.
  email_unverified: { status: 403, message: 'Verify your e-mail address before inviting people' },
  subscription_required: { status: 403, message: 'Invitations need an active subscription' },
  mail_limited: { status: 429, message: 'Too many invitations and e-mails for now; try again later' },
  invalid_link: { status: 400, message: 'This link is invalid, used or expired' },
  weak_password: { status: 400, message: 'The password must have at least 10 characters' },
  signup_disabled: { status: 403, message: 'Sign-up is switched off on this server' },
  billing_not_configured: { status: 404, message: 'Billing is not set up on this server' },
  billing_unavailable: { status: 503, message: 'The payment service could not be reached; nothing was changed' },
  already_subscribed: { status: 409, message: 'The subscription is already paid for' },
  no_billing_account: { status: 409, message: 'There is no billing account yet: subscribe first' },
  checkout_not_found: { status: 404, message: 'No such checkout for this organisation' },
  invalid_signature: { status: 400, message: 'Invalid or missing Stripe signature' },
  // Single sign-on (issue #38): setting it up (owners) …
  sso_not_configured: { status: 404, message: 'Single sign-on is not set up for this organisation' },
  sso_provider_unavailable: { status: 400, message: 'This sign-in provider is not set up on this server' },
  sso_public_domain: { status: 400, message: 'A public e-mail domain cannot be claimed for single sign-on' },
  sso_domain_not_yours: {
    status: 403,
    message: 'You can claim only the domain of your own verified e-mail address',
  },
  sso_domain_taken: { status: 409, message: 'Another organisation has claimed this e-mail domain' },
  sso_secret_required: { status: 400, message: 'The client secret is required' },
  sso_invalid_certificate: {
    status: 400,
    message: 'The signing certificate could not be read: paste it as your identity provider gives it (PEM)',
  },
  sso_invalid_issuer: { status: 400, message: "The issuer's OpenID Connect configuration could not be read" },
  sso_encryption_unavailable: {
    status: 503,
    message: 'Single sign-on secrets cannot be stored: SSO_ENCRYPTION_KEY is not set on this server',
  },
  // … and signing in with it (the console shows these in words: shared/api/sso.ts's SSO_ERROR_WORDS).
  sso_required: { status: 403, message: 'Your organisation signs in with single sign-on: continue with it' },
  sso_domain_not_claimed: { status: 404, message: 'No organisation signs in with this e-mail domain' },
  sso_wrong_tenant: { status: 403, message: "The token is from another organisation's tenant" },
  sso_wrong_domain: { status: 403, message: "The token is from another organisation's domain" },
  sso_email_unverified: { status: 403, message: 'The identity provider did not verify the e-mail address' },
  sso_email_not_in_domains: { status: 403, message: "The e-mail address is not in the organisation's domains" },
  sso_misconfigured: { status: 502, message: "The organisation's single sign-on is not set up correctly" },
  sso_idp_unreachable: { status: 502, message: 'The identity provider could not be reached' },
  sso_failed: { status: 400, message: 'Single sign-on failed: start again' },
  sso_cancelled: { status: 400, message: 'Single sign-on was cancelled at the identity provider' },
  sso_member_removed: { status: 403, message: 'You were removed from this organisation: ask to be invited again' },
  sso_account_elsewhere: { status: 409, message: 'This e-mail address is a member of another organisation' },
  // The service's MCP tools (issue #39): what the REST API has no word for yet.
  declaration_not_found: { status: 404, message: 'No declaration with this AGRN' },
  invalid_cursor: { status: 400, message: 'Invalid cursor: list again without it' },
  internal_error: { status: 500, message: 'Internal server error' },
} as const satisfies Record<string, { status: number; message: string }>;

/**
 * `invalid_json`'s message for an object with the same key twice: JSON.parse would keep the last value silently,
 * so `{"postcode":"abcd","postcode":"4000"}` would pass a check that looked at the first one.
 */
export const DUPLICATE_KEY_MESSAGE = 'Request body is not valid JSON: duplicate key';

export type ApiErrorCode = keyof typeof API_ERRORS;
