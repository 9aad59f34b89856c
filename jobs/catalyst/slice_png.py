# script-version: 2.0
# Catalyst pipeline: a PNG image of one field on a slice through the middle of the domain,
#   <catalyst.directory>/<prefix>_<step>.png
# coloured with a fixed range (so that frames of a sequence compare), obstacles drawn in grey,
# the time in the lower left corner.
# In 2D the whole plane is shown.
#
# Job arguments (catalyst.scripts[].args), all optional:
#   --field NAME        cell array to colour by (default: density)
#   --normal x|y|z      slice normal (default: z, so with y up the view is from the front)
#   --range LOW HIGH    colour range (default: 0 1)
#   --size W H          image size in pixels (default: 800 800)
#   --prefix NAME       file name prefix (default: slice_<field>)
#   --texture PERIOD    show --field times a texture carried by the flow (Stam 1999 §4): the
#                       job's texture coordinates (its `texture` section, whose period this
#                       must be) map the texture onto the field, the two sets blended with
#                       weights that fall to 0 as each set is reset (job.hpp texture_weight)
#   --pattern NAME      the texture: lines (evenly spaced, as in Stam's Fig. 4g; default),
#                       checker, or noise (a smooth 3D noise)
#   --image PATH        a PNG image as the texture instead (grey levels), repeated --tiles times
#   --tiles N           repetitions of the texture across the domain (default: 8)
# Open it in the ParaView GUI to change it; "File > Save Catalyst State" writes it back.
from paraview.simple import *
from paraview import catalyst
import argparse
import math

try:  # set by stablefluids for this script
    from stablefluids_catalyst import args as job_args, domain_bounds
except ImportError:  # opened in the GUI
    job_args, domain_bounds = [], None
parser = argparse.ArgumentParser(prog="slice_png.py")
parser.add_argument("--field", default="density")
parser.add_argument("--normal", choices=["x", "y", "z"], default="z")
parser.add_argument("--range", nargs=2, type=float, default=[0.0, 1.0])
parser.add_argument("--size", nargs=2, type=int, default=[800, 800])
parser.add_argument("--prefix", default=None)
parser.add_argument("--texture", type=float, default=0.0)
parser.add_argument("--pattern", choices=["lines", "checker", "noise"], default="lines")
parser.add_argument("--image", default=None)
parser.add_argument("--tiles", type=float, default=8.0)
settings, _ = parser.parse_known_args(job_args)
axis = "xyz".index(settings.normal)

# The simulation's data: one block per rank with a ghost layer, so the slice is seamless.
input = PVTrivialProducer(registrationName="input")
# In situ, the data information describes this rank's piece only; the solver gives the domain.
bounds = domain_bounds or input.GetDataInformation().GetBounds()
centre = [0.5 * (bounds[2 * a] + bounds[2 * a + 1]) for a in range(3)]
flat = bounds[5] - bounds[4] <= 0.0  # a 2D job: its plane is the slice

view = CreateView("RenderView")
view.ViewSize = settings.size
view.Background = [1.0, 1.0, 1.0]
view.UseColorPaletteForBackground = 0
view.OrientationAxesVisibility = 0

if flat:
    plane = input
    axis = 2
else:
    plane = Slice(registrationName="slice", Input=input)
    plane.SliceType = "Plane"
    plane.SliceType.Origin = centre
    plane.SliceType.Normal = [1.0 if a == axis else 0.0 for a in range(3)]
    plane.Triangulatetheslice = 0

