// Frames per second of herd's page in headless Chromium (bench/web-fps.sh): node fps.mjs
// URL CASES.json, each case {name, file, sets, seconds}: the scenario started with `sets`
// ("PATH=VALUE" lines) on a 1280 x 800 canvas, one step a frame, run for `seconds`; then the
// milliseconds of a step alone (steps called back to back, nothing drawn), the part of a
// frame's time that the simulation takes.
import { readFileSync } from "node:fs";
import { launchChromium, openHerd } from "./browser.mjs";

const [url, casesPath] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesPath, "utf8"));
const browser = await launchChromium();
try {
  const page = await openHerd(browser, url, 1600, 1000);
  for (const c of cases) {
    const r = await page.evaluate(async (c) => {
      const canvas = document.getElementById("canvas");
      canvas.width = 1280, canvas.height = 800;
      const text = await (await fetch(`scenarios/${c.file}`)).text();
      const h = window.herdPage;
      if (!h.start(text, c.file, c.sets)) return { error: h.error() };
      const run = await h.measure(c.seconds);
      const steps = Math.max(3, Math.min(100, run.steps)), t0 = performance.now();
      h.step(steps);
      return { ...run, step_ms: (performance.now() - t0) / steps };
    }, c);
    console.log(JSON.stringify({ ...c, ...r }));
  }
} finally {
  await browser.close();
}
