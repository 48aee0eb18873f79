#!/usr/bin/env python3
"""Fails when a message, summary line or JSON field names a store target without
redactedStoreName (voxen/store/store_name.hpp), which hides its password; names file and line.

Usage: store_names.py ROOT [--fixture]
Two rules, on the code with // comments removed:
1. In tools/voxen and engine/store/src, "store '" + X: X is redactedStoreName(...) or a store's
   name() (MapStore::name() and Pg::name() are redacted already). Exempt: the SQLite-only
   sources (region_store.cpp, sqlite_db.cpp, store_file.cpp), which are handed a path only once
   it is known to be a file.
2. In each file of TARGETS, the variables that hold a store target as the user typed it are
   never formatted raw: not beside a '+' (string concatenation), not .c_str(), not the value
   of a {"json_key", VALUE} pair (a JSON field), unless wrapped in redactedStoreName( right there.
   A line may opt out with a "// store-name: not shown" comment on it or alone on the line
   above (a path used for a file operation, such as path + "-wal").
Every variable of TARGETS must still occur in its file, so that a rename cannot switch the
check off (--fixture: only the files present are checked, for the self-test).
"""
import os
import re
import sys

# file -> variables holding a store target (a path or a postgresql:// URL) as given.
TARGETS = {
    "tools/voxen/commands/map/map_command.cpp": ["args.store"],
    "tools/voxen/commands/convert_command.cpp": ["args.input", "args.output"],
    "tools/voxen/commands/merge_command.cpp": ["args.output"],
    "tools/voxen/commands/info_command.cpp": ["args->mapPath"],
    "tools/voxen/commands/map_info_command.cpp": ["target"],
    "tools/voxen/commands/store_run_info.cpp": ["target"],
    "tools/voxen/commands/map_source.cpp": ["path", "target"],
    "tools/voxen/commands/clearance_command.cpp": ["args.mapPath"],
    "tools/voxen/commands/export_command.cpp": ["args.mapPath"],
    "tools/voxen/commands/query_command.cpp": ["args.mapPath"],
    "tools/voxen/commands/render_command.cpp": ["mapPath"],
    "engine/store/src/map_store.cpp": ["target"],
    "engine/store/src/pg_store.cpp": ["url"],
}
STORE_QUOTE_FOLDERS = ["tools/voxen", "engine/store/src"]
SQLITE_ONLY = {"region_store.cpp", "sqlite_db.cpp", "store_file.cpp"}
OPT_OUT = "// store-name: not shown"
NAMED = re.compile(r"^\s*(redactedStoreName\(|name\(\)|name_\b|name\b|store->name\(\)|store_->name\(\)|db\.name\(\))")


def code_of(line):
    """The line without its // comment (string literals holding // are rare here and kept)."""
    out, quote, i = [], None, 0
    while i < len(line):
        c = line[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < len(line):
                out.append(line[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            out.append(c)
        elif line.startswith("//", i):
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)


def raw_uses(code, variable):
    """Positions where `variable` is formatted raw in `code`."""
    v = re.escape(variable)
    token = r"(?<![A-Za-z0-9_.>])" + v + r"(?![A-Za-z0-9_])"
    found = []
    for m in re.finditer(token, code):
        before, after = code[: m.start()], code[m.end():]
        if before.endswith("redactedStoreName("):
            continue
        concatenated = re.search(r"\+\s*$", before) and not re.search(r"\+\+\s*$", before)
        concatenated = concatenated or (re.match(r"\s*\+(?![+=])", after) is not None)
        c_str = after.startswith(".c_str()")
        # A JSON field's key is snake_case; {"--store", x} or {"the map", x} hands a path to the
        # output checks (NamedPath), which name the flag.
        pair = re.search(r"\{\s*\"[a-z_]+\"\s*,\s*$", before) and re.match(r"\s*\}", after)
        if concatenated or c_str or pair:
            found.append(m.start())
    return found


def main():
    args = sys.argv[1:]
    fixture = "--fixture" in args
    args = [a for a in args if a != "--fixture"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = args[0]
    problems = []

    for rel, variables in TARGETS.items():
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            if not fixture:
                problems.append(f"{rel}: listed in store_names.py's TARGETS but missing: update the table")
            continue
        lines = open(path, encoding="utf-8").read().split("\n")
        for variable in variables:
            token = re.compile(r"(?<![A-Za-z0-9_.>])" + re.escape(variable) + r"(?![A-Za-z0-9_])")
            if not fixture and not any(token.search(code_of(line)) for line in lines):
                problems.append(f"{rel}: no longer uses '{variable}': update store_names.py's TARGETS")
        for number, line in enumerate(lines, 1):
            if OPT_OUT in line or (number > 1 and lines[number - 2].strip() == OPT_OUT):
                continue
            code = code_of(line)
            for variable in variables:
                if raw_uses(code, variable):
                    problems.append(f"{rel}:{number}: '{variable}' (a store target) formatted without redactedStoreName: {line.strip()}")

    for folder in STORE_QUOTE_FOLDERS:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        for name in sorted(os.listdir(base)):
            if not name.endswith((".cpp", ".hpp")) or name in SQLITE_ONLY:
                continue
            rel = f"{folder}/{name}"
            for number, line in enumerate(open(os.path.join(base, name), encoding="utf-8").read().split("\n"), 1):
                code = code_of(line)
                for m in re.finditer(r"\"store '\"\s*\+", code):
                    if not NAMED.match(code[m.end():]) and OPT_OUT not in line:
                        problems.append(f"{rel}:{number}: \"store '\" + something other than redactedStoreName(...) or name(): {line.strip()}")

    # One report per line, in order.
    seen, report = set(), []
    for p in problems:
        if p not in seen:
            seen.add(p)
            report.append(p)
    if report:
        print("\n".join(report))
        print("store_names: the lines above name a store without redactedStoreName (voxen/store/store_name.hpp)", file=sys.stderr)
        return 1
    print(f"store_names: every store target in {len(TARGETS)} files is named through redactedStoreName")
    return 0


if __name__ == "__main__":
    sys.exit(main())
