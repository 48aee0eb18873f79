#!/usr/bin/env bash
# Every command's --help names only flags that command has: a flag that its help text
# mentions (in a description shared between commands, say) must be one of its own options,
# unless the text names it as another command's ("as voxen map --threads does"). The
# commands are read from `voxen --help`, bench's from its list, so a new one is covered.
#   help_flags.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" help_flags "$@"

"$voxen" --help > top.txt
commands=$(awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' top.txt)
[ -n "$commands" ] || fail "voxen --help lists no commands: $(cat top.txt)"
benches=$(sed -n 's/.*bench NAME, NAME one of: //p' top.txt | tr -d ',')
[ -n "$benches" ] || fail "voxen --help does not list the bench names: $(cat top.txt)"
checked=0
while read -r command; do
  read -r -a words <<< "$command"
  "$voxen" "${words[@]}" --help > help.txt || fail "voxen $command --help: exit status $?"
  # Its options: the lines that start with a flag (-o,--output or --output).
  sed -nE 's/^ +(-[a-zA-Z],)?(--[a-z][a-z0-9-]*).*/\2/p' help.txt | sort -u > declared.txt
  [ -s declared.txt ] || fail "voxen $command --help lists no options: $(cat help.txt)"
  # Every flag the text mentions, less those named as another command's.
  sed -E 's/voxen( [a-z][a-z-]*){1,2} --[a-z][a-z0-9-]*//g' help.txt |
    grep -oE '(^|[^a-zA-Z0-9-])--[a-z][a-z0-9-]*' | sed -E 's/^[^-]*//' | sort -u > mentioned.txt
  foreign=$(comm -23 mentioned.txt declared.txt | tr '\n' ' ')
  [ -z "$foreign" ] || fail "voxen $command --help mentions flags it does not have: $foreign"
  checked=$((checked + 1))
done < <(for c in $commands; do
  if [ "$c" = bench ]; then for b in $benches; do echo "bench $b"; done; else echo "$c"; fi
done)
[ $checked -ge 10 ] || fail "only $checked commands checked"
echo "help_flags: ok ($checked commands)"
