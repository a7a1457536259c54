"use strict";
// The page around the module (web/main.c): the scenario picker (scenarios/index.json, made by
// scripts/web.sh from the shipped scenarios), run / pause / step / speed, restart with a seed,
// the figures beside the canvas, and a scenario edited in a text box, its error in one line.
// window.herdPage is what the page does, for the tests (tests/web/test_web.mjs) as for a user.
const $ = (id) => document.getElementById(id);

async function main() {
  const herd = await createHerd({ canvas: $("canvas") });
  const call = (name, ret, types, args) => herd.ccall(name, ret, types, args);
  const scenarios = await (await fetch("scenarios/index.json")).json();
  let running = false;

  function showError(text) {
    $("error").textContent = text;
  }

  // Starts `text` (a scenario's JSON) with the seed box's seed; true when it started.
  function start(text, origin, extra = "") {
    const seed = Number.parseInt($("seed").value, 10);
    const sets = [Number.isFinite(seed) ? `seed=${seed}` : "", extra].filter((s) => s).join("\n");
    level = -1;
    const canvas = $("canvas");
    leaveWorker();
    const rc = call("herd_web_start", "number", ["string", "string", "string", "number", "number"],
                    [text, origin, sets, canvas.width, canvas.height]);
    showError(rc ? call("herd_web_error", "string", [], []) : "");
    setRunning(false);
    if (rc === 0) makeSliders();
    if (rc === 0) showViewState();
    return rc === 0;
  }

  async function startShipped(index) {
    const s = scenarios[index];
    const text = await (await fetch(`scenarios/${s.file}`)).text();
    $("text").value = text;
    showScenario(s);
    return start(text, `scenarios/${s.file}`);
  }

  // The scenario now shown: its picture (the README's, made by scripts/docs.sh) and description.
  function showScenario(s) {
    $("description").textContent = s ? s.description : "";
    $("picture").hidden = !s;
    if (s) Object.assign($("picture"), { src: s.picture, alt: `${s.name}: a picture of the scenario as herd view draws it` });
  }

  // Every shipped scenario as a card with its picture: a click starts it.
  function makeGallery() {
    $("gallery").replaceChildren(...scenarios.map((s, i) => {
      const card = document.createElement("button"), img = document.createElement("img");
      const name = document.createElement("b"), what = document.createElement("span");
      Object.assign(img, { src: s.picture, alt: "", loading: "lazy", width: 160, height: 100 });
      name.textContent = s.name;
      what.textContent = s.what;
      card.append(img, name, what);
      card.className = "card";
      card.dataset.file = s.file;
      card.addEventListener("click", () => {
        $("scenario").value = i;
        startShipped(i);
      });
      return card;
    }));
  }

  // A slider for every parameter the run may change, from 0 to four times its value now.
  let params = [], picked = -1; // P picks params[picked] for [ and ]
  function makeSliders() {
    const box = $("sliders");
    box.replaceChildren();
    params = JSON.parse(call("herd_web_params", "string", [], []));
    picked = -1;
    for (const p of params) {
      const label = document.createElement("label"), name = document.createElement("span");
      const slider = document.createElement("input"), shown = document.createElement("output");
      name.textContent = p.path;
      Object.assign(slider, { type: "range", min: 0, max: Math.max(p.whole ? 10 : 1, 4 * p.value),
                              step: p.whole ? 1 : "any", value: p.value });
      slider.dataset.path = p.path;
      shown.textContent = p.value;
      slider.addEventListener("input", () => setParam(p.path, Number(slider.value), shown));
      p.slider = slider, p.shown = shown, p.label = label;
      label.append(name, slider, shown);
      box.append(label);
    }
    showPicked();
    $("log").replaceChildren();
  }

  // herd_sim_set_param through the module, logged with the step it takes effect after.
  // While the worker steps, the change is logged once it has made it (the step it made it at).
  function setParam(path, value, shown) {
    const rc = call("herd_web_set_param", "number", ["string", "number"], [path, value]);
    if (rc || workerState === "off")
      logLine(rc ? call("herd_web_error", "string", [], []) : `step ${call("herd_web_step_index", "number", [], [])}: ${path} = ${value}`);
    if (!rc && shown) shown.textContent = value;
    return rc === 0;
  }
  function logLine(text) {
    const line = document.createElement("li");
    line.textContent = text;
    $("log").append(line);
    line.scrollIntoView({ block: "nearest" });
  }

  // The mouse or a finger on the canvas: a press on a dog or shepherd drags it (it heads for
  // the pointer while held), elsewhere it pans the view (2D) or orbits it (3D); the wheel zooms.
  function canvasPoint(event) {
    const canvas = $("canvas"), box = canvas.getBoundingClientRect();
    return [(event.clientX - box.left) * canvas.width / box.width, (event.clientY - box.top) * canvas.height / box.height];
  }
  let pressed = false;
  const pointer = (event, phase) => call("herd_web_pointer", "number", ["number", "number", "number"],
                                         [...canvasPoint(event), phase]);
  $("canvas").addEventListener("pointerdown", (e) => {
    pressed = true;
    $("canvas").setPointerCapture(e.pointerId);
    pointer(e, 0);
  });
  $("canvas").addEventListener("pointermove", (e) => pointer(e, pressed ? 1 : 3));
  for (const end of ["pointerup", "pointercancel"])
    $("canvas").addEventListener(end, (e) => { if (pressed) pointer(e, 2); pressed = false; });
  $("canvas").addEventListener("wheel", (e) => {
    e.preventDefault();
    call("herd_web_wheel", null, ["number", "number", "number"], [...canvasPoint(e), Math.sign(e.deltaY)]);
  }, { passive: false });

  // herd view's keys: Space run/pause, . one step, + / - double / halve the steps a frame, R the
  // next seed, F fit; Tab / Shift+Tab / 0-9 select a steering agent, M hand it to the pointer,
  // G groups, A routing arrows, F1-F6 overlays, L live plot (the module's herd_web_key); P pick a
  // parameter, [ / ] lower / raise it by herd view's step (through its slider); V record; H help.
  function setSpeed(n) {
    $("speed").value = Math.min(Math.max(n, 1), Number($("speed").max));
    $("speed").dispatchEvent(new Event("input"));
  }
  const say = (text) => { if (text) $("said").textContent = text; };
  function viewKey(key, shift = false) {
    say(call("herd_web_key", "string", ["string", "number"], [key, shift ? 1 : 0]));
    showViewState();
  }
  function showPicked() {
    const p = params[picked];
    for (const q of params) q.label.classList.toggle("picked", q === p);
    $("picked").textContent = p ? `param ${p.path} = ${p.slider.value}  ([ / ] -/+10 %, P next)` : "P picks a parameter";
  }
  function stepParam(direction) {
    const p = params[picked];
    if (!p) return say("press P to pick a parameter first");
    const value = call("herd_web_param_stepped", "number", ["number", "number", "number"],
                       [Number(p.slider.value), p.whole ? 1 : 0, direction]);
    if (value > Number(p.slider.max)) p.slider.max = value;
    p.slider.value = value;
    if (Number(p.slider.value) !== value) return say(`${p.path}: ${value} is outside the slider`);
    setParam(p.path, value, p.shown);
    showPicked();
  }
  document.addEventListener("keydown", (e) => {
    if (["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName) || e.ctrlKey || e.metaKey || e.altKey)
      return;
    const speed = () => Number($("speed").value);
    const actions = {
      " ": () => setRunning(!running),
      ".": stepOnce,
      "+": () => setSpeed(speed() * 2),
      "=": () => setSpeed(speed() * 2),
      "-": () => setSpeed(Math.floor(speed() / 2)),
      r: () => { $("seed").value = Number($("seed").value) + 1; start($("text").value, "the page's text"); },
      f: () => call("herd_web_fit", null, [], []),
      p: () => { picked = params.length ? (picked + 1) % params.length : -1; showPicked(); },
      "[": () => stepParam(-1),
      "]": () => stepParam(+1),
      v: () => record(),
      h: () => { $("keys").open = !$("keys").open; },
    };
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (actions[key]) actions[key]();
    else if (/^([0-9]|Tab|[mgal]|F[1-6])$/.test(key)) viewKey(key, e.shiftKey);
    else return;
    e.preventDefault();
  });

  // The view's switches as boxes too (for a phone), kept in step with the keys.
  const OVERLAYS = ["aim", "centroid", "cohesion", "reaction", "farthest", "scale"];
  function showViewState() {
    const v = JSON.parse(call("herd_web_view_state", "string", [], []));
    OVERLAYS.forEach((name, k) => { $(`overlay-${name}`).checked = (v.overlays >> k) & 1; });
    $("show-groups").checked = v.groups, $("show-route").checked = v.route, $("show-plot").checked = v.plot;
    return v;
  }
  OVERLAYS.forEach((name, k) => {
    const box = Object.assign(document.createElement("input"), { type: "checkbox", id: `overlay-${name}` });
    const label = document.createElement("label");
    box.addEventListener("change", () => viewKey(`F${k + 1}`));
    label.append(box, ` F${k + 1} ${name}`);
    $("switches").append(label);
  });
  for (const [id, key] of [["show-groups", "g"], ["show-route", "a"], ["show-plot", "l"]])
    $(id).addEventListener("change", () => viewKey(key));

  // V: the canvas recorded to a WebM file (the browser's MediaRecorder), again to stop and keep it.
  let recorder = null;
  function record() {
    if (recorder) return recorder.stop();
    if (typeof MediaRecorder === "undefined") return say("this browser cannot record video");
    const chunks = [], started = new Date();
    recorder = new MediaRecorder($("canvas").captureStream(30), { mimeType: "video/webm" });
    recorder.ondataavailable = (e) => chunks.push(e.data);
    recorder.onstop = () => {
      const video = new Blob(chunks, { type: "video/webm" });
      const name = `herd-${started.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}.webm`;
      const link = Object.assign(document.createElement("a"), { href: URL.createObjectURL(video), download: name });
      link.click();
      say(`recorded ${name} (${Math.round(video.size / 1024)} KiB)`);
      $("record").textContent = "record";
      recorder = null;
      lastVideo = video;
    };
    recorder.start(250);
    $("record").textContent = "stop recording";
    say("recording the canvas (V or the button again stops and keeps it)");
  }
  let lastVideo = null;
  $("record").addEventListener("click", record);

  // A picture of the canvas as a PNG download, drawn afresh so the buffer holds it.
  function screenshot() {
    call("herd_web_draw", null, [], []);
    const url = $("canvas").toDataURL("image/png");
    const link = Object.assign(document.createElement("a"), { href: url, download: `herd-step-${call("herd_web_step_index", "number", [], [])}.png` });
    link.click();
    return url;
  }
  $("screenshot").addEventListener("click", screenshot);

  // A scenario file dropped on the page is started as it is (its error in one line if refused).
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", async (e) => {
    e.preventDefault();
    const file = e.dataTransfer.files[0];
    if (!file) return;
    const text = await file.text();
    $("text").value = text;
    showScenario(null);
    $("description").textContent = file.name;
    start(text, file.name);
  });

  // Run / pause. Running, the page steps the simulation each frame before drawing it, until a
  // frame's steps take more than HAND_OVER_MS and more than the rest of the frame (the drawing,
  // the browser's work, the wait for the display): from then on (until paused) they run in a Web
  // Worker (web/worker.js: the same module) and the page draws each state it sends back, so the
  // page answers input and draws at its own rate however long a step takes. Where the rest of
  // the frame takes most of it the page keeps the steps, which a worker would hardly speed (the
  // means over the simulation's frames, judged once they make a second; a drawing done in
  // another process, as SwiftShader's, is not seen in them).
  // Paused, the page holds the simulation. ?worker=1 in the address hands every run to the
  // worker, ?worker=0 none (nor where no Worker can start).
  const HAND_OVER_MS = 8; // half a frame at 60 Hz
  const workerChoice = new URLSearchParams(location.search).get("worker"); // "0", "1" or auto
  function setRunning(on) {
    running = on;
    $("run").textContent = on ? "pause" : "run";
    call("herd_web_pause", null, ["number"], [on && workerState === "off" ? 0 : 1]);
    if (on && workerState === "off" && worker && workerChoice === "1") handOver();
    if (!on && workerState === "stepping") {
      workerState = "stopping";
      worker.postMessage({ type: "stop", epoch });
    }
  }

  const CHECKPOINT = "/tmp/herd.ckpt";
  let worker = null;
  try {
    if (workerChoice !== "0") worker = new Worker("worker.js");
  } catch (e) { // no Worker (an old browser, a page opened as a file): the page steps the simulation
    worker = null;
  }
  // A worker that cannot load or breaks: the page steps on from the last state it sent.
  if (worker) worker.onerror = (e) => {
    e.preventDefault();
    worker = null;
    leaveWorker();
    say("the simulation's worker failed to start or stopped; the page steps the simulation itself");
    setRunning(running);
  };
  // off: the page holds the simulation; stepping: the worker does; stopping: the worker is
  // sending its last state. `epoch` counts the simulations handed over (a state from a
  // simulation the page has left since is dropped); `asked`: steps asked for, not yet come.
  let workerState = "off", epoch = 0, asked = false, stepsWhileStopping = 0;
  herd.forward = (op, text, a, b, c, d) => {
    if (workerState !== "off") worker.postMessage({ type: "op", epoch, op, text, a, b, c, d });
  };
  function handOver() {
    if (call("herd_web_outcome", "string", [], []) !== "running") return;
    if (call("herd_web_checkpoint", "number", [], [])) return showError(call("herd_web_error", "string", [], []));
    const bytes = herd.FS.readFile(CHECKPOINT);
    epoch += 1, workerState = "stepping", asked = false, owed = 0;
    worker.postMessage({ type: "run", epoch, bytes, handover: call("herd_web_handover", "string", [], []) },
                       [bytes.buffer]);
  }
  function leaveWorker() {
    epoch += 1, workerState = "off", asked = false, stepsWhileStopping = 0, owed = 0;
  }
  // Each frame, before the page's own step: a run whose last frame's steps took too long moves
  // to the worker; while the worker steps, the frame's steps (the speed) are owed and asked for
  // once the last asked for have come, so that the worker steps at the page's rate, or as fast
  // as it can when that is slower (what is owed stops growing at four frames' worth).
  let owed = 0;
  // Whether the page's frames spend enough on their steps that the worker should take them.
  function stepsHoldFramesUp() {
    const [stepMs, frameMs, timed] = call("herd_web_frame_times", "string", [], []).split(" ").map(Number);
    const settled = timed >= 2 && timed * frameMs >= 1000; // a second of frames: the first come faster
    return settled && stepMs > HAND_OVER_MS && stepMs > frameMs - stepMs;
  }
  herd.onFrame = () => {
    if (running && workerState === "off" && worker && stepsHoldFramesUp()) {
      call("herd_web_pause", null, ["number"], [1]);
      handOver();
    }
    if (workerState !== "stepping" || call("herd_web_outcome", "string", [], []) !== "running") return;
    const speed = Number($("speed").value);
    owed = Math.min(owed + speed, 4 * speed);
    if (asked) return;
    asked = true;
    worker.postMessage({ type: "steps", epoch, steps: owed });
    owed = 0;
  };
  if (worker) worker.onmessage = ({ data }) => {
    if (data.epoch !== epoch) return;
    if (data.type === "error") {
      leaveWorker();
      setRunning(false);
      return showError(`the worker stopped: ${data.error}`);
    }
    herd.FS.writeFile(CHECKPOINT, data.bytes);
    const last = data.type === "stopped";
    if (call("herd_web_show", "number", ["number", "string", "string"], [last ? 1 : 0, data.terms, data.plot]))
      showError(call("herd_web_error", "string", [], []));
    for (const a of data.applied) logLine(a.error || `step ${a.step}: ${a.path} = ${a.value}`);
    asked = false;
    if (!last) return;
    workerState = "off";
    if (running) return setRunning(true); // run again: on the page until its frames slow again

    if (stepsWhileStopping) call("herd_web_step", "number", ["number"], [stepsWhileStopping]);
    stepsWhileStopping = 0;
  };
  // One step now (., the step button): after the worker's last state when it is stopping.
  function stepOnce() {
    setRunning(false);
    if (workerState === "off") call("herd_web_step", "number", ["number"], [1]);
    else stepsWhileStopping += 1;
  }

  // The HUD's figures ("name value" lines, herd_web_figures's unless given) as an object.
  function figures(text = call("herd_web_figures", "string", [], [])) {
    const lines = text.split("\n").filter((l) => l);
    return Object.fromEntries(lines.map((l) => {
      const [key, value] = l.split(" ");
      return [key, Number.isNaN(Number(value)) ? value : Number(value)];
    }));
  }

  // Steps to the run's end in chunks (the test's way to compare with herd run): the steps.
  function runToEnd(chunk = 500) {
    while (call("herd_web_outcome", "string", [], []) === "running")
      if (call("herd_web_step", "number", ["number"], [chunk]) < 0) break;
    return call("herd_web_step_index", "number", [], []);
  }

  // The seed app's levels, in order: the steps a level took, and the best (fewest) kept in the
  // browser's storage, per level and per dog (with or without the waypoints).
  const LEVELS = [["open field", "strombom2014.json"], ["pen with a gate", "pen-with-gate.json"],
                  ["river with a bridge", "river-with-bridge.json"], ["farm", "farm.json"]];
  let level = -1, levelDone = false;
  const bestKey = (i) => `herd.level.${LEVELS[i][1]}.${$("published").checked ? "published" : "waypoints"}.best`;
  function showLevels() {
    $("levels").replaceChildren(...LEVELS.map(([name], i) => {
      const li = document.createElement("li"), play = document.createElement("button");
      const best = localStorage.getItem(bestKey(i)), score = document.createElement("span");
      play.textContent = `play ${name}`;
      play.addEventListener("click", () => playLevel(i));
      score.className = "best";
      score.textContent = best ? `best ${best} steps` : "";
      li.append(play, score);
      return li;
    }));
  }
  async function playLevel(i) {
    const file = LEVELS[i][1], text = await (await fetch(`scenarios/${file}`)).text();
    $("text").value = text;
    $("scenario").value = scenarios.findIndex((s) => s.file === file);
    showScenario(scenarios[$("scenario").value]);
    const sets = $("published").checked ? "dogs.rules=published" : "";
    if (!start(text, `scenarios/${file}`, sets)) return false;
    level = i, levelDone = false;
    $("level-status").textContent = `level ${i + 1}: ${LEVELS[i][0]}: herd the flock home (drag the dog, or let it work)`;
    return true;
  }
  // Called each frame with the figures: a level's flock delivered ends it, with its steps and the best kept.
  function checkLevel(f) {
    if (level < 0 || levelDone) return;
    if (f.outcome === "running") return;
    levelDone = true;
    const best = Number(localStorage.getItem(bestKey(level))) || Infinity;
    if (f.outcome === "succeeded" && f.step < best) localStorage.setItem(bestKey(level), f.step);
    $("level-status").textContent = f.outcome === "succeeded"
      ? `level ${level + 1} done in ${f.step} steps (best ${Math.min(best, f.step)})` +
        (level + 1 < LEVELS.length ? `; next: ${LEVELS[level + 1][0]}` : "; all levels done")
      : `level ${level + 1}: out of steps (${f.step}); try again`;
    showLevels();
  }
  $("published").addEventListener("change", showLevels);
  showLevels();

  for (const [i, s] of scenarios.entries()) $("scenario").add(new Option(s.name, i));
  makeGallery();
  $("scenario").addEventListener("change", () => startShipped($("scenario").value));
  $("restart").addEventListener("click", () => start($("text").value, "the page's text"));
  $("start-text").addEventListener("click", () => start($("text").value, "the page's text"));
  $("run").addEventListener("click", () => setRunning(!running));
  $("step").addEventListener("click", stepOnce);
  $("speed").addEventListener("input", () => {
    $("speed-value").textContent = $("speed").value;
    call("herd_web_speed", null, ["number"], [Number($("speed").value)]);
  });
  const refresh = () => {
    const text = call("herd_web_figures", "string", [], []); // reads the flock's flags: once a frame
    $("figures").textContent = text;
    $("details").textContent = call("herd_web_details", "string", [], []);
    checkLevel(figures(text));
    requestAnimationFrame(refresh);
  };
  requestAnimationFrame(refresh);

  const first = Math.max(0, scenarios.findIndex((s) => s.file === "strombom2014.json"));
  $("scenario").value = first;
  await startShipped(first);
  const step = (n) => call("herd_web_step", "number", ["number"], [n]);
  const dog = () => call("herd_web_dog", "string", [], []).split(" ").map(Number);
  window.herdPage = { start, startShipped, setRunning, figures, runToEnd, scenarios, step, dog,
                      slide: (path, value) => {
                        const slider = document.querySelector(`#sliders input[data-path="${path}"]`);
                        slider.value = value;
                        slider.dispatchEvent(new Event("input"));
                        return slider.value;
                      },
                      toPixel: (x, y, z = 0) => call("herd_web_to_pixel", "string", ["number", "number", "number"], [x, y, z])
                        .split(" ").map(Number),
                      // Frames drawn and steps taken in `seconds` of running (bench/web-fps.sh).
                      measure: (seconds) => new Promise((done) => {
                        const count = () => ({ frames: call("herd_web_frames", "number", [], []),
                                               steps: call("herd_web_step_index", "number", [], []) });
                        const from = count(), t0 = performance.now();
                        setRunning(true);
                        setTimeout(() => {
                          setRunning(false);
                          const to = count();
                          done({ frames: to.frames - from.frames, steps: to.steps - from.steps,
                                 seconds: (performance.now() - t0) / 1000 });
                        }, seconds * 1000);
                      }),
                      frames: () => call("herd_web_frames", "number", [], []),
                      stepping: () => (worker ? workerState : "no worker"), setSpeed,
                      screenshot, playLevel, showViewState, video: () => lastVideo,
                      details: () => call("herd_web_details", "string", [], []), said: () => $("said").textContent,
                      inspect: (id) => call("herd_web_inspect", "number", ["number"], [id]),
                      inspected: () => call("herd_web_inspected", "number", [], []),
                      agents: (max = 0) => JSON.parse(call("herd_web_agents", "string", ["number"], [max])), levelStatus: () => $("level-status").textContent, pointer: (x, y, phase) =>
                        call("herd_web_pointer", "number", ["number", "number", "number"], [x, y, phase]),
                      log: () => [...document.querySelectorAll("#log li")].map((li) => li.textContent),
                      error: () => $("error").textContent,
                      colors: () => call("herd_web_colors", "string", [], []) };
}

main().catch((e) => {
  $("error").textContent = `herd could not start: ${e}`;
});
