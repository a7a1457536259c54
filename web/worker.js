"use strict";
// The simulation in a Web Worker while the page runs (web/page.js hands it over): the same
// module as the page's, without a canvas. It takes the state as a checkpoint, makes the page's
// changes (herd_web_steer, _release, _hand, _set_param, _key, _inspect: the functions the page
// called, forwarded) in the order they came, steps as many steps as the page asks at a time,
// and sends each state back as a checkpoint with the live plot's values and the inspected
// agent's terms. The page draws while it steps.
importScripts("herd.js");
const CHECKPOINT = "/tmp/herd.ckpt";
let herd = null, epoch = -1, applied = [];
const ready = createHerd({ noInitialRun: true }).then((module) => { herd = module; });
const call = (name, ret, types, args) => herd.ccall(name, ret, types, args);

// The state now, to the page: `type` "state" (it steps on) or "stopped" (the page takes over).
function send(type) {
  if (call("herd_web_checkpoint", "number", [], [])) return failed();
  const bytes = herd.FS.readFile(CHECKPOINT);
  postMessage({ type, epoch, bytes, plot: call("herd_web_take_plot", "string", [], []),
                terms: call("herd_web_terms", "string", [], []), applied }, [bytes.buffer]);
  applied = [];
}
function failed() {
  postMessage({ type: "error", epoch, error: call("herd_web_error", "string", [], []) });
}

const ops = {
  steer: (o) => call("herd_web_steer", "number", ["number", "number", "number", "number"], [o.a, o.b, o.c, o.d]),
  release: (o) => call("herd_web_release", "number", ["number"], [o.a]),
  hand: (o) => call("herd_web_hand", null, ["number", "number", "number"], [o.a, o.b, o.c]),
  key: (o) => call("herd_web_key", "string", ["string", "number"], [o.text, o.a]),
  explain: (o) => call("herd_web_inspect", "number", ["number"], [o.a]),
  // A parameter's change, with the step it takes effect after (for the page's log).
  param: (o) => {
    const rc = call("herd_web_set_param", "number", ["string", "number"], [o.text, o.a]);
    applied.push({ path: o.text, value: o.a, step: call("herd_web_step_index", "number", [], []),
                   error: rc ? call("herd_web_error", "string", [], []) : "" });
  },
};

onmessage = async ({ data }) => {
  await ready;
  if (data.type === "run") {
    epoch = data.epoch;
    herd.FS.writeFile(CHECKPOINT, data.bytes);
    const [selected, manual, handSet, x, y, z, inspected] = data.handover.split(" ").map(Number);
    if (call("herd_web_take_over", "number", Array(7).fill("number"), [selected, manual, handSet, x, y, z, inspected]))
      failed();
    return;
  }
  if (data.epoch !== epoch) return; // a simulation the page has left
  if (data.type === "op") ops[data.op](data);
  if (data.type === "steps") {
    if (call("herd_web_step", "number", ["number"], [data.steps]) < 0) return failed();
    send("state");
  }
  if (data.type === "stop") send("stopped");
};
