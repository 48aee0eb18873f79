#!/usr/bin/env bash
# Fails when a function in the apps (tools/, samples/) is longer than 120 lines (issue 36,
# item 4): a long function is split into named steps. Names each one as file:line (the line of
# its opening brace), its name and its length, longest first.
#
# Usage: function_length.sh <repository root> [--max N] [--allow FILE]... [folder...]
# Without folders it checks tools and samples. --allow FILE leaves one file out (a path
# relative to the root); the test names none. A function's length counts the lines from its
# opening brace to its closing one, both included.
#
# The scanner is a brace-depth walk over .cpp and .hpp files: comments, string and character
# literals (raw strings included) and preprocessor lines are blanked first; a brace block is a
# function body when the text before it, since the last ';', '{' or '}', holds a parameter list
# and does not open a namespace, class, struct, union, enum, extern block or an initializer.
# Lambdas and local classes count as part of the function around them.
set -euo pipefail
root=$1
shift
max=120
allowed=()
folders=()
while (($#)); do
  case $1 in
    --max) max=$2; shift 2 ;;
    --allow) allowed+=("$2"); shift 2 ;;
    *) folders+=("$1"); shift ;;
  esac
done
cd "$root"
((${#folders[@]})) || folders=(tools samples)

files=()
while IFS= read -r -d '' file; do
  skip=0
  for allow in "${allowed[@]+"${allowed[@]}"}"; do [ "$file" = "$allow" ] && skip=1; done
  ((skip)) || files+=("$file")
done < <(find "${folders[@]}" -type f \( -name '*.cpp' -o -name '*.hpp' \) -print0 | sort -z)

python3 - "$max" "${files[@]}" <<'PYTHON'
import re
import sys

max_lines = int(sys.argv[1])
files = sys.argv[2:]


def blank(text):
    """The source with comments, literals and preprocessor lines replaced by spaces; newlines
    are kept, so that offsets still map to the same lines."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == '#':
            # A preprocessor line, with its backslash continuations.
            while i < n and text[i] != '\n':
                if text[i] == '\\' and i + 1 < n and text[i + 1] == '\n':
                    out.append(' \n')
                    i += 2
                    continue
                out.append(' ')
                i += 1
            continue
        if c == '\n':
            out.append(c)
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith('//', i):
            while i < n and text[i] != '\n':
                out.append(' ')
                i += 1
            continue
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:end]))
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            end = text.find(')' + raw.group(1) + '"', i + raw.end())
            end = n if end < 0 else end + len(raw.group(1)) + 2
            out.append('""' + re.sub(r'[^\n]', ' ', text[i + 2:end]))
            i = end
            continue
        if c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            # A string or character literal; a ' between digits is a digit separator.
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + ' ' * (j - i - 2) + c if j - i >= 2 else c)
            i = j
            continue
        out.append(c)
        i += 1
    return ''.join(out)


CONTAINER = re.compile(r'^(?:template\s*<.*>\s*)?(?:namespace|class|struct|union|enum|extern)\b', re.S)


def block_kind(header):
    """'function' for a function body, 'init' for a brace initializer (whose header goes on
    after it closes), 'container' for anything else (namespace, class, enum, extern)."""
    header = ' '.join(header.split())
    if CONTAINER.match(header):
        return 'container'
    # An initializer ("x = {...}", "return {...}", "f(a, {1, 2})"): an '=' outside parentheses
    # (default arguments are inside them), other than in operator=, ==, <= and the like.
    outside = re.sub(r'operator\s*[^\s(]*', 'operator', header)
    while re.search(r'\([^()]*\)', outside):
        outside = re.sub(r'\([^()]*\)', '', outside)
    outside = re.sub(r'(?:<<|>>|[=!<>+\-*/%&|^])=', '', outside)
    if '=' in outside or re.match(r'return\b', header):
        return 'init'
    if '(' not in header:
        return 'container'
    # A brace initializer in a constructor's member list, "Foo() : x_{1}": the header ends in a
    # name after the list's colon.
    if re.search(r'\)\s*(?:noexcept\s*)?:(?!:)', header) and re.search(r'[\w>]$', header):
        return 'init'
    if header.count('(') > header.count(')'):
        return 'init'
    return 'function'


def function_name(header):
    match = re.search(r'([~\w:]+(?:operator\s*\S+?)?)\s*\(', ' '.join(header.split()))
    return match.group(1) if match else '?'


long_ones = []
for path in files:
    with open(path, encoding='utf-8', errors='replace') as source:
        text = blank(source.read())
    stack = []          # per open brace: its kind and the header before it
    header = []         # text since the last ';', '{' or '}' outside a function
    in_function = None  # (start line, name) of the function being walked
    line = 1
    for c in text:
        if c == '\n':
            line += 1
        if in_function is not None:
            if c == '{':
                stack.append(('block', []))
            elif c == '}':
                kind, _ = stack.pop()
                if kind == 'function':
                    start, name = in_function
                    length = line - start + 1
                    if length > max_lines:
                        long_ones.append((length, path, start, name))
                    in_function = None
                    header = []
            continue
        if c == '{':
            text_before = ''.join(header)
            kind = block_kind(text_before)
            stack.append((kind, header))
            if kind == 'function':
                in_function = (line, function_name(text_before))
            header = []
        elif c == '}':
            kind, before = stack.pop() if stack else ('container', [])
            header = before + ['{}'] if kind == 'init' else []
        elif c == ';':
            header = []
        else:
            header.append(c)

for length, path, start, name in sorted(long_ones, key=lambda f: (-f[0], f[1], f[2])):
    print(f'{path}:{start}: {name} is {length} lines (at most {max_lines})')
if long_ones:
    print(f'function_length: {len(long_ones)} function(s) over {max_lines} lines; '
          'split them into named steps', file=sys.stderr)
    sys.exit(1)
print(f'function_length: no function over {max_lines} lines in the {len(files)} sources checked')
PYTHON
