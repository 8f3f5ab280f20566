// formatBytes: byte counts as messages show them ("812 bytes", "4.2 KB", "17 MB").

/** A size for humans: bytes below 1 KB, else KB/MB/GB/TB with one decimal below 10. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}
