# script-version: 2.0
# Catalyst pipeline: a PNG image of the smoke as a volume rendering with volumetric shadows, in
# 3D perspective with the obstacles, the domain's outline, the time and a colour bar,
#   <catalyst.directory>/<prefix>_<step>.png
# Smoke in Stam's papers is drawn self-shadowed: light is absorbed on its way through the smoke,
# so dense regions darken what lies behind them. ParaView 5.11 does that in its GPU ray caster
# (VTK's volumetric scattering: GlobalIlluminationReach, VolumetricScatteringBlending). On a GPU
# that is cheap; with Mesa's llvmpipe (Xvfb) an image of translucent smoke costs seconds to tens
# of seconds (see --shadow-reach), so render it less often than a slice. 3D jobs only.
#
# Job arguments (catalyst.scripts[].args), all optional:
#   --field NAME        field rendered as the volume (default: density)
#   --color-by NAME     field that colours it (default: temperature if the job has it, so hot
#                       smoke glows and cooled smoke is grey)
#   --range LOW HIGH    range of --field mapped from transparent to opaque (default: 0 1)
#   --color-range LOW HIGH  colour range of --color-by (default: 0 1)
#   --opacity A         opacity per unit length of smoke at the top of the range (default: 20)
#   --shadows S         volumetric scattering blending, 0 (no shadows) to 2 (default: 1)
#   --shadow-reach R    how far shadow rays go, 0 to 1 of the volume (default: 0.2); the cost of
#                       an image grows with it (plume, 64 x 128 x 64, 600 x 800, llvmpipe on one
#                       thread: 0.2 renders in 27 s with the frame read, 0.6 in 64 s and looks
#                       the same, no shadows in 21 s)
#   --colors NAME       smoke (default: white cooling to orange when hot) or blackbody: the
#                       colour of a glowing body at the --color-by temperature (ParaView's
#                       "Black-Body Radiation" map over --color-range: black, red, orange,
#                       yellow, white), unshaded, since a flame gives light rather than taking
#                       it; cold soot is then dark smoke
#   --background R G B  background colour, 0 to 1 each (default: 0.13 0.14 0.17)
#   --size W H          image size in pixels (default: 800 800)
#   --prefix NAME       file name prefix (default: volume_<field>)
# Open it in the ParaView GUI to change it; "File > Save Catalyst State" writes it back.
from paraview.simple import *
from paraview import catalyst
import argparse

try:  # set by stablefluids for this script
    from stablefluids_catalyst import args as job_args, domain_bounds
except ImportError:  # opened in the GUI
    job_args, domain_bounds = [], None
parser = argparse.ArgumentParser(prog="volume_png.py")
parser.add_argument("--field", default="density")
parser.add_argument("--color-by", dest="color_by", default=None)
parser.add_argument("--range", nargs=2, type=float, default=[0.0, 1.0])
parser.add_argument("--color-range", dest="color_range", nargs=2, type=float, default=[0.0, 1.0])
parser.add_argument("--opacity", type=float, default=20.0)
parser.add_argument("--shadows", type=float, default=1.0)
parser.add_argument("--shadow-reach", dest="shadow_reach", type=float, default=0.2)
parser.add_argument("--colors", choices=["smoke", "blackbody"], default="smoke")
parser.add_argument("--background", nargs=3, type=float, default=[0.13, 0.14, 0.17])
parser.add_argument("--size", nargs=2, type=int, default=[800, 800])
parser.add_argument("--prefix", default=None)
settings, _ = parser.parse_known_args(job_args)

input = PVTrivialProducer(registrationName="input")
arrays = input.CellData.keys()
color_by = settings.color_by or ("temperature" if "temperature" in arrays else settings.field)
# In situ, the data information describes this rank's piece only; the solver gives the domain.
bounds = domain_bounds or input.GetDataInformation().GetBounds()
centre = [0.5 * (bounds[2 * a] + bounds[2 * a + 1]) for a in range(3)]
size = max(bounds[2 * a + 1] - bounds[2 * a] for a in range(3))

view = CreateView("RenderView")
view.ViewSize = settings.size
view.Background = settings.background  # dark by default: lit smoke and its shadows both read
view.UseColorPaletteForBackground = 0
view.OrientationAxesVisibility = 0
# Light from the upper left and in front, so that the shadows fall down and to the right.
view.KeyLightElevation = 50.0
view.KeyLightAzimuth = -30.0

# Points carry the fields to the volume mapper and the obstacle contour; the ghost layer makes
# both seamless across rank boundaries.
points = CellDatatoPointData(registrationName="points", Input=input)
points.ProcessAllArrays = 1

