"""A Catalyst Live client without a GUI, as ParaView's own Live tests write one: it listens like
the GUI's Catalyst > Connect, asks for one channel of the job's data when the job connects, and
records what each update delivers.

    /usr/bin/python3 live_client.py --port P --channel owned --out result.json [--poll S]

Writes `<out>.listening` once it listens, so that the caller starts the job after that, and, when
the job has gone (or after --timeout seconds), <out>: {"connected", "closed", "updates": [{"step",
"cells", "arrays"}, ...]}. `--poll` is how often it looks for messages: ParaView 5.11's Live is
synchronous, so the job waits at each live step until the client answers (the GUI answers from
its event loop at once; this client after at most `--poll` seconds).
"""
import argparse
import json
import time

from paraview import live
from paraview.simple import FindSource

parser = argparse.ArgumentParser(prog="live_client.py")
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--channel", default="owned")
parser.add_argument("--out", required=True)
parser.add_argument("--poll", type=float, default=0.02)
parser.add_argument("--timeout", type=float, default=240.0)
settings = parser.parse_args()

state = {"connected": False, "closed": False, "updates": []}


def connected(link, event):
    state["connected"] = True
    # The data comes with the next update, not with this call: a client that looks at the
    # extract here finds it empty (0 cells).
    live.ExtractCatalystData(link, settings.channel)
    live.ProcessServerNotifications()


def updated(link, event):
    entry = {"step": int(link.GetTimeStep()), "wall": time.time()}
    source = FindSource(settings.channel)
    if source is not None:
        source.UpdatePipeline()
        entry["cells"] = source.GetDataInformation().GetNumberOfCells()
        entry["arrays"] = sorted(source.CellData.keys())
    state["updates"].append(entry)


def closed(link, event):
    state["closed"] = True


link = live.ConnectToCatalyst("localhost", settings.port)
link.AddObserver("ConnectionCreatedEvent", connected)
link.AddObserver("UpdateEvent", updated)
link.AddObserver("ConnectionClosedEvent", closed)
open(settings.out + ".listening", "w").close()
start = time.time()
while not state["closed"] and time.time() - start < settings.timeout:
    live.ProcessServerNotifications()
    time.sleep(settings.poll)
with open(settings.out, "w", encoding="utf-8") as handle:
    json.dump(state, handle, indent=1)
