#!/usr/bin/env bash
# herd view as a user runs it, under a (virtual) display: --screenshot writes a PNG of the
# size asked, never replaces a file without --force, and option errors exit 2.
#   bash tests/test_view_cli.sh PATH_TO_HERD   (ctest runs it on a private Xvfb: tests/with_xvfb.sh)
set -u
HERD=${1:?usage: bash tests/test_view_cli.sh PATH_TO_HERD}
[ -n "${DISPLAY:-}" ] || { echo "no display: skipped"; exit 77; }
source "$(dirname "$0")/check.sh"
# WxH from a PNG's header (signature, then the IHDR chunk's big-endian width and height).
png_size() {
  is_png "$1" || { echo not-png; return; }
  od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d\n", (($1 * 256 + $2) * 256 + $3) * 256 + $4, (($5 * 256 + $6) * 256 + $7) * 256 + $8 }'
}

run view --screenshot "$tmp/a.png" --size 320x200 --steps 10
check "--screenshot exits 0" [ "$rc" -eq 0 ]
check "--screenshot writes a PNG of the size asked" [ "$(png_size "$tmp/a.png")" = 320x200 ]
check "--screenshot says what it wrote" grep -q "step 10" "$tmp/out"
cp "$tmp/a.png" "$tmp/a.copy"
run view --screenshot "$tmp/a.png" --size 320x200 --steps 20
check "--screenshot refuses to replace a file" [ "$rc" -eq 2 ]
check "... and leaves it as it was" cmp -s "$tmp/a.png" "$tmp/a.copy"
run view --screenshot "$tmp/a.png" --size 320x200 --steps 20 --force
check "--force replaces it" [ "$rc" -eq 0 ]
check "... with another picture" differs "$tmp/a.png" "$tmp/a.copy"
# A failed write never touches the file it would have replaced.
cp "$tmp/a.png" "$tmp/a.copy"
(trap '' XFSZ && ulimit -f 1 && exec "$HERD" view --screenshot "$tmp/a.png" --size 640x400 --steps 3 --force) >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a screenshot that cannot be written fails (exit 1)" [ "$rc" -eq 1 ]
check "... saying the write failed" grep -q "write failed" "$tmp/err"
check "... leaving the old picture as it was" cmp -s "$tmp/a.png" "$tmp/a.copy"
check "... and no temporary file" eval '! compgen -G "$tmp/a.png.part-*" >/dev/null'
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/full" c 1 7 2>/dev/null; then
  run view --screenshot "$tmp/full" --steps 1 --force
  check "a screenshot onto a copy of /dev/full fails" [ "$rc" -ne 0 ]
  check "... and the device node is still there" [ -c "$tmp/full" ]
fi

# A 3D world: the orbit camera, fitted to the world box and the flock.
run view --screenshot "$tmp/3d.png" --size 320x200 --steps 10 --hud --set model=boids --set 'world.size_m=[640,480,480]'
check "a 3D --screenshot exits 0" [ "$rc" -eq 0 ]
check "... writes a PNG of the size asked" [ "$(png_size "$tmp/3d.png")" = 320x200 ]
check "... and says where the camera was" grep -q "step 10, camera yaw -60.0 deg, pitch 25.0 deg" "$tmp/out"
run view --screenshot "$tmp/3d-again.png" --size 320x200 --steps 10 --hud --set model=boids --set 'world.size_m=[640,480,480]'
check "... the same picture again (the camera depends only on the sim)" cmp -s "$tmp/3d.png" "$tmp/3d-again.png"

