// Frames per second of herd's page in headless Chromium (bench/web-fps.sh): node fps.mjs
// URL CASES.json, each case {name, file, sets, seconds}: the scenario started with `sets`
// ("PATH=VALUE" lines) on a 1280 x 800 canvas, one step a frame, run for `seconds`.
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
      if (!window.herdPage.start(text, c.file, c.sets)) return { error: window.herdPage.error() };
      return window.herdPage.measure(c.seconds);
    }, c);
    console.log(JSON.stringify({ ...c, ...r }));
  }
} finally {
  await browser.close();
}
