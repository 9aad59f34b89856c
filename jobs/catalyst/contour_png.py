# script-version: 2.0
# Catalyst pipeline: a PNG image of an isosurface of one field (the smoke's surface), coloured
# by another, in 3D perspective with the domain's outline, the obstacles, a colour bar and the
# time,
#   <catalyst.directory>/<prefix>_<step>.png
# Cell data is averaged to points first; the ghost layer makes the surface close across rank
# boundaries. 3D jobs only.
#
# Job arguments (catalyst.scripts[].args), all optional:
#   --field NAME        field whose isosurface is drawn (default: density)
#   --value V           isovalue (default: 0.1)
#   --color-by NAME     field that colours the surface (default: temperature if the job has it)
#   --range LOW HIGH    colour range, fixed so that frames compare (default: the range of the
#                       colouring field on the surface, per image, shown on the colour bar)
#   --solid-color R G B one colour (0..1 each), shaded, instead of a field and its colour bar:
#                       a liquid's surface, --field phi --value 0 --solid-color 0.2 0.45 0.8
#   --size W H          image size in pixels (default: 800 800)
#   --prefix NAME       file name prefix (default: contour_<field>)
#   --view-from X Y Z   where the camera looks from, as a direction from the domain's centre in
#                       units of its size (default: 1.2 0.5 2.0, a three-quarter view)
#   --particles         draw a liquid's spray (slate) and foam (white) as points, from the
#                       channel "particles" (jobs with liquid.spray only)
# Open it in the ParaView GUI to change it; "File > Save Catalyst State" writes it back.
from paraview.simple import *
from paraview import catalyst
import argparse

try:  # set by stablefluids for this script
    from stablefluids_catalyst import args as job_args, domain_bounds
except ImportError:  # opened in the GUI
    job_args, domain_bounds = [], None
parser = argparse.ArgumentParser(prog="contour_png.py")
parser.add_argument("--field", default="density")
parser.add_argument("--value", type=float, default=0.1)
parser.add_argument("--color-by", dest="color_by", default=None)
parser.add_argument("--range", nargs=2, type=float, default=None)
parser.add_argument("--solid-color", dest="solid_color", nargs=3, type=float, default=None)
parser.add_argument("--size", nargs=2, type=int, default=[800, 800])
parser.add_argument("--prefix", default=None)
parser.add_argument("--particles", action="store_true")
parser.add_argument("--view-from", dest="view_from", nargs=3, type=float, default=[1.2, 0.5, 2.0])
settings, _ = parser.parse_known_args(job_args)

input = PVTrivialProducer(registrationName="input")
arrays = input.CellData.keys()
color_by = settings.color_by or ("temperature" if "temperature" in arrays else settings.field)

view = CreateView("RenderView")
view.ViewSize = settings.size
view.Background = [1.0, 1.0, 1.0]
view.UseColorPaletteForBackground = 0
view.OrientationAxesVisibility = 0

points = CellDatatoPointData(registrationName="points", Input=input)
points.ProcessAllArrays = 1
surface = Contour(registrationName="surface", Input=points)
surface.ContourBy = ["POINTS", settings.field]
surface.Isosurfaces = [settings.value]
surface.ComputeScalars = 1
surface_display = Show(surface, view)
if settings.solid_color:
    surface_display.ColorArrayName = ["POINTS", ""]
    surface_display.AmbientColor = surface_display.DiffuseColor = settings.solid_color
    surface_display.Specular = 0.3
else:
    ColorBy(surface_display, ("POINTS", color_by))
    lut = GetColorTransferFunction(color_by)
    lut.ApplyPreset("Inferno (matplotlib)", True)
    if settings.range:
        lut.AutomaticRescaleRangeMode = "Never"
        lut.RescaleTransferFunction(settings.range[0], settings.range[1])
    else:
        # A fixed 0..1 made a surface at temperature ~0.09 render almost black: follow the data.
        lut.AutomaticRescaleRangeMode = "Clamp and update every timestep"
    surface_display.SetScalarBarVisibility(view, True)
    bar = GetScalarBar(lut, view)
    bar.Title = color_by
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    bar.WindowLocation = "Lower Right Corner"

outline_display = Show(input, view)
outline_display.Representation = "Outline"
outline_display.ColorArrayName = ["CELLS", ""]
outline_display.AmbientColor = outline_display.DiffuseColor = [0.2, 0.2, 0.2]

if "solid" in arrays:  # frames written before the mask was saved have none
    obstacles = Contour(registrationName="obstacles", Input=points)
    obstacles.ContourBy = ["POINTS", "solid"]
    obstacles.Isosurfaces = [0.5]
    obstacles_display = Show(obstacles, view)
    obstacles_display.ColorArrayName = ["POINTS", ""]
    obstacles_display.AmbientColor = obstacles_display.DiffuseColor = [0.6, 0.6, 0.65]

if settings.particles:
    particles = PVTrivialProducer(registrationName="particles")
    particles_display = Show(particles, view)
    particles_display.Representation = "Points"
    particles_display.PointSize = 2.0
    ColorBy(particles_display, ("POINTS", "kind"))
    kind_lut = GetColorTransferFunction("kind")
    kind_lut.AutomaticRescaleRangeMode = "Never"
    kind_lut.RGBPoints = [0.0, 0.3, 0.35, 0.45, 1.0, 1.0, 1.0, 1.0]  # spray slate, foam white
    kind_lut.RescaleTransferFunction(0.0, 1.0)
    particles_display.SetScalarBarVisibility(view, False)

# The simulation time, which Catalyst sets on the pipeline at every call.
clock = AnnotateTimeFilter(registrationName="clock", Input=input)
clock.Format = "t = {time:.2f}"
clock_display = Show(clock, view)
clock_display.Color = [0.0, 0.0, 0.0]
clock_display.FontSize = 20
clock_display.WindowLocation = "Upper Left Corner"

# A three-quarter view from the front (or --view-from), y up.
# In situ, the data information describes this rank's piece only; the solver gives the domain.
bounds = domain_bounds or input.GetDataInformation().GetBounds()
centre = [0.5 * (bounds[2 * a] + bounds[2 * a + 1]) for a in range(3)]
size = max(bounds[2 * a + 1] - bounds[2 * a] for a in range(3))
view.CameraFocalPoint = centre
view.CameraPosition = [centre[a] + settings.view_from[a] * size for a in range(3)]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.ResetCamera(False)  # fit what is shown: the outline is the whole domain

image = CreateExtractor("PNG", view, registrationName="image")
image.Trigger = "TimeStep"           # when the solver runs this script (its every_steps/time)
image.Trigger.Frequency = 1
image.Writer.FileName = (settings.prefix or "contour_" + settings.field) + "_{timestep:06d}.png"
image.Writer.ImageResolution = settings.size

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1

if __name__ == "__main__":
    from paraview.simple import SaveExtractsUsingCatalystOptions
    SaveExtractsUsingCatalystOptions(options)
