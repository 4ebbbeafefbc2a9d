/** Rows as a plain-text table for a terminal: columns padded to their widest cell, two spaces apart, no trailing space. */
export function alignedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  return table
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
