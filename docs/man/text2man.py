#!/usr/bin/env python3
"""docs/man/text2man.py — a man page (roff) from the text a program prints
as its manual, so that `man` and the program say the same thing:
rperf.1 from `rperf help` (rperf/manual.txt), rperf-analyze.1 from
`rperf-analyze --help`. Run by meson at build time.

  text2man.py NAME VERSION DESCRIPTION INPUT OUTPUT

The text: an optional first line `NAME(1) — description` or `usage: ...`
(the SYNOPSIS); then sections, each a heading at column 0 (`OVERVIEW`, or
a short `commands:`) and indented blocks separated by blank lines. A block of
plain prose (lines of one indent, no column alignment) becomes a filled
paragraph; any other block (tables, commands, examples) is kept line for
line. Text before the first heading is the DESCRIPTION.
"""
import re
import sys


def escape(text):
    text = text.replace("\\", "\\e")
    # ASCII hyphen-minus, as typed: an option must copy as itself
    text = text.replace("-", "\\-")
    return text


def roff_line(line):
    line = escape(line)
    return "\\&" + line if line.startswith((".", "'")) else line


def is_prose(block):
    indents = {len(l) - len(l.lstrip(" ")) for l in block}
    if len(indents) != 1:
        return False
    return not any(re.search(r"\S {2,}\S", l.strip()) for l in block)


def is_heading(line):
    """`OVERVIEW` (a manual's) or `commands:` (a usage text's), at column 0."""
    if not line or line.startswith(" "):
        return False
    all_caps = line == line.upper() and re.search(r"[A-Z]", line)
    return bool(all_caps) or (line.endswith(":") and len(line) < 40)


def blocks_of(lines):
    block = []
    for line in lines + [""]:
        if line.strip():
            block.append(line.rstrip())
        elif block:
            yield block
            block = []


def render(name, version, description, lines):
    out = ['.TH "%s" "1" "" "rperf %s" "User Commands"' % (name.upper(), version)]
    synopsis = None
    if lines and re.match(r"^\S+\(\d\) — ", lines[0]):
        description = description or lines[0].split(" — ", 1)[1]
        lines = lines[1:]
    elif lines and lines[0].startswith("usage: "):
        synopsis = lines[0][len("usage: "):]
        lines = lines[1:]
    out += [".SH NAME", "%s \\- %s" % (escape(name), escape(description))]
    if synopsis:
        out += [".SH SYNOPSIS", ".B " + escape(synopsis)]
    sections, current = [], ("DESCRIPTION", [])
    for line in lines:
        if is_heading(line):
            if current[1] or current[0] != "DESCRIPTION":
                sections.append(current)
            current = (line.rstrip(":").upper(), [])
        else:
            current[1].append(line)
    sections.append(current)
    for heading, body in sections:
        if not any(l.strip() for l in body):
            continue
        out.append(".SH " + escape(heading))
        for block in blocks_of(body):
            if is_prose(block):
                out += [".PP"] + [roff_line(l.strip()) for l in block]
            else:
                indent = min(len(l) - len(l.lstrip(" ")) for l in block)
                out += [".PP", ".nf"] + [roff_line(l[indent:]) for l in block] + [".fi"]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 6:
        sys.exit("usage: text2man.py NAME VERSION DESCRIPTION INPUT OUTPUT")
    name, version, description, source, target = argv[1:]
    with open(source, encoding="utf-8") as f:
        lines = f.read().split("\n")
    with open(target, "w", encoding="utf-8") as f:
        f.write(render(name, version, description, lines))


if __name__ == "__main__":
    main(sys.argv)
