#!/usr/bin/python3
"""Renders the frames a job has written with the job's own Catalyst scripts, after the run, as
they render in situ: the same scripts, the same arguments, one image per frame.

    jobs/catalyst/render_frames.py JOB.yaml [--set KEY=VALUE ...] [--output DIR]
                                   [--scripts N ...] [--directory DIR]

  JOB.yaml         the job that wrote the frames (its <output.directory>/<name>.xmf is read)
  --set KEY=VALUE  the --set flags the run was given (e.g. --set name=trial
                   --set output.directory=/scratch/run1); keys of sections, not list
                   entries; repeatable
  --output DIR     where the run's frames are (default: the job's output.directory)
  --scripts N ...  only these entries of catalyst.scripts (0-based; default: every one)
  --directory DIR  where the images go (default: the job's catalyst.directory)

Rendering needs a display like the run does: `xvfb-run -a jobs/catalyst/render_frames.py ...`
on a machine without one. Each script runs in a Python of its own (a script reads its arguments
when it is imported) and is fed the frames through ParaView's Catalyst bridge, as ParaView's
file-driven miniapp does (paraview.demos.filedriver_miniapp), so the script cannot tell the saved
frames from the live simulation; images carry the solver's step numbers, as in situ. Paths in the
job are resolved as the solver does: scripts against the job file's directory, output
directories against the current one.
"""
import argparse
import os
import subprocess
import sys

import yaml

# Debian's Python, which has ParaView's modules (python3-paraview). Under pvbatch the Catalyst
# bridge ends with an X error (GLXBadContext, exit status 1) after writing every image, because
# pvbatch has initialised ParaView before the bridge does; under plain Python it does not.
PYTHON = "/usr/bin/python3"


def fail(message):
    """Stops with a message that says what to do, not a traceback."""
    sys.exit(f"render_frames.py: {message}")


def apply_set(job, assignment):
    """One --set KEY=VALUE on the job's mapping: KEY is a dotted path of sections, VALUE YAML."""
    key, equals, text = assignment.partition("=")
    if not equals or not key:
        fail(f"--set needs KEY=VALUE, e.g. --set output.directory=out, got '{assignment}'")
    if "[" in key:
        # What this script reads (name, output, catalyst) needs no list entry but whole lists.
        fail(f"--set {key}: this script sets sections' keys only, not list entries; give the "
             "whole list (e.g. --set 'catalyst.scripts=[...]')")
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as error:
        fail(f"--set {key}: '{text}' is not a YAML value ({error})")
    section = job
    parts = key.split(".")
    for part in parts[:-1]:
        if section.get(part) is None:
            section[part] = {}
        if not isinstance(section[part], dict):
            fail(f"--set {key}: '{part}' is not a section of the job")
        section = section[part]
    section[parts[-1]] = value


def load_job(path, assignments=(), output=None):
    if not os.path.isfile(path):
        fail(f"no job file '{path}'")
    try:
        with open(path, encoding="utf-8") as handle:
            job = yaml.safe_load(handle) or {}
    except (OSError, yaml.YAMLError) as error:
        fail(f"cannot read the job '{path}': {error}")
    if not isinstance(job, dict):
        fail(f"'{path}' is not a job file (a YAML mapping of sections)")
    for assignment in assignments:
        apply_set(job, assignment)
    if output is not None:
        if not isinstance(job.get("output"), dict):
            job["output"] = {}
        job["output"]["directory"] = output
    output = job.get("output") or {}
    directory = str(output.get("directory", "output"))
    catalyst = job.get("catalyst") or {}
    return {
        "name": str(job.get("name", os.path.splitext(os.path.basename(path))[0])),
        "output": directory,
        "extracts": str(catalyst.get("directory", os.path.join(directory, "catalyst"))),
        "scripts": [entry or {} for entry in catalyst.get("scripts") or []],
        "here": os.path.dirname(os.path.abspath(path)),
    }


def script_path(job, index):
    """catalyst.scripts[index]'s file, resolved as the solver does; stops if it is missing."""
    script = str(job["scripts"][index].get("script"))
    if not os.path.isabs(script):
        script = os.path.join(job["here"], script)
    if not os.path.isfile(script):
        fail(f"catalyst.scripts[{index}]: no script '{script}' (a relative path is read "
             "against the job file's directory)")
    return script


def index_path(job):
    """The run's XDMF index; stops if it is missing."""
    index_file = os.path.join(job["output"], job["name"] + ".xmf")
    if not os.path.isfile(index_file):
        fail(f"no frames to render: {index_file} does not exist (give the run's --set flags, "
             "or --output with its output directory)")
    return index_file


