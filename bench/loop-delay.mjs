// Preloaded into a benched server (`node --import ./bench/loop-delay.mjs`): how long its event loop was held up.
// SIGUSR2 starts the measurement afresh; at exit the histogram goes to the file named by EG_BENCH_LOOP_DELAY.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const out = process.env.EG_BENCH_LOOP_DELAY;
if (out) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  process.on('SIGUSR2', () => h.reset());
  process.on('exit', () => {
    const ms = (ns) => ns / 1e6;
    fs.writeFileSync(
      out,
      JSON.stringify({ p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), count: h.count }),
    );
  });
}
