/**
 * A check server is ready when it answers a check with `key` 200: listening is not enough (its data loads after), and
 * a load run against a server not yet listening records connection errors, not refusals.
 */
export const checkReady = (key: string) => async (url: string) =>
  (
    await fetch(`${url}/api/v1/check-postcode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: '{"postcode":"4000"}',
    })
  ).status === 200;
