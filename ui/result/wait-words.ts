/**
 * A wait in words: seconds up to two minutes, whole minutes after that. Minutes are rounded up, so the words never
 * promise an answer sooner than the server said.
 */
export function waitWords(seconds: number): string {
  if (seconds < 120) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
