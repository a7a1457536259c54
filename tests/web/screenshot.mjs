// A picture of the page for the README: node screenshot.mjs URL OUT.png (scripts/web-shot.sh).
// The default scenario after 40 steps (the dog on its way), the sliders open, 1280 x 900.
import { chromium } from "playwright-core";

const [url, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForFunction(() => window.herdPage !== undefined, null, { timeout: 60000 });
  await page.evaluate(() => window.herdPage.step(40));
  await page.waitForTimeout(300);
  await page.screenshot({ path: out });
} finally {
  await browser.close();
}
