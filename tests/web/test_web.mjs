// test_web: herd's page (scripts/web.sh) in headless Chromium, served on 127.0.0.1. Run by
// tests/test_web.sh: node test_web.mjs URL EXPECTED.json, where EXPECTED holds what the
// native program gives for the same runs (steps by seed).
import { readFileSync } from "node:fs";
import { launchChromium, openHerd } from "./browser.mjs";

const [url, expectedPath] = process.argv.slice(2);
const expected = JSON.parse(readFileSync(expectedPath, "utf8"));
let failures = 0;
function check(what, ok, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || !detail ? "" : `: ${detail}`}`);
  if (!ok) failures += 1;
}

const browser = await launchChromium();
try {
  const problems = [];
  const page = await openHerd(browser, url, 1280, 900, (p) => {
    p.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
    p.on("pageerror", (e) => problems.push(String(e)));
  });
  check("the page loads and starts the default scenario with no console error", problems.length === 0,
        problems.join(" | "));
  check("every shipped scenario is offered", (await page.locator("#scenario option").count()) === expected.scenarios,
        `${await page.locator("#scenario option").count()} of ${expected.scenarios}`);

  // The same bits as the program: the default scenario ends at herd run's step, its centroid
  // the same to ten digits.
  for (const [seed, want] of Object.entries(expected.runs)) {
    const got = await page.evaluate(async (s) => {
      document.getElementById("seed").value = s;
      window.herdPage.start(document.getElementById("text").value, "page");
      const steps = window.herdPage.runToEnd(), f = window.herdPage.figures();
      return { steps, outcome: f.outcome, centroid: `${f.centroid_x} ${f.centroid_y}` };
    }, seed);
    check(`seed ${seed}: the page's run ends ${want.outcome} at step ${want.steps}, centroid ${want.centroid}, ` +
          "as herd run's", got.outcome === want.outcome && got.steps === want.steps && got.centroid === want.centroid,
          JSON.stringify(got));
  }

  // A picture of the canvas: the field, the sheep and the dog in the renderer's colours.
  await page.evaluate(() => {
    document.getElementById("seed").value = 1;
    window.herdPage.start(document.getElementById("text").value, "page");
  });
  await page.waitForTimeout(500);
  const colors = JSON.parse(await page.evaluate(() => window.herdPage.colors()));
  const shot = await page.locator("#canvas").screenshot();
  const found = await page.evaluate(async ([png, want]) => {
    const img = new Image();
    img.src = `data:image/png;base64,${png}`;
    await img.decode();
    const c = new OffscreenCanvas(img.width, img.height), g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, img.width, img.height).data, count = {};
    for (const [name, rgb] of Object.entries(want)) {
      count[name] = 0;
      for (let i = 0; i < d.length; i += 4)
        if (Math.abs(d[i] - rgb[0]) <= 2 && Math.abs(d[i + 1] - rgb[1]) <= 2 && Math.abs(d[i + 2] - rgb[2]) <= 2)
          count[name] += 1;
    }
    return count;
  }, [shot.toString("base64"), colors]);
  check("the canvas shows the field, the sheep and the dog", found.field > 1000 && found.grazing + found.moved > 20 &&
        found.dog > 5, JSON.stringify(found));

  // A slider is herd_sim_set_param: moved after step 50, the next step is the one a scenario
  // whose schedule makes the same change at step 50 takes, and not the one without it.
  const slid = await page.evaluate(() => {
    const h = window.herdPage, text = document.getElementById("text").value, seed = 1;
    document.getElementById("seed").value = seed;
    const after = (scenario, change) => {
      h.start(scenario, "page");
      h.step(50);
      if (change) h.slide("sheep.repulsion", 6);
      h.step(1);
      const f = h.figures();
      return `${f.centroid_x} ${f.centroid_y} ${f.farthest_m} ${f.polarisation}`;
    };
    const scheduled = JSON.parse(text);
    scheduled.schedule = [{ step: 50, path: "sheep.repulsion", value: 6 }];
    return { slider: after(text, true), log: h.log(), schedule: after(JSON.stringify(scheduled), false),
             without: after(text, false) };
  });
  check("the repulsion slider changes the next step as the schedule's change does", slid.slider === slid.schedule &&
        slid.slider !== slid.without, JSON.stringify(slid));
  check("... and the change is logged with its step", slid.log.includes("step 50: sheep.repulsion = 6"),
        JSON.stringify(slid.log));

  // The dog dragged with the mouse (pointer events on the canvas: pressed on the dog, moved to
  // a point): into the flock, the sheep react to it; away from it, they do not.
  const box = await page.locator("#canvas").boundingBox();
  const onPage = async (x, y) => page.evaluate(([px, py]) => {
    const canvas = document.getElementById("canvas");
    return [px * canvas.clientWidth / canvas.width, py * canvas.clientHeight / canvas.height];
  }, [x, y]);
  async function dragRun(toward) {
    const [from, to] = await page.evaluate((t) => {
      const h = window.herdPage;
      h.start(document.getElementById("text").value, "page");
      const f = h.figures(), dog = h.dog();
      return [h.toPixel(dog[0], dog[1]), t ? h.toPixel(f.centroid_x, f.centroid_y) : h.toPixel(-30, -30)];
    }, toward);
    const [fx, fy] = await onPage(...from), [tx, ty] = await onPage(...to);
    await page.mouse.move(box.x + fx, box.y + fy);
    await page.mouse.down();
    await page.mouse.move(box.x + tx, box.y + ty, { steps: 4 });
    const reacted = await page.evaluate(() => {
      let most = 0;
      for (let s = 0; s < 150; ++s) {
        window.herdPage.step(1);
        most = Math.max(most, window.herdPage.figures().reacting);
      }
      return most;
    });
    await page.mouse.up();
    return { reacted, dog: await page.evaluate(() => window.herdPage.dog()) };
  }
  const toward = await dragRun(true), away = await dragRun(false);
  check("a dog dragged into the flock makes sheep react; one dragged away does not",
        toward.reacted > 0 && away.reacted === 0 && away.dog[0] < -20 && away.dog[1] < -20,
        JSON.stringify({ toward, away }));

  // Dragging elsewhere pans the view; the wheel zooms; F fits it to the flock again.
  const view = async () => page.evaluate(() => window.herdPage.toPixel(75, 75));
  const before = await view();
  const [ex, ey] = await onPage(900, 600);
  await page.mouse.move(box.x + ex, box.y + ey);
  await page.mouse.down();
  await page.mouse.move(box.x + ex - 100, box.y + ey - 50, { steps: 4 });
  await page.mouse.up();
  const panned = await view();
  await page.mouse.wheel(0, -300);
  const zoomed = await view();
  check("a drag off the dogs pans the view, the wheel zooms it", Math.abs(panned[0] - before[0] + 100) < 2 &&
        Math.abs(panned[1] - before[1] + 50) < 2 && (zoomed[0] !== panned[0] || zoomed[1] !== panned[1]),
        JSON.stringify({ before, panned, zoomed }));

  // herd view's keys: . steps once, + raises the steps a frame; the screenshot button's PNG.
  const keyed = await page.evaluate(() => window.herdPage.figures().step);
  await page.locator("#canvas").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press(".");
  await page.keyboard.press("+");
  const afterKeys = await page.evaluate(() => ({ step: window.herdPage.figures().step,
                                                 speed: document.getElementById("speed").value }));
  check("the keys step once (.) and raise the speed (+)", afterKeys.step === keyed + 1 && afterKeys.speed === "2",
        JSON.stringify({ keyed, afterKeys }));
  const png = await page.evaluate(() => window.herdPage.screenshot());
  check("the screenshot button gives the canvas as a PNG", png.startsWith("data:image/png;base64,") &&
        png.length > 10000, `${png.length} characters`);

  // A bad scenario: refused with one line naming what and where, the run before kept.
  const error = await page.evaluate(() => {
    window.herdPage.start('{"model": "strombom", "sheep": {"count": -5}}', "page.json");
    return window.herdPage.error();
  });
  check("a bad scenario gets the parser's one-line error", /sheep\.count/.test(error) && !error.includes("\n") &&
        error === expected.bad_error, `"${error}" (herd run says "${expected.bad_error}")`);
  // The levels: the open field played to its end is done in its steps, the best kept in the
  // browser's storage, shown again after a reload.
  const played = await page.evaluate(async () => {
    document.getElementById("seed").value = 1;
    await window.herdPage.playLevel(0);
    const steps = window.herdPage.runToEnd();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return { steps, status: window.herdPage.levelStatus(),
             best: localStorage.getItem("herd.level.strombom2014.json.waypoints.best") };
  });
  await page.reload();
  await page.waitForFunction(() => window.herdPage !== undefined, null, { timeout: 60000 });
  const shown = await page.locator("#levels li").first().textContent();
  check("a level played to its end keeps its steps as the best, across a reload",
        played.status.startsWith(`level 1 done in ${played.steps} steps (best ${played.steps})`) &&
        played.best === String(played.steps) && shown.includes(`best ${played.steps} steps`),
        JSON.stringify({ played, shown }));

  // A phone-sized window: the page fits its width (no sideways scrolling), the canvas too.
  const phone = await openHerd(browser, url, 390, 844);
  const fits = await phone.evaluate(() => ({ page: document.scrollingElement.scrollWidth,
                                             canvas: document.getElementById("canvas").getBoundingClientRect().width }));
  check("on a phone-sized window (390 px) nothing is wider than the screen", fits.page <= 390 && fits.canvas <= 390,
        JSON.stringify(fits));
} finally {
  await browser.close();
}
console.log(failures ? `${failures} failures` : "all passed");
process.exit(failures ? 1 : 0);
