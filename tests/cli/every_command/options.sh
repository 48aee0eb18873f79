#!/usr/bin/env bash
# The command-line option layer of the voxen tool and of the samples, as a user meets it,
# for every option of every command (read from their --help, so that an option added later
# is checked too):
#   - every option that takes a number refuses NaN and the infinities, through the shared
#     validators (voxen_apps/number_checks.hpp), with exit status 2 and a message naming the
#     flag, in words that read (no "a number of  in (0, 1]");
#   - every integer option accepts the bounds it states and refuses one past them;
#   - a mistyped flag or command gets the closest known one ("did you mean");
#   - a common flag a command does not act on, and a flag that has no effect with another,
#     is refused naming them;
#   - errors that ask for another value of a setting name the flag and its value now.
# Parsing alone is checked with --help at the end of the line: the validators run before
# the help is printed, so a refused value exits 2 and an accepted one prints the help.
#   options.sh VOXEN [SAMPLE...] WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" cli_options "$@"
samples=("${@:2:$#-2}")

expect_status() {  # expect_status WANT WHAT COMMAND...: runs it, output in run.out
  local want=$1 what=$2
  shift 2
  set +e
  "$@" > run.out 2>&1
  local status=$?
  set -e
  [ $status -eq "$want" ] || fail "$what: exit status $status (want $want): $(head -c 600 run.out)"
}
names() {  # names TEXT FILE: FILE says TEXT (a flag: not as the start of a longer flag)
  grep -qE -- "$(printf '%s' "$1" | sed 's/[][\.*^$]/\\&/g')([^a-zA-Z0-9-]|$)" "$2"
}
repeat_word() {  # repeat_word WORD COUNT
  local i
  for ((i = 0; i < $2; i++)); do printf '%s\n' "$1"; done
}

# The flags a command's --help lists (long names), but --help and --version.
listed_flags() {
  "$@" --help | sed -n 's/^  \(-[a-zA-Z],\)\{0,1\}\(--[a-z0-9][a-z0-9-]*\).*/\2/p' | grep -vx -- '--help\|--version' | sort -u
}

# What a numeric option's refusal says, in one of the shared validators' shapes.
message_shape='expected (an integer from -?[0-9]+ to -?[0-9]+|a non-negative integer|a finite number|a number( of [a-z]+( [a-z]+)*)? in [[(][^ ,]+, [^ ,]+[])]|[0-9]+ comma-separated (finite )?numbers( of [a-z]+( [a-z]+)*)?( in [[(][^ ,]+, [^ ,]+[])])?), got '

numeric_options=0
check_options() {  # check_options PROGRAM [COMMAND WORDS...]
  local what flag k bad lo hi value
  what="$(basename "$1")${2:+ ${*:2}}"
  local flags
  flags=$(listed_flags "$@") || fail "$what --help: exit status $?"
  [ -n "$flags" ] || fail "$what --help lists no options"
  for flag in $flags; do
    # A non-number tells the options that take numbers (refused by a shared validator, which
    # quotes it: "got '...'") from text and flags (accepted, so the help is printed) and
    # choices ("not in {...}"); an option taking k values gets k of them.
    local arity=0
    for k in 1 2 3 4; do
      mapfile -t words < <(repeat_word notanumber $k)
      set +e
      "$@" "$flag" "${words[@]}" --help > probe.out 2>&1
      local status=$?
      set -e
      [ $status -eq 0 ] && break
      grep -q "not in {" probe.out && break
      if grep -q "got '[^']*notanumber" probe.out; then arity=$k; break; fi
    done
    if [ $status -ne 0 ] && [ $arity -eq 0 ] && ! grep -q "not in {" probe.out; then
      fail "$what $flag: a value that is not a number is refused, but not by the shared validators: $(cat probe.out)"
    fi
    [ $arity -gt 0 ] || continue
    numeric_options=$((numeric_options + 1)); [ -z "${OPTIONS_DEBUG:-}" ] || echo "$what $flag x$arity" >&2
    names "$flag" probe.out || fail "$what $flag notanumber: the error does not name the flag: $(cat probe.out)"
    grep -qE -- "$message_shape" probe.out || fail "$what $flag notanumber: the message is not in words that read: $(cat probe.out)"
    if grep -qE '  |of in |of  in' probe.out; then fail "$what $flag notanumber: a word is missing: $(cat probe.out)"; fi
    for bad in nan NaN -nan inf -inf infinity; do
      mapfile -t words < <(repeat_word "$bad" $arity)
      expect_status 2 "$what $flag ${words[*]}" "$@" "$flag" "${words[@]}" --help
      names "$flag" run.out || fail "$what $flag $bad: the error does not name the flag: $(cat run.out)"
      grep -q "got '" run.out || fail "$what $flag $bad: not refused by the shared validators: $(cat run.out)"
    done
    # An integer option's stated bounds are accepted and one past them refused.
    if read -r lo hi < <(sed -n 's/.*expected an integer from \(-\{0,1\}[0-9]*\) to \(-\{0,1\}[0-9]*\), got.*/\1 \2/p' probe.out | head -1) &&
      [ -n "$lo" ]; then
      for value in "$lo" "$hi"; do
        mapfile -t words < <(repeat_word "$value" $arity)
        expect_status 0 "$what $flag $value (a stated bound)" "$@" "$flag" "${words[@]}" --help
      done
      for value in $((lo - 1)) $((hi + 1)); do
        mapfile -t words < <(repeat_word "$value" $arity)
        expect_status 2 "$what $flag $value (one past a stated bound)" "$@" "$flag" "${words[@]}" --help
        names "$flag" run.out || fail "$what $flag $value: the error does not name the flag: $(cat run.out)"
      done
    fi
  done
}

commands=$("$voxen" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$commands" ] || fail "voxen --help lists no commands"
for command in $commands; do
  if [ "$command" = bench ]; then
    for bench in $("$voxen" bench --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
      check_options "$voxen" bench "$bench"
    done
  else
    check_options "$voxen" "$command"
  fi
done
for sample in "${samples[@]}"; do check_options "$sample"; done
# A floor, so that a help format the parsing above no longer reads cannot pass unnoticed.
[ $numeric_options -ge 80 ] || fail "only $numeric_options numeric options found in the help texts"
echo "checked $numeric_options numeric options"
