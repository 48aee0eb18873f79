#!/usr/bin/env bash
# Checks function_length.sh itself, so that a scanner that miscounts cannot pass silently: on
# generated sources it must report exactly the functions over the limit, at the line of their
# opening brace and with their length, and nothing else. The sources hold what fools a naive
# brace counter: braces in strings, raw strings, characters and comments, a constructor's
# brace-initialised members, lambdas, member functions in a class, an initializer table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"

# body N: N lines of statements, some with braces the scanner must not count.
body() {
  local i
  for ((i = 0; i < $1; ++i)); do
    case $((i % 5)) in
      0) echo '  text += "}{ not a brace";' ;;
      1) echo "  text += '}';  // } a comment's brace" ;;
      2) echo '  text += R"x(} raw {)x";' ;;
      3) echo '  /* { */ text += std::to_string(i);' ;;
      4) echo '  if (text.empty()) { text = "x"; }' ;;
    esac
  done
}

{
  echo '#include <string>'
  echo 'namespace fixture {'
  echo 'const int kTable[] = {f(1), g(2)};'
  echo 'std::string exactlyAtTheLimit(int i) {'      # 120 lines: braces' lines and 118 between
  echo '  std::string text;'
  body 116
  echo '  return text;'
  echo '}'
  echo 'std::string oneOver(int i) {  // BAD 121'
  echo '  std::string text;'
  body 117
  echo '  return text;'
  echo '}'
  echo 'struct Holder {'
  echo '  Holder() : value_{1}, name_("{") {'
  echo '    auto lambda = [&](int x) {'
  body 60
  echo '      return x;'
  echo '    };'
  body 60
  echo '  }  // BAD above: the constructor, 125 lines'
  echo '  int value_;'
  echo '  std::string name_;'
  echo '  int small() const { return value_; }'
  echo '};'
  echo '}  // namespace fixture'
} >"$work/src/fixture.cpp"

set +e
report=$(bash "$here/function_length.sh" "$work" src 2>/dev/null)
rc=$?
set -e
echo "$report"
if ((rc != 1)); then
  echo "function_length_selftest: expected exit status 1 on the fixture, got $rc" >&2
  exit 1
fi
ctor=$(grep -n 'Holder() :' "$work/src/fixture.cpp" | cut -d: -f1)
over=$(grep -n 'oneOver' "$work/src/fixture.cpp" | cut -d: -f1)
expected="src/fixture.cpp:$ctor: Holder is 125 lines (at most 120)
src/fixture.cpp:$over: oneOver is 121 lines (at most 120)"
if [ "$report" != "$expected" ]; then
  echo "function_length_selftest: expected exactly:" >&2
  echo "$expected" >&2
  exit 1
fi
# --allow leaves a file out.
bash "$here/function_length.sh" "$work" --allow src/fixture.cpp src >/dev/null
echo "function_length_selftest: the two functions over 120 lines reported, at their lines and lengths, nothing else"
