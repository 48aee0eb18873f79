#!/usr/bin/env bash
# Checks gpu_header_links.sh itself, so that a broken pattern or link parser cannot pass
# silently: on its fixture (public, private and commented-out links; C++ and GLSL includes)
# it must fail and report exactly the lines marked "// BAD".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=$here/fixture_gpu_links

set +e
report=$(bash "$here/gpu_header_links.sh" "$fixture" 2>/dev/null)
rc=$?
set -e
echo "$report"
if ((rc != 1)); then
  echo "gpu_header_links_selftest: expected exit status 1 on the fixture, got $rc" >&2
  exit 1
fi
expected=$(cd "$fixture" && grep -rn '// BAD' --include='*' . | sed 's|^\./||' | cut -d: -f1,2 | sort)
reported=$(cut -d: -f1,2 <<<"$report" | sort)
if [ "$expected" != "$reported" ]; then
  echo "gpu_header_links_selftest: reported lines differ from the BAD lines:" >&2
  diff <(echo "$expected") <(echo "$reported") >&2 || true
  exit 1
fi
echo "gpu_header_links_selftest: all $(wc -l <<<"$expected") BAD lines reported, nothing else"
