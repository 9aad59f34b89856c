#!/usr/bin/python3
"""needs_display.py JOB.yaml: exit 0 if a Catalyst script of the job renders (so the job needs
an X display: jobs/run and the Slurm scripts then start a virtual one, virtual_display.sh), 1 if
none does, 2 if the job cannot be read (the solver will say why). A script renders if it creates
a view, which every image extract needs; data extracts and Live alone do not."""
import os
import re
import sys
import zipfile

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


CALL = re.compile(r"\bCreateView\s*\(|\bRender\s*\(")


def renders(script_path):
    """A script renders if its text creates a view; a package (a directory or a .zip of Python
    files, as ParaView allows) if any of its Python files does."""
    try:
        if os.path.isdir(script_path):
            for root, _, files in os.walk(script_path):
                for name in files:
                    if name.endswith(".py") and renders(os.path.join(root, name)):
                        return True
            return False
        if zipfile.is_zipfile(script_path):
            with zipfile.ZipFile(script_path) as package:
                return any(CALL.search(package.read(name).decode("utf-8", "replace"))
                           for name in package.namelist() if name.endswith(".py"))
        with open(script_path, encoding="utf-8", errors="replace") as handle:
            return CALL.search(handle.read()) is not None
    except (OSError, zipfile.BadZipFile):
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
