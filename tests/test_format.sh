#!/usr/bin/env bash
# The C sources follow .clang-format. Exit 77 (skipped) where clang-format is missing.
command -v clang-format >/dev/null || { echo "clang-format not installed: skipped"; exit 77; }
passed=0 failed=0
while IFS= read -r f; do
  if clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "not formatted: $f (run: clang-format -i $f)"
  fi
done < <(git ls-files --cached --others --exclude-standard '*.c' '*.h' '*.cl')
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
