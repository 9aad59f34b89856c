# script-version: 2.0
# Catalyst Live: lets a ParaView GUI connect to the running job and look at its data while it
# runs (Catalyst > Connect in the GUI, then pick the data to extract in the Pipeline Browser).
# With no GUI listening each run of the script costs one refused connection attempt; the job
# never waits for a GUI to appear and carries on if the GUI goes away.
#
# While a client is connected, ParaView 5.11's Live is synchronous: each run of this script
# waits until the client answers (the GUI answers from its event loop at once, a scripted client
# when it next processes its messages) and then sends it the data it asked for. A slow client
# therefore slows the job; give the script `every_wall_seconds: S` in the job to let it run at
# most once every S seconds of wall-clock time (docs/output.md, "Watching a run", has measurements).
#
# Job arguments (catalyst.scripts[].args):
#   --url HOST:PORT     where the GUI listens (default localhost:22222, the GUI's default port)
# To hold the job at a step, use Catalyst > Pause Simulation in the GUI once connected.
from paraview.simple import *
from paraview import catalyst
import argparse

try:
    from stablefluids_catalyst import args as job_args  # set by stablefluids for this script
except ImportError:                                     # opened in the GUI
    job_args = []
parser = argparse.ArgumentParser(prog="live.py")
parser.add_argument("--url", default="localhost:22222")
settings, _ = parser.parse_known_args(job_args)

# Both channels are offered to the GUI: "input" (with ghost cells) and "owned".
input = PVTrivialProducer(registrationName="input")
owned = PVTrivialProducer(registrationName="owned")

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1
options.EnableCatalystLive = 1
options.CatalystLiveURL = settings.url
options.CatalystLiveTrigger = "TimeStep"
options.CatalystLiveTrigger.Frequency = 1

