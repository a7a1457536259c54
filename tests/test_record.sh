#!/usr/bin/env bash
# herd record as a user runs it (under a display: ctest wraps it in tests/with_xvfb.sh):
# frame counts, size, codec and pixel format by ffprobe; changing frames; identical
# framemd5 for the same seed; a SIGINT that still leaves a playable video; and every error
# case with its message, leaving no file where none should be. Exit 77 (skipped) without a
# display or ffmpeg.
#   bash tests/test_record.sh PATH_TO_HERD
set -u
HERD=${1:?usage: bash tests/test_record.sh PATH_TO_HERD}
[ -n "${DISPLAY:-}" ] || { echo "no display: skipped"; exit 77; }
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || { echo "no ffmpeg: skipped"; exit 77; }
source "$(dirname "$0")/check.sh"
probe() { # FILE FIELD: one stream field, frames counted by decoding
  ffprobe -v error -count_frames -select_streams v:0 -show_entries "stream=$2" -of default=nw=1:nk=1 "$1"
}
md5s() { ffmpeg -v error -i "$1" -f framemd5 - | grep -v '^#'; }

# ---- Help -------------------------------------------------------------------------------------
run record --help
check "record --help exits 0 and prints its usage" eval 'is "$rc" 0 && grep -q "usage: herd record" "$tmp/out"'

# ---- A recording ----------------------------------------------------------------------------
run record -o "$tmp/a.mp4" --steps 59 --size 320x240 --seed 3
check "record exits 0" is "$rc" 0
check "60 frames for steps 0..59" is "$(probe "$tmp/a.mp4" nb_read_frames)" 60
check "width as asked" is "$(probe "$tmp/a.mp4" width)" 320
check "height as asked" is "$(probe "$tmp/a.mp4" height)" 240
check "H.264" is "$(probe "$tmp/a.mp4" codec_name)" h264
check "yuv420p" is "$(probe "$tmp/a.mp4" pix_fmt)" yuv420p
md5s "$tmp/a.mp4" >"$tmp/a.md5"
check "the first and last frames differ" differs <(head -1 "$tmp/a.md5" | awk '{print $NF}') <(tail -1 "$tmp/a.md5" | awk '{print $NF}')

run record -o "$tmp/b.mp4" --steps 59 --size 320x240 --seed 3
md5s "$tmp/b.mp4" >"$tmp/b.md5"
check "the same seed gives identical frames (framemd5)" cmp -s "$tmp/a.md5" "$tmp/b.md5"
run record -o "$tmp/c.mp4" --steps 59 --size 320x240 --seed 4
md5s "$tmp/c.mp4" >"$tmp/c.md5"
check "another seed gives other frames" differs "$tmp/a.md5" "$tmp/c.md5"

run record -o "$tmp/e.webm" --steps 20 --every 4 --size 160x120
check "webm: VP9" is "$(probe "$tmp/e.webm" codec_name)" vp9
check "--every 4 over 20 steps: 6 frames" is "$(probe "$tmp/e.webm" nb_read_frames)" 6
run record -o "$tmp/g.gif" --steps 9 --size 160x120 --hud
check "gif: GIF" is "$(probe "$tmp/g.gif" codec_name)" gif
check "gif: 10 frames" is "$(probe "$tmp/g.gif" nb_read_frames)" 10

# ---- A 3D recording: the orbit camera depends only on the simulation ------------------------
run record -o "$tmp/3d.mp4" --steps 19 --size 320x240 --set model=boids --set 'world.size_m=[640,480,480]' --hud
check "3D: record exits 0" is "$rc" 0
check "3D: 20 frames for steps 0..19" is "$(probe "$tmp/3d.mp4" nb_read_frames)" 20
md5s "$tmp/3d.mp4" >"$tmp/3d.md5"
run record -o "$tmp/3d-again.mp4" --steps 19 --size 320x240 --set model=boids --set 'world.size_m=[640,480,480]' --hud
check "3D: the same run gives identical frames (framemd5)" cmp -s "$tmp/3d.md5" <(md5s "$tmp/3d-again.mp4")
check "3D: the frames change as the flock moves" differs <(head -1 "$tmp/3d.md5" | awk '{print $NF}') <(tail -1 "$tmp/3d.md5" | awk '{print $NF}')

# ---- Interrupted ----------------------------------------------------------------------------
"$HERD" record -o "$tmp/i.mp4" --steps 1000000 --size 160x120 --set "target.position_m=[-1e6,-1e6]" \
  >"$tmp/out" 2>"$tmp/err" &
pid=$!
# While recording, the video grows under a temporary name beside the target. herd reserves it
# before it takes Ctrl-C for a clean stop; ffmpeg writes into it only once it has a frame, which
# herd sends after that: a temporary file that is not empty means a SIGINT now is a clean stop.
if wait_for "$pid" "bytes in the temporary video i.mp4.part-*.mp4" eval \
  '[ -n "$(find "$tmp" -maxdepth 1 -name "i.mp4.part-*.mp4" -size +0c)" ]'; then
  check "while recording, the target name is not used yet" absent "$tmp/i.mp4"
  kill -INT "$pid"
