"""The files of a source tree, for the documentation checks (docs_test.py, docs_commands_test.py)."""
import os
import subprocess


def tree_files(root):
    """Files under `root` that git tracks or would track (os.walk where git cannot say), relative
    to it, without build directories."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                             check=True, capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for base, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")
                       and d not in ("output", "validation_output")]
            files += [os.path.relpath(os.path.join(base, n), root) for n in names]
    return [f for f in files if os.path.isfile(os.path.join(root, f))
            and not f.split("/")[0].startswith("build")]
