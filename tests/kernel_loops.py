#!/usr/bin/env python3
"""test_kernel_loops: no kernel does work in proportion to the grid's hash table.

The table has a bucket for every 2 to 4 agents whatever the flock's extent, but a dense box's
queries read only its cells (kernels/grid.h, herd_grid_buckets_read): a loop over the table, or
a work-item that walks from one occupied bucket to the next (the gaps between them have any
length), costs in proportion to the table, on one work-item. This check reads every function of
kernels/*.cl and kernels/*.h and fails on a loop whose condition or step depends on a
table-sized quantity: a name in TABLE, or a local variable assigned (directly or through other
locals) from one. A grid-stride loop (get_global_size) is one too: its trip count is the data's
size over the launch's, which a launch sized by N does not bound.

A loop that is table-sized on purpose says so with a comment holding "table-sized:" and the
reason, on its line or the line before; the check lists them.

The host side: a launch whose work-items are counted by the whole table (b->buckets) must say
so the same way (a batch lays its worlds' tables end to end and may).

--plant runs the check on copies of the kernels with two faults planted in herd_ranges (a clear
of every bucket by a grid-stride loop, and the walk to the next occupied bucket), each of which
must be found: the check is shown able to fail. Exit 0 when clean, 1 on a finding, 2 on bad
arguments."""

import argparse
import os
import re
import shutil
import sys
import tempfile

TABLE = {"buckets", "table_mask", "herd_grid_buckets_read", "get_global_size", "bucket_base"}
MARK = "table-sized:"
IDENT = re.compile(r"[A-Za-z_]\w*")


def strip_comments(text):
    """The text with comments blanked (newlines kept, so line numbers hold), and the lines
    that carried the MARK."""
    marked = set()
    out = []
    i = 0
    line = 1
    while i < len(text):
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = len(text) if j < 0 else j + 2
            chunk = text[i:j]
            if MARK in chunk:
                marked.add(line + chunk.count("\n"))
            out.append(re.sub(r"[^\n]", " ", chunk))
            line += chunk.count("\n")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = len(text) if j < 0 else j
            if MARK in text[i:j]:
                marked.add(line)
            out.append(" " * (j - i))
            i = j
        else:
            if text[i] == "\n":
                line += 1
            out.append(text[i])
            i += 1
    return "".join(out), marked


