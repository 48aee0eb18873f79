#!/usr/bin/env python3
"""The table of scripts/bench/vs_ohm.sh: medians of its runs (results.tsv: input, tool, run,
wall s, cpu s, peak RSS KiB) and the Jaccard indices (jaccard.tsv: input, tool, reference,
JSON) as markdown on stdout and, with --json, as JSON."""
import argparse
import json
import os
import statistics
import sys

TOOL_NAMES = {"ohm_cpu": "OHM CPU", "ohm_ocl": "OHM OpenCL", "voxen_seq": "Voxen sequential (default)",
              "voxen_2p": "Voxen two-phase", "voxen_1p": "Voxen one-pass"}
INPUT_NAMES = {"run": "README run", "scan": "real scan", "tiny": "100 rays"}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("results")
    p.add_argument("jaccard")
    p.add_argument("--repeats", type=int, required=True)
    p.add_argument("--json")
    p.add_argument("--ohm-accel", choices=("cpu", "gpu"), default="cpu",
                   help="the OpenCL device OHM's OpenCL mapper ran on (named in its column)")
    a = p.parse_args()
    names = dict(TOOL_NAMES, ohm_ocl="OHM OpenCL (%s)" % a.ohm_accel.upper())
    runs = {}
    inputs, tools = [], []
    with open(a.results) as f:
        for n, line in enumerate(f, 1):
            w = line.rstrip("\n").split("\t")
            if len(w) != 6:
                print("vs_ohm_report: %s:%d: expected 6 fields, got %d" % (a.results, n, len(w)), file=sys.stderr)
                return 1
            inp, tool = w[0], w[1]
            if inp not in inputs:
                inputs.append(inp)
            if tool not in tools:
                tools.append(tool)
            runs.setdefault((inp, tool), []).append((float(w[3]), float(w[4]), int(w[5]) / 1024.0))
    jacc = {}
    with open(a.jaccard) as f:
        for line in f:
            w = line.rstrip("\n").split("\t", 3)
            jacc.setdefault((w[0], w[1]), {})[w[2]] = dict(json.loads(w[3]), reference=w[2])
    out = {"repeats": a.repeats, "ohm_accel": a.ohm_accel, "inputs": {}}
    for inp in inputs:
        out["inputs"][inp] = {}
        for tool in tools:
            r = runs.get((inp, tool))
            if not r:
                continue
            e = {"wall_s": statistics.median(x[0] for x in r), "cpu_s": statistics.median(x[1] for x in r),
                 "peak_rss_mib": statistics.median(x[2] for x in r), "runs": len(r)}
            for ref, j in jacc.get((inp, tool), {}).items():
                e.setdefault("jaccard", j)  # the first reference (OHM CPU where it ran)
                e.setdefault("jaccard_by_reference", {})[ref] = j
            out["inputs"][inp][tool] = e
    print("| input | figure | " + " | ".join(names.get(t, t) for t in tools) + " |")
    print("|---|---|" + "---|" * len(tools))
    rows = (("wall (median of %d)" % a.repeats, "wall_s", "%.2f s"), ("CPU user+sys", "cpu_s", "%.2f s"),
            ("peak resident memory", "peak_rss_mib", "%.0f MiB"))
    for inp in inputs:
        d = out["inputs"][inp]
        for label, key, fmt in rows:
            cells = [(fmt % d[t][key]) if t in d else "-" for t in tools]
            print("| %s | %s | %s |" % (INPUT_NAMES.get(inp, inp), label, " | ".join(cells)))
        refs = []
        for v in d.values():
            for ref in v.get("jaccard_by_reference", {}):
                if ref not in refs:
                    refs.append(ref)
        for ref in refs:
            cells = []
            for t in tools:
                j = d.get(t, {}).get("jaccard_by_reference", {}).get(ref)
                cells.append("%.4f" % j["jaccard"] if j else "(reference)" if t == ref else "-")
            print("| %s | Jaccard of occupied voxels against %s | %s |" %
                  (INPUT_NAMES.get(inp, inp), names.get(ref, ref), " | ".join(cells)))
    if a.json:
        tmp = a.json + ".part"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        os.replace(tmp, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
