#!/usr/bin/env python3
"""A real local text corpus for the semantic-search page: the descriptions of the Debian packages
installed on this machine (dpkg's database), one entry per package:
{"package", "text"} with text = the one-line summary, then the first paragraph of the long
description (whitespace collapsed, at most 400 characters).

    debian_corpus.py OUT.json [--limit N]
"""
import argparse
import json
import re
import subprocess


def entries():
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\x1f${Description}\x1e"],
                         check=True, capture_output=True, text=True).stdout
    seen = {}
    for rec in out.split("\x1e"):
        if "\x1f" not in rec:
            continue
        pkg, desc = rec.split("\x1f", 1)
        lines = desc.split("\n")
        summary, body = lines[0].strip(), []
        for line in lines[1:]:
            if line.strip() == ".":
                break
            body.append(line.strip())
        text = re.sub(r"\s+", " ", (summary + ". " + " ".join(body)).strip()) if body else summary
        if len(text) > 400:
            text = text[:400].rsplit(" ", 1)[0] + " ..."
        if pkg and summary:
            seen.setdefault(pkg.split(":")[0], text)
    return [{"package": p, "text": t} for p, t in sorted(seen.items())]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    e = entries()
    if a.limit:
        e = e[:a.limit]
    with open(a.out, "w") as f:
        json.dump({"source": "dpkg-query: descriptions of the installed Debian packages",
                   "entries": e}, f, ensure_ascii=False, indent=0)
    print("debian_corpus: %d packages -> %s" % (len(e), a.out))


if __name__ == "__main__":
    main()
