#!/usr/bin/python3
"""needs_display.py JOB.yaml: exit 0 if a Catalyst script of the job renders (so the job needs
an X display: jobs/run and the Slurm scripts then start a virtual one, virtual_display.sh), 1 if
none does, 2 if the job cannot be read (the solver will say why). A script renders if it creates
a view, which every image extract needs; data extracts and Live alone do not."""
import os
import re
import sys

import yaml


def scripts(job_path):
    with open(job_path, encoding="utf-8") as handle:
        job = yaml.safe_load(handle) or {}
    entries = ((job.get("catalyst") or {}).get("scripts")) or []
    here = os.path.dirname(job_path) or "."
    for entry in entries:
        path = str((entry or {}).get("script", ""))
        if path:
            yield path if os.path.isabs(path) else os.path.join(here, path)


def renders(script_path):
    try:
        with open(script_path, encoding="utf-8", errors="replace") as handle:
            return re.search(r"\bCreateView\s*\(|\bRender\s*\(", handle.read()) is not None
    except OSError:
        return False


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return 0 if any(renders(path) for path in scripts(sys.argv[1])) else 1
    except (OSError, yaml.YAMLError, AttributeError, TypeError):
        return 2


if __name__ == "__main__":
    sys.exit(main())
