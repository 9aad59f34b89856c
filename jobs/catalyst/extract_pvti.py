# script-version: 2.0
# Catalyst pipeline: writes the simulation's fields as a parallel VTK image (.pvti, one .vti
# piece per rank) under the job's catalyst directory, one file set per run of the script:
#   <catalyst.directory>/<prefix>_<step>.pvti
# Every cell-data array the solver hands over is written (velocity, the scalars, pressure,
# solid). It reads the solver's "owned" channel, which has no ghost cells, so the pieces tile
# the domain exactly and a reader that assembles them hides nothing.
#
# Job arguments (catalyst.scripts[].args):  --prefix NAME   file name prefix (default: fields)
# Open it in the ParaView GUI to change it; "File > Save Catalyst State" writes it back.
from paraview.simple import *
from paraview import catalyst
import argparse

try:
    from stablefluids_catalyst import args as job_args  # set by stablefluids for this script
except ImportError:                                     # opened in the GUI
    job_args = []
parser = argparse.ArgumentParser(prog="extract_pvti.py")
parser.add_argument("--prefix", default="fields")
settings, _ = parser.parse_known_args(job_args)

# The simulation's data: one vtkImageData block per rank, cell data, the rank's own cells.
owned = PVTrivialProducer(registrationName="owned")

fields = CreateExtractor("VTI", owned, registrationName="fields")
fields.Trigger = "TimeStep"          # when the solver runs this script (its every_steps/time)
fields.Trigger.Frequency = 1
fields.Writer.FileName = settings.prefix + "_{timestep:06d}.pvti"

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1

if __name__ == "__main__":
    from paraview.simple import SaveExtractsUsingCatalystOptions
    SaveExtractsUsingCatalystOptions(options)
