#include "display_check.hpp"

#include <vtkRenderingOpenGLConfigure.h>  // VTK_USE_X, VTK_OPENGL_HAS_EGL, VTK_OPENGL_HAS_OSMESA

#include <cstdlib>

#if defined(VTK_USE_X) && !defined(VTK_OPENGL_HAS_EGL) && !defined(VTK_OPENGL_HAS_OSMESA)
#define STABLEFLUIDS_RENDERS_ON_X
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#endif

namespace sf {

RenderingDisplay::~RenderingDisplay() {
#ifdef STABLEFLUIDS_RENDERS_ON_X
  if (display_) XCloseDisplay(static_cast<Display*>(display_));
#endif
}

std::string RenderingDisplay::open() {
#ifdef STABLEFLUIDS_RENDERS_ON_X
  const char* name = std::getenv("DISPLAY");
  if (!name || !*name) return "there is no X display (DISPLAY is unset)";
  Display* display = XOpenDisplay(nullptr);
  if (!display) return std::string("the X display cannot be opened (DISPLAY=") + name + ")";
  display_ = display;
  XVisualInfo visual;
  if (!XMatchVisualInfo(display, DefaultScreen(display), 24, TrueColor, &visual)) {
    return std::string("the X display has no 24-bit colour visual for OpenGL (DISPLAY=") + name +
           "; a virtual X server needs a 24-bit screen)";
  }
#endif
  return "";
}

}  // namespace sf
