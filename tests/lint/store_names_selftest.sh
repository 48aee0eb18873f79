#!/usr/bin/env bash
# Checks store_names.py itself, so that a broken pattern cannot pass silently: on the fixture
# it must fail and report exactly the lines marked "// BAD", file by file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=$here/fixture_store_names

set +e
report=$(python3 "$here/store_names.py" "$fixture" --fixture 2>/dev/null)
rc=$?
set -e
echo "$report"
if ((rc != 1)); then
  echo "store_names_selftest: expected exit status 1 on the fixture, got $rc" >&2
  exit 1
fi
expected=$(cd "$fixture" && grep -rn '// BAD' --include='*.cpp' . | sed 's|^\./||' | cut -d: -f1,2 | sort)
reported=$(sed -n 's|^\([^:]*\.cpp:[0-9]*\):.*|\1|p' <<<"$report" | sort -u)
if [ "$expected" != "$reported" ]; then
  echo "store_names_selftest: reported lines differ from the BAD lines:" >&2
  diff <(echo "$expected") <(echo "$reported") >&2 || true
  exit 1
fi
echo "store_names_selftest: all $(wc -l <<<"$expected") BAD lines reported, nothing else"