run view --screenshot "$tmp/b.png" --steps 5 --hud
check "--hud draws the HUD into the picture" [ "$rc" -eq 0 ]
# Shepherds and groups: the group colours, circles, steering points and the HUD's per-agent lines.
run view scenarios/lien-farm.json --screenshot "$tmp/lien.png" --size 320x200 --steps 10 --hud
check "a screenshot of Lien's shepherds and their groups exits 0" [ "$rc" -eq 0 ]
check "... and writes a PNG of the size asked" [ "$(png_size "$tmp/lien.png")" = 320x200 ]
run view --size 10x10 --screenshot "$tmp/c.png"
check "--size too small exits 2" [ "$rc" -eq 2 ]
run view --screenshot "$tmp/no/such/dir/d.png"
check "an unwritable --screenshot exits 2" [ "$rc" -eq 2 ]
run view --bogus
check "an unknown view option exits 2" [ "$rc" -eq 2 ]
# --steps 0: a picture of the first state (the step limit could not be 0), not of step 1.
run view --screenshot "$tmp/zero.png" --size 320x200 --steps 0
check "--steps 0 --screenshot exits 0 at step 0" eval '[ "$rc" -eq 0 ] && is_png "$tmp/zero.png" && grep -q "step 0," "$tmp/out"'
run view --screenshot "$tmp/one.png" --size 320x200 -s1
check "... and differs from the picture after one step" eval '[ "$rc" -eq 0 ] && differs "$tmp/zero.png" "$tmp/one.png"'
run view --screenshot "$tmp/again.png" --size=320x200 -s 0
check "... and is the same picture each time" eval '[ "$rc" -eq 0 ] && cmp -s "$tmp/zero.png" "$tmp/again.png"'
run view -q --screenshot "$tmp/quiet.png" --size 320x200 -s 0
check "view -q writes the picture and prints nothing" eval '[ "$rc" -eq 0 ] && is_png "$tmp/quiet.png" && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]'

# Parameter edits (issue 16, params): --log-edits FILE is a CSV of the edits, kept at exit.
run view --frames 3 --size 320x200 --log-edits "$tmp/edits.csv"
check "--log-edits exits 0" [ "$rc" -eq 0 ]
check "... and writes the log's header" [ "$(cat "$tmp/edits.csv")" = "step,path,old,new" ]
run view --frames 3 --size 320x200 --log-edits "$tmp/edits.csv"
check "--log-edits refuses to replace a file (exit 2)" [ "$rc" -eq 2 ]
run view --screenshot "$tmp/e.png" --log-edits "$tmp/e.csv"
check "--log-edits with --screenshot exits 2" [ "$rc" -eq 2 ]
check "... writing neither" eval '[ ! -e "$tmp/e.png" ] && [ ! -e "$tmp/e.csv" ]'
# The keys themselves, where xdotool can press them: P twice picks the second live field of
# Strömbom's sheep (sheep.speed_m_per_step), ] ] [ change it by 10 % each (as floats, 1.1 and 1.21
# print as 1.10000002 and 1.21000004); stderr and the log agree.
if command -v xdotool >/dev/null; then
  "$HERD" view --size 400x300 --log-edits "$tmp/keys.csv" >"$tmp/out" 2>"$tmp/err" &
  viewer=$!
  (sleep 600 && kill "$viewer") >/dev/null 2>&1 & # a watchdog, should Escape never arrive
  watchdog=$!
  # The window is titled "herd: step ..." by the frame loop, after the key handler is set: a
  # key pressed before that (while the window opens) could be lost, one pressed after is not.
  viewer_window() {
    window=$(xdotool search --all --onlyvisible --pid "$viewer" --name '^herd: step' 2>/dev/null | head -1)
    [ -n "$window" ]
  }
  if wait_for "$viewer" "viewer window titled \"herd: step\"" viewer_window; then
    xdotool mousemove --window "$window" 50 50 2>/dev/null
    xdotool windowfocus --sync "$window" 2>/dev/null
    xdotool key --delay 150 p p bracketright bracketright bracketleft l
    # Escape once the three edits are on stderr (each key is handled in order anyway).
    wait_for "$viewer" "three edits on stderr" eval '[ "$(grep -c "sheep.speed_m_per_step .* -> " "$tmp/err")" -ge 3 ]' &&
      xdotool key Escape
  fi
  wait "$viewer"
  rc=$?
  pkill -P "$watchdog" sleep 2>/dev/null; kill "$watchdog" 2>/dev/null
  check "the viewer with key presses exits 0" [ "$rc" -eq 0 ]
  check "... logging three edits of sheep.speed_m_per_step, 1 -> 1.1 -> 1.21 -> 1.1" \
    [ "$(cut -d, -f2- "$tmp/keys.csv" | tr '\n' ' ')" = "path,old,new sheep.speed_m_per_step,1,1.10000002 sheep.speed_m_per_step,1.10000002,1.21000004 sheep.speed_m_per_step,1.21000004,1.10000002 " ]
  check "... each also a line on stderr" [ "$(grep -c 'sheep.speed_m_per_step .* -> ' "$tmp/err")" -eq 3 ]