def render_one(job, index, directory):
    """In a Python of its own: runs catalyst.scripts[index] over every frame."""
    import types

    entry = job["scripts"][index]
    script = script_path(job, index)
    module = types.ModuleType("stablefluids_catalyst")
    module.args = [str(arg) for arg in entry.get("args") or []]
    module.script = script
    module.job_name = job["name"]
    module.extracts_directory = directory
    module.domain_bounds = None  # one process reads the whole domain: its data says it
    sys.modules["stablefluids_catalyst"] = module
    os.environ["PARAVIEW_OVERRIDE_EXTRACTS_OUTPUT_DIRECTORY"] = directory

    index_file = index_path(job)
    steps = frame_steps(index_file)

    # The file-driven Catalyst miniapp's loop (paraview.demos.filedriver_miniapp), with the
    # solver's step numbers; the miniapp itself fails on an index with a single frame.
    from paraview import simple
    from paraview.catalyst import bridge

    # As in the solver: ParaView's warnings only with STABLEFLUIDS_CATALYST_WARNINGS=1 (every
    # image would otherwise warn that the time annotation's "time" argument already exists).
    if not os.environ.get("STABLEFLUIDS_CATALYST_WARNINGS"):
        from vtkmodules.vtkCommonCore import vtkLogger
        vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)

    bridge.initialize()
    bridge.add_pipeline(script, 2)
    reader = simple.OpenDataFile(index_file)
    times = reader.TimestepValues  # a property holding a list, or a plain number for one frame
    times = [float(times)] if isinstance(times, (int, float)) else [float(t) for t in times]
    if len(times) != len(steps):
        sys.exit(f"render_frames.py: {index_file} lists {len(times)} times but {len(steps)} frames")
    for time, step in zip(times, steps):
        print(f"render_frames.py: frame at t = {time:g} (step {step})", flush=True)
        reader.UpdatePipeline(time)
        vtk_reader = reader.GetClientSideObject()
        data = vtk_reader.GetOutputDataObject(0)
        extent = vtk_reader.GetOutputInformation(0).Get(
            vtk_reader.GetExecutive().WHOLE_EXTENT())
        bridge.coprocess(time, step, data, name="input", wholeExtent=extent)
    bridge.finalize()


def frame_steps(index_file):
    """The solver step of every frame the index lists, in its order (the frames' "step")."""
    import re
    import h5py

    here = os.path.dirname(index_file)
    with open(index_file, encoding="utf-8") as handle:
        text = handle.read()
    steps = []
    for grid in re.findall(r'<Grid Name="frame".*?</Grid>', text, re.S):
        frame = re.search(r'>([^<>]+\.h5):/', grid).group(1)
        with h5py.File(frame if os.path.isabs(frame) else os.path.join(here, frame), "r") as h5:
            steps.append(int(h5.attrs["step"]))
    return steps


def hold_display():
    """Keeps a connection to the X display open while the scripts render. An X server that resets
    when its last client leaves (xvfb-run, Xvfb without -noreset) refuses connections while it
    resets, and ParaView closes its probe of the display just before its render window connects
    (io/display_check.hpp says the same of the solver). Returns the connection, or None."""
    if not os.environ.get("DISPLAY"):
        return None
    try:
        import ctypes
        xlib = ctypes.CDLL("libX11.so.6")
        xlib.XOpenDisplay.restype = ctypes.c_void_p
        return xlib.XOpenDisplay(None)
    except OSError:
        return None


def main():
    parser = argparse.ArgumentParser(prog="render_frames.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("job")
    parser.add_argument("--set", action="append", default=[], dest="assignments")
    parser.add_argument("--output", default=None)
    parser.add_argument("--scripts", nargs="+", type=int, default=None)
    parser.add_argument("--directory", default=None)
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    options = parser.parse_args()
    job = load_job(options.job, options.assignments, options.output)
    directory = os.path.abspath(options.directory or job["extracts"])
    if options.one is not None:
        render_one(job, options.one, directory)
        return 0
    chosen = options.scripts if options.scripts is not None else range(len(job["scripts"]))
    if not job["scripts"]:
        sys.exit(f"render_frames.py: {options.job} names no Catalyst scripts")
    for index in chosen:
        if not 0 <= index < len(job["scripts"]):
            sys.exit(f"render_frames.py: {options.job} has no catalyst.scripts[{index}]")
    index_path(job)
    for index in chosen:
        script_path(job, index)
    os.makedirs(directory, exist_ok=True)
    display = hold_display()  # noqa: F841 (held until the process exits)
    for index in chosen:
        print(f"render_frames.py: catalyst.scripts[{index}] "
              f"({job['scripts'][index].get('script')}) -> {directory}", flush=True)
        forwarded = [arg for assignment in options.assignments for arg in ("--set", assignment)]
        if options.output is not None:
            forwarded += ["--output", options.output]
        status = subprocess.call([PYTHON, os.path.abspath(__file__), options.job, *forwarded,
                                  "--directory", directory, "--one", str(index)])
        if status != 0:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
