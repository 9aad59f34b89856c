#!/usr/bin/env python3
"""The repository explains itself, and only through what it contains.

Over every file of the source tree (what git tracks plus new files it does not ignore; without
git, every file outside build directories):
  - no text points outside the repository (a design file that is not in it, a sibling
    directory) or to a tracker's ticket by number: a limitation is said in words;
  - every author-year citation ("Stam 1999", "Foster & Metaxas 1996", "Ghia et al. (1982)")
    names a first author that docs/references.md lists in full;
  - every relative link in a Markdown file reaches a file of the tree, and a link to a heading
    of a Markdown file reaches a heading that exists.
Each check also counts what it looked at and fails if that is nothing, so that it cannot pass
by checking an empty list.

usage: docs_test.py <source dir>
"""
import os
import re
import sys

import source_tree

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
BINARY = (".png", ".jpg", ".h5", ".obj", ".stl", ".ply", ".so", ".a", ".o")

passed = failed = 0


def check(what, ok, details=()):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAILED: " + what)
        for line in list(details)[:40]:
            print("    " + line)


def tree_files():
    """Files of the source tree, relative to ROOT, without binary ones."""
    return sorted(f for f in source_tree.tree_files(ROOT) if not f.endswith(BINARY))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        return f.read()


files = tree_files()
texts = {f: read(f) for f in files}
check("the tree has files to check (%d)" % len(files), len(files) > 50)

# --- nothing outside the repository, no tracker numbers ------------------------------------------
# Written so that this file does not match itself.
outside = re.compile(r"DESIGN[.]md|[.][.]/shared/|\b[Ii]ssues? #?[0-9]")
hits = ["%s:%d: %s" % (f, n + 1, line.strip())
        for f, text in texts.items()
        for n, line in enumerate(text.splitlines()) if outside.search(line)]
check("no file cites a design file outside the repository or a tracker's ticket", not hits, hits)

# --- every cited paper is in docs/references.md -------------------------------------------------
REFERENCES = "docs/references.md"
check(REFERENCES + " exists", REFERENCES in texts)
references = texts.get(REFERENCES, "")
# A surname, optional co-authors or "et al.", then a year that is not the start of a date
# (2026-11-23). Words that stand before a year without being an author are listed below.
name = r"[A-Z][a-zäöüéèçñß-]+(?:'[A-Z][a-zäöüéèçñß-]+)?"  # O'Brien, but not Stam's
citation = re.compile(r"\b(%s)(?:(?:,| &| and) (?:de |van |von )?%s)*(?: et al\.)?(?:'s)? "
                      r"\(?((?:19|20)[0-9]{2})\b(?!-[0-9])" % (name, name))
NOT_AUTHORS = {"Since", "In", "From", "Until", "Before", "After", "January", "February", "March",
               "April", "May", "June", "July", "August", "September", "October", "November",
               "December", "Animation"}
cited = {}
for f, text in texts.items():
    if f == REFERENCES:
        continue
    for m in citation.finditer(text):
        author = m.group(1)
        if author not in NOT_AUTHORS:
            cited.setdefault(author, "%s (%s %s)" % (f, author, m.group(2)))
check("author-year citations are found (%d first authors)" % len(cited),
      "Stam" in cited and "Foster" in cited and len(cited) > 20)
missing = ["%s, first cited in %s" % (a, where) for a, where in sorted(cited.items())
           if a not in references]
check("every cited first author is listed in " + REFERENCES, not missing, missing)


# --- links in Markdown files --------------------------------------------------------------------
def anchor(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[|\]\([^)]*\)", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path):
    found, fence = set(), False
    for line in texts.get(path, "").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", line):
            found.add(anchor(line.lstrip("#")))
    return found


link = re.compile(r"\]\(([^)\s]+)\)")
links = 0
broken = []
for f in files:
    if not f.endswith(".md"):
        continue
    fence = False
    for n, line in enumerate(texts[f].splitlines()):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for m in link.finditer(line):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue  # a URL: not part of the tree
            links += 1
            path, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(os.path.join(ROOT, resolved)):
                broken.append("%s:%d: %s (no such file)" % (f, n + 1, target))
            elif fragment and resolved.endswith(".md") and fragment not in anchors_of(resolved):
                broken.append("%s:%d: %s (no such heading)" % (f, n + 1, target))
check("relative links are found in the Markdown files (%d)" % links, links > 20)
check("every relative link reaches its file and heading", not broken, broken)

# The citation file names the version CMake builds, and the licence it names is the LICENSE's.
project = re.search(r"project\(stablefluids VERSION ([0-9.]+)", read("CMakeLists.txt"))
citation = read("CITATION.cff") if os.path.exists(os.path.join(ROOT, "CITATION.cff")) else ""
cited = re.search(r"^version: ([0-9.]+)$", citation, re.M)
check("CITATION.cff's version is the project's (%s, %s)"
      % (project and project.group(1), cited and cited.group(1)),
      project and cited and project.group(1) == cited.group(1))
check("CITATION.cff and LICENSE name the same licence (BSD-2-Clause)",
      "license: BSD-2-Clause" in citation and os.path.exists(os.path.join(ROOT, "LICENSE"))
      and "BSD 2-Clause License" in read("LICENSE"))

print("docs_test: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