fi
wait "$pid"
rc=$?
frames=$(sed -n 's/^wrote \([0-9]*\) frames.*/\1/p' "$tmp/out")
check "SIGINT exits 130" is "$rc" 130
check "SIGINT says how many frames" has "the video is complete with" "$tmp/err"
check "the interrupted video plays, with that many frames" is "$(probe "$tmp/i.mp4" nb_read_frames)" "${frames:-none}"

# ---- Errors, each before the simulation starts ------------------------------------------------
run record -o "$tmp/a.mp4" --steps 5 --size 320x240
check "an existing file is refused (exit 2)" is "$rc" 2
check "... saying so" has "file exists" "$tmp/err"
check "... and left as it was" cmp -s <(md5s "$tmp/a.mp4") "$tmp/a.md5"
run record -o "$tmp/a.mp4" --steps 5 --size 320x240 --force
check "--force replaces it" is "$rc" 0
run record -o "$tmp/no/such/folder/x.mp4" --steps 5
check "a missing folder is refused (exit 2)" eval 'is "$rc" 2 && has "does not exist" "$tmp/err"'
run record -o "$tmp/x.avi" --steps 5
check "an unknown video type is refused (exit 2)" eval 'is "$rc" 2 && has "allowed: .mp4, .webm, .gif" "$tmp/err" && absent "$tmp/x.avi"'
run record -o "$tmp/odd.mp4" --size 321x240 --steps 5
check "an odd size for H.264 is refused (exit 2)" eval 'is "$rc" 2 && has "even" "$tmp/err" && absent "$tmp/odd.mp4"'
run record --steps 5
check "-o is required (exit 2)" is "$rc" 2

mkdir -p "$tmp/nobin"
PATH="$tmp/nobin" run record -o "$tmp/n.mp4" --steps 5
check "no ffmpeg: exit 1 naming the package" eval 'is "$rc" 1 && has "apt install ffmpeg" "$tmp/err" && absent "$tmp/n.mp4"'

# A stand-in ffmpeg with no encoders at all, then one that dies after a few frames.
mkdir -p "$tmp/fake"
cat >"$tmp/fake/ffmpeg" <<'FAKE'
#!/usr/bin/env bash
if [ "${FAKE_MODE:-}" = "no-encoders" ]; then echo " V..... gif   GIF"; exit 0; fi
case " $* " in *" -encoders "*) echo " V....D libx264   H.264"; exit 0 ;; esac
out="${!#}"
out="${out#file:}"
head -c 500000 >"$out"
echo "av_interleaved_write_frame(): No space left on device" >&2
exit 1
FAKE
chmod +x "$tmp/fake/ffmpeg"
FAKE_MODE=no-encoders PATH="$tmp/fake:$PATH" run record -o "$tmp/m.mp4" --steps 5
check "a missing encoder: exit 1 naming it" eval 'is "$rc" 1 && has "no libx264 encoder" "$tmp/err" && absent "$tmp/m.mp4"'
PATH="$tmp/fake:$PATH" run record -o "$tmp/d.mp4" --steps 200 --size 320x240
check "ffmpeg dying mid-run: nonzero exit" eval '[ "$rc" -ne 0 ]'
check "... with ffmpeg's last message" has "No space left on device" "$tmp/err"
partial=$(sed -n 's/.*the partial video is left at \(.*\)$/\1/p' "$tmp/err")
check "... naming the partial file, kept under a temporary name" eval '[ -n "$partial" ] && [ -s "$partial" ]'
check "... never under the name asked for" absent "$tmp/d.mp4"

# ffmpeg reads the output as a path, never as an option or a protocol
(cd "$tmp" && "$HERD" record -o -y.gif --steps 3 --size 64x64 >"$tmp/out" 2>"$tmp/err")
rc=$?
check "-o -y.gif writes a file named -y.gif" eval 'is "$rc" 0 && [ -s "$tmp/-y.gif" ]'
(cd "$tmp" && "$HERD" record -o pipe:1.gif --steps 3 --size 64x64 >"$tmp/out" 2>"$tmp/err")
rc=$?
check "-o pipe:1.gif writes a file of that name, not standard output" eval 'is "$rc" 0 && [ -s "$tmp/pipe:1.gif" ] && ! grep -q GIF89a "$tmp/out"'

# ---- --summary / --json: the run's summary with the video's facts (docs/schema) ---------------
if /usr/bin/python3 -c "import jsonschema" 2>/dev/null; then
  run record -o "$tmp/s.mp4" --steps 12 --every 3 --size 160x120 --summary "$tmp/s.json" --json
  check "record --summary --json exits 0" is "$rc" 0
  check "... both validate against run-summary.schema.json" /usr/bin/python3 "$(dirname "$0")/../scripts/validate-json.py" \
    "$(dirname "$0")/../docs/schema/run-summary.schema.json" "$tmp/s.json" "$tmp/out"
  check "... its frame count is the video's" is "$(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["video"]["frames"], d["steps"])' "$tmp/s.json")" \
    "$(probe "$tmp/s.mp4" nb_read_frames) 12"
  check "... and the text lines went to standard error" grep -q "^wrote 5 frames" "$tmp/err"
  echo keep >"$tmp/kept.json"
  run record -o "$tmp/t.mp4" --steps 2 --size 160x120 --summary "$tmp/kept.json"
  check "an existing --summary file: exit 2, no video, the file kept" eval \
    'is "$rc" 2 && absent "$tmp/t.mp4" && [ "$(cat "$tmp/kept.json")" = keep ]'
fi

finish