def matching(text, i, open_ch, close_ch):
    """The index just past the bracket that closes the one at i."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def functions(code):
    """(name, body start, body end) of each function definition at file level."""
    out = []
    depth = 0
    i = 0
    head = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
    while i < len(code):
        c = code[i]
        if c == "{":
            if depth == 0:
                # the function's name: the last identifier followed by "(" before this brace,
                # at the outermost parenthesis level of the text since the previous ; or }
                start = max(code.rfind(";", 0, i), code.rfind("}", 0, i), code.rfind("#", 0, i)) + 1
                names = [m.group(1) for m in head.finditer(code, start, i)]
                name = next((n for n in names if n not in ("__attribute__", "reqd_work_group_size")), "?")
                end = matching(code, i, "{", "}")
                out.append((name, i, end))
                i = end
                continue
            depth += 1
        elif c == "}":
            depth -= 1
        i += 1
    return out


def assignments(body):
    """name -> the expressions assigned to it in the body (declarations and plain '=')."""
    out = {}
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*(?:[-+*/|&]?=)(?!=)", body):
        name = m.group(1)
        j = m.end()
        depth = 0
        k = j
        while k < len(body):
            ch = body[k]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif ch in ",;" and depth == 0:
                break
            k += 1
        out.setdefault(name, []).append(body[j:k])
    return out


def tainted_names(body):
    assigned = assignments(body)
    tainted = set(TABLE)
    changed = True
    while changed:
        changed = False
        for name, exprs in assigned.items():
            if name in tainted:
                continue
            if any(set(IDENT.findall(e)) & tainted for e in exprs):
                tainted.add(name)
                changed = True
    return tainted


def loops(body):
    """(offset, control text) of each for/while loop: a for's condition and step, a while's
    condition."""
    for m in re.finditer(r"\b(for|while)\s*\(", body):
        end = matching(body, m.end() - 1, "(", ")")
        inside = body[m.end():end - 1]
        if m.group(1) == "for":
            parts = inside.split(";")
            control = ";".join(parts[1:]) if len(parts) >= 3 else inside
        else:
            control = inside
        yield m.start(), control


def check_kernel_file(path, shown):
    text = open(path, encoding="utf-8").read()
    code, marked = strip_comments(text)
    findings, allowed = [], []
    for name, begin, end in functions(code):
        body = code[begin:end]
        tainted = tainted_names(body)
        for offset, control in loops(body):
            hit = sorted(set(IDENT.findall(control)) & tainted)
            if not hit:
                continue
            line = code.count("\n", 0, begin + offset) + 1
            where = f"{shown}:{line}: {name}"
            if line in marked or line - 1 in marked:
                allowed.append(f"{where} (marked table-sized)")
            else:
                findings.append(f"{where}: a loop bounded by the table ({', '.join(hit)}): "
                                f"{' '.join(control.split())}")
    return findings, allowed


def check_host_file(path, shown):
    text = open(path, encoding="utf-8").read()
    code, marked = strip_comments(text)
    findings, allowed = [], []
    for m in re.finditer(r"herd_cl_(?:run_kernel|launch)\s*\(", code):
        end = matching(code, m.end() - 1, "(", ")")
        args = code[m.end():end - 1].split(",")
        sized = ",".join(args[:4])
        if "b->buckets" not in sized:
            continue
        line = code.count("\n", 0, m.start()) + 1
        where = f"{shown}:{line}"
        if any(k in marked for k in range(line - 1, line + 2)):
            allowed.append(f"{where} (marked table-sized)")
        else:
            findings.append(f"{where}: a launch of one work-item per bucket of the whole table: "
                            f"{' '.join(code[m.start():end].split())[:160]}")
    return findings, allowed


def check(source):
    findings, allowed = [], []
    kernels = os.path.join(source, "kernels")
    for root, _, files in sorted(os.walk(kernels)):
        for f in sorted(files):
            if f.endswith((".cl", ".h")):
                path = os.path.join(root, f)
                a, b = check_kernel_file(path, os.path.relpath(path, source))
                findings += a
                allowed += b
    host = os.path.join(source, "src", "backend", "cl")
    for f in sorted(os.listdir(host)):
        if f.endswith(".c"):
            path = os.path.join(host, f)
            a, b = check_host_file(path, os.path.relpath(path, source))
            findings += a
            allowed += b
    return findings, allowed


# Each fault goes at the start of herd_ranges's body (kernels/herd.cl): both are what the
# kernels did before the ranges were sized by the box.
ANCHOR = "  uint b0 = get_global_id(0) * HERD_RANGES_RUN;\n"
PLANTS = {
    "a clear of every bucket, grid-strided":
        "  for (uint c = get_global_id(0); c < buckets; c += get_global_size(0)) cell_end[c] = 0u;\n",
    "the walk from a key to the next occupied bucket":
        "  uint at = get_global_id(0), nx = at + 1u < grid.count ? key[at + 1u] : buckets;\n"
        "  for (uint c = key[at] + 1u; c < nx; ++c) cell_end[c] = at + 1u;\n",
}


def plant(source):
    ok = True
    for what, fault in PLANTS.items():
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(source, "kernels"), os.path.join(tmp, "kernels"))
            shutil.copytree(os.path.join(source, "src", "backend", "cl"), os.path.join(tmp, "src", "backend", "cl"))
            path = os.path.join(tmp, "kernels", "herd.cl")
            text = open(path, encoding="utf-8").read()
            if ANCHOR not in text:
                print(f"plant: herd_ranges no longer starts with {ANCHOR.strip()!r}: update PLANTS")
                return False
            open(path, "w", encoding="utf-8").write(text.replace(ANCHOR, fault + ANCHOR, 1))
            found, _ = check(tmp)
            if any("herd_ranges" in f for f in found):
                print(f"plant ({what}): found, as it must be")
            else:
                print(f"plant ({what}): NOT found: the check cannot see it")
                ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="the repository's root")
    ap.add_argument("--plant", action="store_true", help="also show that planted faults are found")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.source, "kernels")):
        print(f"no kernels/ under {args.source}")
        return 2
    findings, allowed = check(args.source)
    for a in allowed:
        print("allowed:", a)
    for f in findings:
        print("FAIL:", f)
    ok = not findings
    if args.plant:
        ok = plant(args.source) and ok
    print("ok" if ok else "failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
