// A picture of the page for the README: node screenshot.mjs URL OUT.png (scripts/web-shot.sh).
// The default scenario after 40 steps (the dog on its way), the sliders open, 1280 x 900.
import { launchChromium, openHerd } from "./browser.mjs";

const [url, out] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const page = await openHerd(browser, url, 1280, 900);
  await page.evaluate(() => window.herdPage.step(40));
  await page.waitForTimeout(300);
  await page.screenshot({ path: out });
} finally {
  await browser.close();
}