smoke = Show(points, view)
smoke.SetRepresentationType("Volume")
smoke.ColorArrayName = ["POINTS", color_by]
smoke.UseSeparateColorMap = 0
smoke.MapScalars = 1
# Opacity from one field (how much smoke) and colour from another (how hot): ParaView's
# "separate array for opacity".
smoke.UseSeparateOpacityArray = 1 if color_by != settings.field else 0
smoke.OpacityArrayName = ["POINTS", settings.field]
glowing = settings.colors == "blackbody"
smoke.Shade = 0 if glowing else 1
smoke.GlobalIlluminationReach = settings.shadow_reach
smoke.VolumetricScatteringBlending = 0.0 if glowing else settings.shadows
lut = GetColorTransferFunction(color_by)
if glowing:
    # Flame colour from temperature: the blackbody sequence over the temperature range.
    lut.ApplyPreset("Black-Body Radiation", True)
    lut.RescaleTransferFunction(settings.color_range[0], settings.color_range[1])
else:
    # Cool smoke white, hot smoke orange: what the eye expects of a plume from a fire.
    lut.RGBPoints = [settings.color_range[0], 0.95, 0.95, 0.95,
                     settings.color_range[0] +
                     0.3 * (settings.color_range[1] - settings.color_range[0]),
                     0.95, 0.75, 0.45,
                     settings.color_range[1], 0.9, 0.3, 0.05]
    lut.ColorSpace = "RGB"
lut.AutomaticRescaleRangeMode = "Never"
opacity = GetOpacityTransferFunction(settings.field if smoke.UseSeparateOpacityArray else color_by)
low, high = settings.range
# Thin smoke must still show: opacity rises steeply at first and slowly towards the top of the
# range. --opacity is the opacity per unit length of the densest smoke.
opacity_points = [low, 0.0, 0.5, 0.0,
                  low + 0.02 * (high - low), 0.0, 0.5, 0.0,
                  low + 0.3 * (high - low), 0.7, 0.5, 0.0,
                  high, 1.0, 0.5, 0.0]
opacity.Points = opacity_points
opacity.AllowDuplicateScalars = 1
GetColorTransferFunction(settings.field).AutomaticRescaleRangeMode = "Never"
smoke.ScalarOpacityUnitDistance = 1.0 / settings.opacity
smoke.ScalarOpacityFunction = opacity
smoke.LookupTable = lut
smoke.SetScalarBarVisibility(view, True)
bar = GetScalarBar(lut, view)
bar.Title = color_by
bar.ComponentTitle = ""
bar.TitleColor = bar.LabelColor = [0.9, 0.9, 0.9]
bar.WindowLocation = "Lower Right Corner"
bar.ScalarBarLength = 0.25

outline = Show(input, view)
outline.Representation = "Outline"
outline.ColorArrayName = ["CELLS", ""]
outline.AmbientColor = outline.DiffuseColor = [0.6, 0.6, 0.6]

if "solid" in arrays:  # frames written before the mask was saved have none
    obstacles = Contour(registrationName="obstacles", Input=points)
    obstacles.ContourBy = ["POINTS", "solid"]
    obstacles.Isosurfaces = [0.5]
    obstacles_display = Show(obstacles, view)
    obstacles_display.ColorArrayName = ["POINTS", ""]
    obstacles_display.AmbientColor = obstacles_display.DiffuseColor = [0.35, 0.45, 0.65]

# The simulation time, which Catalyst sets on the pipeline at every call.
clock = AnnotateTimeFilter(registrationName="clock", Input=input)
clock.Format = "t = {time:.2f}"
clock_display = Show(clock, view)
clock_display.Color = [0.9, 0.9, 0.9]
clock_display.FontSize = 24
clock_display.WindowLocation = "Upper Left Corner"

# A three-quarter view from the front, y up, the whole domain in the image.
view.CameraFocalPoint = centre
view.CameraPosition = [centre[0] + 1.0 * size, centre[1] + 0.3 * size, centre[2] + 2.2 * size]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.ResetCamera(False)  # fit what is shown: the outline is the whole domain
view.GetActiveCamera().Dolly(1.35)  # ResetCamera leaves a wide margin round the box

image = CreateExtractor("PNG", view, registrationName="image")
image.Trigger = "TimeStep"           # when the solver runs this script (its every_steps/time)
image.Trigger.Frequency = 1
image.Writer.FileName = (settings.prefix or "volume_" + settings.field) + "_{timestep:06d}.png"
image.Writer.ImageResolution = settings.size

def catalyst_execute(info):
    # Fixed ranges, so that images compare. ParaView rescales a separate opacity array's function
    # to the data's range when it first renders, whatever its rescale mode: at t = 0 the smoke is
    # 0 everywhere, the function was squeezed onto [0, 1e-38], and from then on any smoke at all
    # was opaque. So the points are set again before every image.
    opacity.Points = opacity_points


options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1

if __name__ == "__main__":
    from paraview.simple import SaveExtractsUsingCatalystOptions
    SaveExtractsUsingCatalystOptions(options)
