// Preloaded into each `ax serve` of bench/team-load.ts (`node --import ./bench/loop-monitor.mjs`):
// samples the event loop's delay (how late a timer fires: the loop busy with its own work, or
// the process waiting for a CPU). On SIGUSR2 it prints one line `AXB_LOOP {json}` (ms) to stderr
// and starts a new sample. Plain JavaScript, so the bundled `ax` needs no tsx to load it.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
process.on('SIGUSR2', () => {
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  const figures = {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    mean: ms(histogram.mean),
  };
  process.stderr.write(`AXB_LOOP ${JSON.stringify(figures)}\n`);
  histogram.reset();
});