fi

# Overlays and a fixed camera (issue 16): bad values exit 2 naming the option, nothing written.
run view --screenshot "$tmp/o.png" --size 320x200 --steps 5 --overlays centroid,bogus
check "--overlays with an unknown name exits 2" [ "$rc" -eq 2 ]
check "... naming it and what is allowed" has '"bogus"' "$tmp/err"
check "... listing the overlays" has "farthest" "$tmp/err"
check "... writing nothing" absent "$tmp/o.png"
run view --screenshot "$tmp/o.png" --size 320x200 --steps 5 --camera 10,20
check "--camera x,y without a width exits 2" [ "$rc" -eq 2 ]
check "... saying what is allowed" has "fit-field" "$tmp/err"
check "... writing nothing" absent "$tmp/o.png"
run view --screenshot "$tmp/o.png" --size 320x200 --steps 5 --camera 1,2,30 --set model=boids --set 'world.size_m=[640,480,480]'
check "--camera x,y,width_m in a 3D world exits 2" [ "$rc" -eq 2 ]
check "... saying why" has "3D" "$tmp/err"
check "... writing nothing" absent "$tmp/o.png"
run view --screenshot "$tmp/o.png" --size 320x200 --steps 5 --overlays all --camera 0,0,40
check "--overlays all --camera 0,0,40 exits 0" [ "$rc" -eq 0 ]
check "... and the camera is the one asked: 0.125 m per pixel, (0, 0) px at (-20, 12.5) m" \
  grep -q "0.1250 m per pixel, pixel (0, 0) at world (-20.000, 12.500) m" "$tmp/out"
run view --screenshot "$tmp/o3.png" --size 320x200 --steps 5 --camera fit-field --set model=boids --set 'world.size_m=[640,480,480]'
check "--camera fit-field in 3D exits 0" [ "$rc" -eq 0 ]
run view --screenshot "$tmp/i.png" --size 320x200 --steps 300 --inspect 3
check "--inspect 3 exits 0" [ "$rc" -eq 0 ]
check "... printing the agent" grep -q "^agent 3  at (" "$tmp/out"
check "... its neighbours: the model's n nearest" has "its 50 nearest" "$tmp/out"
check "... and the terms of its update in the last step" has "terms of step 299" "$tmp/out"
run view --screenshot "$tmp/i2.png" --size 320x200 --steps 3 --inspect 3 --set model=boids
check "--inspect on a model without the hook says n/a" has "terms: n/a for boids" "$tmp/out"
check "... and its neighbours are those within r_v = 40 m" grep -q "neighbours: the [0-9]* within 40.00 m" "$tmp/out"
run view --screenshot "$tmp/i3.png" --size 320x200 --steps 3 --inspect 100
check "--inspect beyond the flock exits 2" [ "$rc" -eq 2 ]
check "... naming the range" has "0 to 99" "$tmp/err"
check "... writing nothing" absent "$tmp/i3.png"
run record -o "$tmp/o.gif" --size 64x48 --steps 2 --camera nope
check "record --camera nope exits 2" [ "$rc" -eq 2 ]
check "... writing nothing" absent "$tmp/o.gif"
finish
