// Debian's Chromium, headless, with WebGL2 on SwiftShader (no GPU here), and herd's page opened
// in it once the module has started: what test_web.mjs, fps.mjs and screenshot.mjs share.
import { chromium } from "playwright-core";

export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"],
  });
}

// A new page of `browser` at `url` (width x height), returned once window.herdPage exists.
export async function openHerd(browser, url, width, height, watch = () => {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  watch(page);
  await page.goto(url);
  // The module compiles in a few seconds, many more on a machine busy with other work.
  await page.waitForFunction(() => window.herdPage !== undefined, null, { timeout: 180000 });
  return page;
}
