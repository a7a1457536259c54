// Frames per second of herd's page in headless Chromium (bench/web-fps.sh): node fps.mjs
// URL CASES.json, each case {name, file, sets, seconds}: the scenario started with `sets`
// ("PATH=VALUE" lines) on a 1280 x 800 canvas, one step a frame asked for, run for `seconds`,
// twice: the page as it is (stepping on its own thread until a frame's steps take more than
// 8 ms, then in its Web Worker: where it stepped midway is reported) and on the page's own
// thread alone (?worker=0); then the milliseconds of a step alone (steps called back to back,
// nothing drawn).
import { readFileSync } from "node:fs";
import { launchChromium, openHerd } from "./browser.mjs";

const [url, casesPath] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesPath, "utf8"));
const browser = await launchChromium();

// Runs case `c` in `page` for its seconds: frames drawn and steps taken; with `timeSteps`, also
// the milliseconds of a step alone.
function measure(page, c, timeSteps) {
  return page.evaluate(async ([c, timeSteps]) => {
    const canvas = document.getElementById("canvas");
    canvas.width = 1280, canvas.height = 800;
    const h = window.herdPage, text = await (await fetch(`scenarios/${c.file}`)).text();
    if (!h.start(text, c.file, c.sets)) return { error: h.error() };
    const midway = new Promise((r) => setTimeout(() => r(h.stepping()), 500 * c.seconds));
    const run = { ...(await h.measure(c.seconds)), stepping: await midway };
    await new Promise((r) => setTimeout(r, 200)); // the worker's last state
    if (!timeSteps) return run;
    const steps = Math.max(3, Math.min(100, run.steps)), t0 = performance.now();
    h.step(steps);
    return { ...run, step_ms: (performance.now() - t0) / steps };
  }, [c, timeSteps]);
}

try {
  // One page at a time: Chromium draws every page in one process, on the same two cores.
  const results = cases.map((c) => ({ ...c }));
  for (const [mode, address] of [["worker", url], ["own", `${url}?worker=0`]]) {
    const page = await openHerd(browser, address, 1600, 1000);
    for (const r of results) r[mode] = await measure(page, r, mode === "own");
    await page.close();
  }
  for (const r of results) console.log(JSON.stringify(r));
} finally {
  await browser.close();
}
