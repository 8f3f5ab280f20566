// formatWhen: a recorded time as people read it — local date and time, and how long ago.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `2025-06-02 09:14:07 (5 min ago)` in the local time zone. */
export function formatWhen(time: number, now: number): string {
  return `${localTime(time)} (${ago(now - time)})`;
}

/** `YYYY-MM-DD HH:MM:SS`, local time. */
export function localTime(time: number): string {
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** How long ago, coarsely: seconds, minutes, hours, then days. */
export function ago(ms: number): string {
  if (ms < 5_000) return ms < -5_000 ? 'in the future' : 'just now';
  if (ms < MINUTE) return `${Math.floor(ms / 1000)} s ago`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`;
  if (ms < 2 * DAY) return `${Math.floor(ms / HOUR)} h ago`;
  return `${Math.floor(ms / DAY)} days ago`;
}
