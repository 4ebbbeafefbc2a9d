/** "MCMAHONS POINT" → "McMahons Point", "O'CONNOR" → "O'Connor": how the suburbs are written on an envelope. */
export function titleCaseLocality(name: string): string {
  return name
    .toLowerCase()
    .replace(/(^|[\s\-('])([a-z])/g, (_, sep: string, ch: string) => sep + ch.toUpperCase())
    .replace(/\bMc([a-z])/g, (_, ch: string) => 'Mc' + ch.toUpperCase());
}