shown_field = settings.field
textured = None
if settings.texture > 0.0:
    # The texture, sampled at both sets of coordinates and blended, times the field: numpy in a
    # Programmable Filter, on each rank's piece. The set's weight changes with time, so
    # catalyst_execute() writes it into the script before each image.
    shown_field = "textured_" + settings.field
    texture_code = """
import numpy as np
from vtkmodules.vtkIOImage import vtkPNGReader
from vtkmodules.util.numpy_support import vtk_to_numpy
cells = inputs[0].CellData
names = [n for n in ("x", "y", "z") if "texture_a_" + n in cells.keys()]
def texture(coordinates):
    u = [TILES * c for c in coordinates]
    if IMAGE:
        reader = vtkPNGReader()
        reader.SetFileName(IMAGE)
        reader.Update()
        picture = reader.GetOutput()
        nx, ny, _ = picture.GetDimensions()
        pixels = vtk_to_numpy(picture.GetPointData().GetScalars()).reshape(ny, nx, -1)
        grey = pixels[:, :, :3].mean(axis=2) / 255.0 if pixels.shape[2] >= 3 else pixels[:, :, 0] / 255.0
        i = np.mod(np.floor(u[0] * nx), nx).astype(int)
        j = np.mod(np.floor(u[1] * ny), ny).astype(int)
        return grey[j, i]
    if PATTERN == "lines":
        return np.where(np.mod(u[0], 1.0) < 0.2, 0.15, 1.0) * np.where(np.mod(u[1], 1.0) < 0.2, 0.15, 1.0)
    if PATTERN == "checker":
        return 0.25 + 0.75 * (np.mod(sum(np.floor(c) for c in u), 2) == 0)
    phases = [0.0, 1.3, 2.9]
    noise = sum(np.sin(2 * np.pi * (1 + n) * u[n % len(u)] + phases[n] * (1 + u[(n + 1) % len(u)])) for n in range(3))
    return 0.5 + noise / 6.0
a = texture([cells["texture_a_" + n] for n in names])
b = texture([cells["texture_b_" + n] for n in names])
output.CellData.append(cells[FIELD] * (WEIGHT_A * a + (1.0 - WEIGHT_A) * b), "textured_" + FIELD)
"""
    def texture_script(weight_a):
        return (texture_code.replace("TILES", repr(settings.tiles))
                .replace("IMAGE", repr(settings.image))
                .replace("PATTERN", repr(settings.pattern))
                .replace("FIELD", repr(settings.field))
                .replace("WEIGHT_A", repr(weight_a)))
    textured = ProgrammableFilter(registrationName="textured", Input=plane)
    textured.OutputDataSetType = "Same as Input"
    textured.CopyArrays = 1  # the solid flag and the rest, for the obstacles drawn below
    textured.Script = texture_script(0.0)
    plane = textured

display = Show(plane, view)
display.Representation = "Surface"
ColorBy(display, ("CELLS", shown_field))
lut = GetColorTransferFunction(shown_field)
lut.ApplyPreset("Inferno (matplotlib)", True)
lut.AutomaticRescaleRangeMode = "Never"
lut.RescaleTransferFunction(settings.range[0], settings.range[1])
display.SetScalarBarVisibility(view, True)
bar = GetScalarBar(lut, view)
bar.Title = shown_field
bar.ComponentTitle = ""
bar.TitleColor = [0.0, 0.0, 0.0]
bar.LabelColor = [0.0, 0.0, 0.0]
bar.Orientation = "Horizontal"
bar.WindowLocation = "Lower Center"

# Obstacles in grey: the cells whose solid flag is set, on the same plane.
if "solid" in input.CellData.keys():  # frames written before the mask was saved have none
    solid = Threshold(registrationName="obstacles", Input=plane)
    solid.Scalars = ["CELLS", "solid"]
    solid.LowerThreshold = 0.5
    solid.UpperThreshold = 255.0
    solid_display = Show(solid, view)
    solid_display.ColorArrayName = ["CELLS", ""]
    solid_display.AmbientColor = solid_display.DiffuseColor = [0.6, 0.6, 0.6]

# The simulation time, which Catalyst sets on the pipeline at every call, in the margin below the
# plane beside the colour bar.
clock = AnnotateTimeFilter(registrationName="clock", Input=input)
clock.Format = "t = {time:.2f}"
clock_display = Show(clock, view)
clock_display.Color = [0.0, 0.0, 0.0]
clock_display.FontSize = 20
clock_display.WindowLocation = "Lower Left Corner"

# Look at the plane from the positive side of its normal, the plane filling the image but for
# a margin at the bottom for the colour bar.
up_axis = 1 if axis != 1 else 2
across_axis = 3 - axis - up_axis
height = bounds[2 * up_axis + 1] - bounds[2 * up_axis]
width = bounds[2 * across_axis + 1] - bounds[2 * across_axis]
aspect = settings.size[0] / settings.size[1]
scale = 0.5 * max(height, width / aspect) * 1.2
focus = list(centre)
focus[up_axis] -= 0.12 * scale
view.CameraFocalPoint = focus
view.CameraPosition = [focus[a] + (10.0 * max(width, height) if a == axis else 0.0) for a in range(3)]
view.CameraViewUp = [1.0 if a == up_axis else 0.0 for a in range(3)]
view.CameraParallelProjection = 1
view.CameraParallelScale = scale

image = CreateExtractor("PNG", view, registrationName="image")
image.Trigger = "TimeStep"           # when the solver runs this script (its every_steps/time)
image.Trigger.Frequency = 1
image.Writer.FileName = (settings.prefix or "slice_" + shown_field) + "_{timestep:06d}.png"
image.Writer.ImageResolution = settings.size

def catalyst_execute(info):
    if textured is not None:
        # job.hpp texture_weight(0, t, period): set a is reset at multiples of the period.
        phase = info.time / settings.texture
        weight_a = 1.0 - abs(2.0 * (phase - math.floor(phase)) - 1.0)
        textured.Script = texture_script(weight_a)


options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1

if __name__ == "__main__":
    from paraview.simple import SaveExtractsUsingCatalystOptions
    SaveExtractsUsingCatalystOptions(options)
