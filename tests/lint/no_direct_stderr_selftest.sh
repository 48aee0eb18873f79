#!/usr/bin/env bash
# Checks no_direct_stderr.sh itself, so that a broken pattern cannot pass silently: on the
# fixture it must fail and report exactly the lines marked "// BAD".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=src/writes_to_streams.cpp

set +e
report=$(bash "$here/no_direct_stderr.sh" "$here/fixture" src 2>/dev/null)
rc=$?
set -e
echo "$report"
if ((rc != 1)); then
  echo "no_direct_stderr_selftest: expected exit status 1 on the fixture, got $rc" >&2
  exit 1
fi
expected=$(grep -n '// BAD' "$here/fixture/$fixture" | cut -d: -f1)
reported=$(sed -n "s|^$fixture:\([0-9]*\):.*|\1|p" <<<"$report")
if [ "$expected" != "$reported" ]; then
  echo "no_direct_stderr_selftest: reported lines differ from the BAD lines:" >&2
  diff <(echo "$expected") <(echo "$reported") >&2 || true
  exit 1
fi
echo "no_direct_stderr_selftest: all $(wc -l <<<"$expected") BAD lines reported, nothing else"
