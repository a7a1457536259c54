"""Reads a herd trajectory file back with h5py and checks it against what the run must have
written (tests/test_h5.sh runs it with /usr/bin/python3, where Debian's h5py lives).

usage: h5_check.py layout FILE.h5 CSV STEPS EVERY AGENTS DIMS SEED steering|no-steering
       h5_check.py sample FULL.h5 SAMPLE.h5 SAMPLE_AGAIN.h5 OTHER_SEED.h5 K
       h5_check.py frames FILE.h5   (prints how many frames the file holds)
Exits 1 naming the first check that failed."""
import csv
import json
import sys

import h5py
import numpy as np


def fail(what):
    print("h5_check: " + what, file=sys.stderr)
    sys.exit(1)


def expect(cond, what):
    if not cond:
        fail(what)


def csv_rows(path):
    """step -> the run's CSV row as a dict (comment lines skipped)."""
    with open(path, newline="") as f:
        return {int(r["step"]): r for r in csv.DictReader(line for line in f if not line.startswith("#"))}


def csv_vector(row, prefix, dims):
    return np.array([float(row["%s_%s_m" % (prefix, a)]) for a in "xyz"[:dims]])


def check_series(f, rows, steps, dims, steering):
    """/observation, /order and /steering: a row every step (the defaults), equal to the CSV's."""
    expect(list(f["observation/steps"][:]) == list(range(steps + 1)), "/observation/steps")
    expect(list(f["order/steps"][:]) == list(range(steps + 1)), "/order/steps")
    check_dataset(f["observation/centroid"], (steps + 1, dims), "float64")
    for i, step in enumerate(f["observation/steps"][:]):
        row = rows[int(step)]
        expect(np.allclose(f["observation/centroid"][i], csv_vector(row, "centroid", dims), rtol=1e-8, atol=0),
               "/observation/centroid at step %d differs from the CSV" % step)
        expect(int(f["observation/farthest_id"][i]) == int(row["farthest_id"]), "/observation/farthest_id at %d" % step)
        expect(abs(f["order/polarisation"][i] - float(row["polarisation"])) <= 1e-6, "/order/polarisation at %d" % step)
        if steering:
            expect(np.allclose(f["steering/positions"][i, 0], csv_vector(row, "dog0", dims), rtol=1e-7, atol=0),
                   "/steering/positions at step %d differs from the CSV's dog0" % step)
    expect(("steering" in f) == steering, "/steering %s" % ("missing" if steering else "without steering agents"))


def check_dataset(d, shape, dtype):
    expect(d.shape == shape, "%s: shape %s, expected %s" % (d.name, d.shape, shape))
    expect(d.dtype == np.dtype(dtype), "%s: dtype %s, expected %s" % (d.name, d.dtype, dtype))


def check_stream(d, frames_per_chunk):
    """Chunked (at most frames_per_chunk frames a chunk), shuffled and deflated, extendible along frames."""
    expect(d.chunks is not None and d.chunks[0] <= frames_per_chunk, "%s: chunks %s" % (d.name, d.chunks))
    expect(d.compression == "gzip", "%s: not deflate-compressed" % d.name)
    expect(d.shuffle, "%s: no shuffle filter" % d.name)
    expect(d.maxshape[0] is None, "%s: not extendible along frames" % d.name)


def check_attributes(f, seed):
    herd = json.loads(f.attrs["herd"])
    expect(herd.get("version") and herd.get("commit"), "attribute herd lacks version or commit: %s" % herd)
    expect(int(f.attrs["seed"]) == seed, "attribute seed %s, expected %d" % (f.attrs["seed"], seed))
    scenario = json.loads(f.attrs["scenario"])
    expect(scenario.get("seed") == seed, "the scenario attribute's seed is %s" % scenario.get("seed"))
    for name in ("command", "date", "compiler"):
        expect(isinstance(f.attrs.get(name), str) and f.attrs[name], "attribute %s missing or not a string" % name)
    expect("name" in json.loads(f.attrs["backend"]), "attribute backend lacks a name")


def layout(path, csv_path, steps, every, agents, dims, seed, steering):
    with h5py.File(path, "r") as f:
        frames = steps // every + 1
        check_dataset(f["positions"], (frames, agents, dims), "float32")
        check_dataset(f["headings"], (frames, agents, dims), "float32")
        check_dataset(f["steps"], (frames,), "uint32")
        check_dataset(f["ids"], (agents,), "uint32")
        for name in ("positions", "headings"):
            check_stream(f[name], 4)
        check_stream(f["steps"], 4096)
        expect(list(f["steps"][:]) == list(range(0, steps + 1, every)), "steps %s" % list(f["steps"][:]))
        expect(list(f["ids"][:]) == list(range(agents)), "ids are not 0..%d" % (agents - 1))
        check_attributes(f, seed)
        norms = np.linalg.norm(f["headings"][:], axis=2)
        expect(np.allclose(norms, 1.0, atol=1e-5), "headings are not unit vectors")
        rows = csv_rows(csv_path)
        for frame, step in enumerate(f["steps"][:]):
            mean = f["positions"][frame].astype(np.float64).mean(axis=0)
            expect(int(step) in rows, "step %d has no CSV row" % step)
            centroid = csv_vector(rows[int(step)], "centroid", dims)
            expect(np.allclose(mean, centroid, rtol=0, atol=1e-3),
                   "frame %d (step %d): mean position %s, CSV centroid %s" % (frame, step, mean, centroid))
            # One agent by id, against the CSV: the farthest agent's position (id order matters here,
            # which the mean does not see).
            far = int(rows[int(step)]["farthest_id"])
            expect(np.array_equal(f["positions"][frame, far], csv_vector(rows[int(step)], "farthest", dims).astype(np.float32)),
                   "frame %d: /positions of agent %d differ from the CSV's farthest agent" % (frame, far))
        check_series(f, rows, steps, dims, steering)


def sample(full_path, sample_path, again_path, other_path, k):
    with h5py.File(full_path, "r") as full, h5py.File(sample_path, "r") as s, h5py.File(again_path, "r") as again, \
            h5py.File(other_path, "r") as other:
        ids = s["ids"][:]
        expect(len(ids) == k and len(set(ids)) == k, "sample: %d ids, %d distinct, expected %d" % (len(ids), len(set(ids)), k))
        expect(np.all(np.diff(ids.astype(np.int64)) > 0), "sample: ids not ascending")
        expect(ids.max() < full["ids"].shape[0], "sample: an id beyond the flock")
        expect(np.array_equal(ids, again["ids"][:]), "sample: the same seed drew other ids")
        expect(not np.array_equal(ids, other["ids"][:]), "sample: another seed drew the same ids")
        expect(np.array_equal(s["positions"][:], full["positions"][:, ids, :]),
               "sample: positions differ from the full file's rows of those ids")
        expect(np.array_equal(s["headings"][:], full["headings"][:, ids, :]),
               "sample: headings differ from the full file's rows of those ids")


def main(argv):
    if argv[1] == "layout":
        layout(argv[2], argv[3], *[int(x) for x in argv[4:9]], steering=argv[9] == "steering")
    elif argv[1] == "sample":
        sample(*argv[2:6], int(argv[6]))
    elif argv[1] == "frames":
        with h5py.File(argv[2], "r") as f:
            print(f["positions"].shape[0])
    else:
        fail("unknown check " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
